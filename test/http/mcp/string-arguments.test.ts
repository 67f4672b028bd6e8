/**
 * Text arguments must be well-formed Unicode: a lone UTF-16 surrogate (`"\ud800"`, half an emoji cut
 * by a client) is bad input, answered -32602 invalid_arguments naming the argument, for every string
 * argument of every tool, before anything runs or an idempotency key is spent.
 */
import t from 'tap'
import { paymentsApp } from '../payments/payments-helpers.ts'

const LONE = '\ud800'

t.test('a lone surrogate in any string argument is -32602 invalid_arguments naming it, and nothing is recorded', async (t) => {
  const app = await paymentsApp(t, { provider: 'simulated', settings: { callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false } })
  const { keys } = app.acme
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['place_call', { phone: '3125550142', name: `Jane ${LONE}Doe`, idempotency_key: 'c-1' }, 'name'],
    ['place_call', { phone: '3125550142', name: `Jane${LONE}`, idempotency_key: 'c-2', dry_run: true }, 'name'],
    ['request_payment', { phone: '3125550142', amountCents: 12500, description: `Deposit ${LONE}`, idempotency_key: 'p-1' }, 'description'],
    ['request_payment', { phone: '3125550142', amountCents: 12500, description: `\udfff deposit`, idempotency_key: 'p-2', dry_run: true }, 'description'],
    ['list_leads', { source: `Spring${LONE}` }, 'source'],
    ['list_leads', { vendor: LONE }, 'vendor'],
    ['get_lead', { lead_id: `ld_${LONE}` }, 'lead_id'],
    ['get_lead_history', { phone: `312555014${LONE}2` }, 'phone'],
    ['mark_do_not_call', { lead_id: `${LONE}x`, idempotency_key: 'd-1' }, 'lead_id'],
  ]
  const before = await app.leadline.store.headPosition()
  for (const [tool, args, path] of cases) {
    const answer = await app.call(keys.all, tool, args)
    t.match(answer.error, { code: -32602, data: { code: 'invalid_arguments', problems: [{ path, message: /well-formed/ }] } }, `${tool} ${path}`)
  }
  t.equal(await app.leadline.store.headPosition(), before, 'nothing was recorded: no key claimed, no lead, no call')
  // A whole emoji (a surrogate pair) is well-formed text.
  t.match((await app.call(keys.all, 'place_call', { phone: '3125550142', name: 'Jane 🙂', idempotency_key: 'c-3', dry_run: true })).result?.structuredContent, { status: 'would_call' })
})
