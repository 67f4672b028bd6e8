/**
 * Payments without Stripe keys (the embedded default): a clearly labelled simulated provider whose
 * links open Leadline's own pay page, which settles through the same code as Stripe's webhook; the
 * `leadline pay` client command; and recovery after a crash (a claimed text with no outcome is
 * marked unknown, never resent; a decision never sent is sent once).
 */
import t from 'tap'
import { runCli } from '../../../src/cli/main.ts'
import type { Io } from '../../../src/cli/cli-io.ts'
import { leadDecider } from '../../../src/domain/lead/lead.decider.ts'
import type { SimulatedCarrier } from '../../../src/integrations/carrier/simulated/simulated-carrier.adapter.ts'
import { SIMULATED_SESSION_ID } from '../../../src/integrations/payments/simulated/simulated-payments.adapter.ts'
import { CALLER_ID, JANE_E164, PAYMENT, paymentsApp } from './payments-helpers.ts'
import { PayLinkSender } from '../../../src/processes/pay-link-sender/pay-link-sender.process.ts'

t.test('a simulated pay-link: every output says so, its page says no card is charged, and its button settles it', async (t) => {
  const app = await paymentsApp(t, { provider: 'simulated' })
  const carrier = app.leadline.carrier as SimulatedCarrier
  const description = 'Deposit <b>&</b> "inspection"'
  const dry = await app.call(app.acme.keys.write, 'request_payment', { ...PAYMENT, description, idempotency_key: 'sim-1', dry_run: true })
  t.match(dry.result?.structuredContent, { status: 'would_text', provider: 'simulated', carrier: 'simulated', connected_account: null })

  const answer = await app.call(app.acme.keys.write, 'request_payment', { ...PAYMENT, description, idempotency_key: 'sim-1' })
  const out = answer.result?.structuredContent
  t.match(out, { status: 'texted', provider: 'simulated', carrier: 'simulated', connected_account: null, texted_to: JANE_E164, from: CALLER_ID, amount: '$125.00' })
  const session = /\/pay\/(.+)$/.exec(out.url)?.[1] as string
  t.match(session, SIMULATED_SESSION_ID)
  t.equal(out.url, `http://leadline.test/pay/${session}`, 'LEADLINE_PUBLIC_URL/pay/…')
  t.same(carrier.texts().map((m) => m.request.body), [out.message])

  const page = await app.app.inject({ method: 'GET', url: `/pay/${session}` })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /text\/html/)
  t.equal(page.headers['cache-control'], 'no-store')
  t.match(page.body, 'No card will be charged')
  t.match(page.body, 'Acme Roofing')
  t.match(page.body, '$125.00')
  t.match(page.body, 'Deposit &lt;b&gt;&amp;&lt;/b&gt; &quot;inspection&quot;', 'the description is escaped')
  t.notMatch(page.body, '<b>&</b>')
  t.match(page.body, `<form method="post" action="/pay/${session}">`)

  const pay = await app.app.inject({ method: 'POST', url: `/pay/${session}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' })
  t.equal(pay.statusCode, 303)
  t.equal(pay.headers.location, `/pay/${session}`)
  t.match((await app.app.inject({ method: 'GET', url: `/pay/${session}` })).body, 'Paid (simulated)')
  t.equal((await app.app.inject({ method: 'POST', url: `/pay/${session}` })).statusCode, 303, 'a second press')

  const events = await app.leadline.store.readStream(`lead-${app.acme.accountId}-3125550142`)
  t.equal(events.filter((e) => e.type === 'PaymentSettled').length, 1, 'settled once')
  t.match(events.at(-1), { type: 'PaymentSettled', data: { requestId: out.request_id, sessionId: session, provider: 'simulated', amountCents: 12500 }, metadata: { actor: { kind: 'payments', id: 'simulated' } } })
  t.match((await app.call(app.acme.keys.read, 'get_lead', { phone: PAYMENT.phone })).result?.structuredContent.payments, [{ status: 'settled', provider: 'simulated' }])

  t.equal((await app.app.inject({ method: 'GET', url: '/pay/cs_sim_00000000000000000000000000000000' })).statusCode, 404, 'an unknown link')
  t.equal((await app.app.inject({ method: 'GET', url: '/pay/not-a-session' })).statusCode, 404)
  t.match((await app.app.inject({ method: 'GET', url: '/pay/thanks' })).body, 'Thank you')
})

t.test('leadline pay calls request_payment like the other client commands', async (t) => {
  const app = await paymentsApp(t, { provider: 'simulated' })
  const url = await app.listen()
  const run = async (args: string[]) => {
    const out: string[] = []
    const err: string[] = []
    const io: Io = { out: (s) => void out.push(s), err: (s) => void err.push(s), env: { LEADLINE_URL: url, LEADLINE_API_KEY: app.acme.keys.write } }
    const code = await runCli(args, io)
    return { code, out: out.join('\n'), err: err.join('\n') }
  }
  const dry = await run(['pay', '--phone', PAYMENT.phone, '--amount-cents', '12500', '--description', 'Deposit', '--idempotency-key', 'cli-1', '--dry-run'])
  t.equal(dry.code, 0, dry.err)
  t.match(dry.out, /^dry run: \$125\.00 would be asked of \+13125550142 from \+13125550100 \(simulated provider: no card is charged\); nothing was done\ntext: Acme Roofing: Deposit, \$125\.00\. Pay securely by card here: <link>\n {6}Reply STOP to opt out\.$/)
  const paid = await run(['pay', '--phone', PAYMENT.phone, '--amount-cents', '12500', '--description', 'Deposit', '--json'])
  t.equal(paid.code, 0, paid.err)
  t.match(JSON.parse(paid.out), { status: 'texted', provider: 'simulated', url: /\/pay\/cs_sim_/ })
  t.match(paid.err, /idempotency key: cli-/, 'a generated key is printed for a safe retry')
  const readable = await run(['pay', '--phone', PAYMENT.phone, '--amount-cents', '5000', '--description', 'Balance', '--idempotency-key', 'cli-3'])
  t.equal(readable.code, 0, readable.err)
  t.match(readable.out, /^pay-link pay_[0-9a-z]{16} for \$50\.00 texted to \+13125550142 from \+13125550100 \(simulated\) \(simulated provider: no card is charged\)\nlink: http:\/\/leadline\.test\/pay\/cs_sim_\S+ \(expires \d{4}-\d\d-\d\dT[\d:.]+Z\)$/)
  const refused = await run(['pay', '--phone', '(773) 555-0199', '--amount-cents', '100', '--description', 'x', '--idempotency-key', 'cli-2'])
  t.equal(refused.code, 6, 'the tool ran and failed')
  t.match(refused.err, /customer_not_found/)
  t.equal((await run(['pay', '--phone', PAYMENT.phone, '--amount-cents', '12.50', '--description', 'x'])).code, 2, 'bad input')
})

t.test('after a crash: a claimed text with no outcome is marked unknown and never resent; an unsent decision is sent once', async (t) => {
  const app = await paymentsApp(t, { provider: 'simulated' })
  const { commands } = app.leadline
  const carrier = app.leadline.carrier as SimulatedCarrier
  const stream = `lead-${app.acme.accountId}-3125550142`
  const crashed = { actor: { kind: 'process', id: 'crashed-node' } } as const
  const decide = (requestId: string, key: string) =>
    commands.handle(stream, leadDecider, {
      type: 'RequestPayment', requestId, amountCents: 5000, currency: 'usd', description: 'Balance', connectedAccount: null, provider: 'simulated',
      idempotencyKey: key, providerIdempotencyKey: `leadline-pay-${key}`, from: CALLER_ID,
    }, crashed)

  // Node 1 claimed the text, then died before it heard from the carrier.
  await decide('pay_crashed0000000001', 'c-1')
  await commands.handle(stream, leadDecider, { type: 'RecordPayLinkCreated', requestId: 'pay_crashed0000000001', sessionId: 'cs_sim_x', url: 'http://leadline.test/pay/cs_sim_x', expiresAt: '2099-01-01T00:00:00.000Z', provider: 'simulated' }, crashed)
  await commands.handle(stream, leadDecider, { type: 'StartPayLinkText', requestId: 'pay_crashed0000000001', node: 'crashed-node', body: 'Pay: http://leadline.test/pay/cs_sim_x' }, crashed)
  // Node 2 decided and died before anything was sent.
  await decide('pay_crashed0000000002', 'c-2')

  // A claim is stuck when it is older than the sweep's moment (claimed_at < now - 0): on a fast machine both
  // can fall in one millisecond, so the crashed claim is let age by a few.
  await new Promise((r) => setTimeout(r, 5))
  await app.leadline.effects.get(PayLinkSender).recover(0)
  const deadline = Date.now() + 5000
  while (!(await app.leadEventTypes()).includes('PayLinkTexted') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  const { state } = await commands.load(stream, leadDecider)
  t.match(state.payments.requests.pay_crashed0000000001, { stage: 'text_unknown' }, 'the claimed text: outcome unknown')
  t.match(state.payments.requests.pay_crashed0000000002, { stage: 'texted' }, 'the unsent decision: sent')
  t.equal(carrier.texts().length, 1, 'one text, for the decision that never went out')
  t.match(carrier.texts()[0]?.request.body, /\$50\.00/)
  t.equal(await app.leadline.effects.get(PayLinkSender).sweep(0), 0, 'nothing left to mark')
  await app.leadline.effects.get(PayLinkSender).recover(0)
  t.equal(carrier.texts().length, 1, 'recovering again sends nothing')
})

t.test('a running node sends a decision another node made, once, and request_payment on it still texts once', async (t) => {
  const app = await paymentsApp(t, { provider: 'simulated', start: true })
  const carrier = app.leadline.carrier as SimulatedCarrier
  const stream = `lead-${app.acme.accountId}-3125550142`
  // Another node decided and stopped before it sent anything: the process runner feeds the decision here.
  await app.leadline.commands.handle(stream, leadDecider, {
    type: 'RequestPayment', requestId: 'pay_othernode00000001', amountCents: 7500, currency: 'usd', description: 'Balance', connectedAccount: null, provider: 'simulated',
    idempotencyKey: 'o-1', providerIdempotencyKey: 'leadline-pay-o-1', from: CALLER_ID,
  }, { actor: { kind: 'process', id: 'other-node' } })
  const deadline = Date.now() + 5000
  while (!(await app.leadEventTypes()).includes('PayLinkTexted') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  t.match((await app.leadline.commands.load(stream, leadDecider)).state.payments.requests.pay_othernode00000001, { stage: 'texted' }, 'sent without a restart')
  t.same(carrier.texts().map((m) => m.request.to), [JANE_E164], 'one text')
  t.match(carrier.texts()[0]?.request.body, /\$75\.00/)

  const answer = await app.call(app.acme.keys.write, 'request_payment', { ...PAYMENT, idempotency_key: 'run-1' })
  t.match(answer.result?.structuredContent, { status: 'texted' })
  await app.leadline.runner.catchUp()
  await new Promise((r) => setTimeout(r, 300))
  const types = await app.leadEventTypes()
  t.equal(types.filter((type) => type === 'PayLinkTextAttempted').length, 2, 'one claim per decision')
  t.equal(carrier.texts().length, 2, 'the tool and the runner performed its decision once between them')
})
