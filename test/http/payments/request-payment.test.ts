/**
 * request_payment end to end through the tool endpoint, with the real Stripe SDK against the fake
 * Stripe server and the real Twilio SDK against the fake Twilio server: the Checkout Session request
 * (body, Stripe-Account, Idempotency-Key), the text that reaches the carrier, the events on the
 * lead, idempotency under 20 simultaneous calls, dry runs, and every refusal's data.code.
 */
import t from 'tap'
import { MAX_AMOUNT_CENTS, providerIdempotencyKey, requestPayment } from '../../../src/commands/request-payment.command.ts'
import { METADATA } from '../../../src/integrations/payments/payments.port.ts'
import { FAKE_CONNECTED_ACCOUNT } from '../../doubles/fake-stripe.ts'
import { CALLER_ID, JANE_E164, PAYMENT, paymentsApp } from './payments-helpers.ts'

t.test('a Checkout Session on the connected account, and one text with its link from the account\'s number', async (t) => {
  const app = await paymentsApp(t)
  const stripe = app.stripe!
  const twilio = app.twilio!
  const answer = await app.call(app.acme.keys.write, 'request_payment', { ...PAYMENT, idempotency_key: 'pay-1' })
  t.notOk(answer.error, 'no error')
  const out = answer.result?.structuredContent
  const session = stripe.sessions()[0]
  t.same(out, {
    request_id: out.request_id,
    status: 'texted',
    url: session?.url,
    amount_cents: 12500,
    currency: 'usd',
    amount: '$125.00',
    description: 'Roof inspection deposit',
    expires_at: new Date((session?.expires_at ?? 0) * 1000).toISOString(),
    texted_to: JANE_E164,
    from: CALLER_ID,
    message: `Acme Roofing: Roof inspection deposit, $125.00. Pay securely by card here: ${session?.url}\nReply STOP to opt out.`,
    message_id: twilio.messageRequests()[0]?.sid,
    lead_id: app.jane.leadId,
    connected_account: FAKE_CONNECTED_ACCOUNT,
    carrier: 'twilio',
    provider: 'stripe',
    dry_run: false,
  })
  t.match(out.request_id, /^pay_[0-9a-z]{16}$/)
  t.same(JSON.parse(answer.result?.content[0].text), out, 'content[0].text holds the same output')

  const [request] = stripe.sessionRequests()
  t.equal(request?.headers['stripe-account'], FAKE_CONNECTED_ACCOUNT)
  t.equal(request?.headers['idempotency-key'], providerIdempotencyKey(app.acme.accountId, 'pay-1', out.request_id))
  t.match(request?.form, {
    mode: 'payment',
    'line_items[0][price_data][currency]': 'usd',
    'line_items[0][price_data][unit_amount]': '12500',
    'line_items[0][price_data][product_data][name]': 'Roof inspection deposit',
    [`metadata[${METADATA.leadStream}]`]: `lead-${app.acme.accountId}-3125550142`,
    [`metadata[${METADATA.requestId}]`]: out.request_id,
    [`metadata[${METADATA.accountId}]`]: app.acme.accountId,
    [`metadata[${METADATA.leadId}]`]: app.jane.leadId,
    success_url: 'http://leadline.test/pay/thanks',
  })

  const [text] = twilio.messageRequests()
  t.match(text?.form, { From: CALLER_ID, To: JANE_E164, Body: out.message })
  t.ok(String(text?.form.Body).includes(session?.url ?? '?'), 'the text carries the link')

  // The lead is one event (its list and speed to lead's skip ride on it); the payment's events follow.
  t.same(await app.leadEventTypes(), ['LeadReceived', 'PaymentRequested', 'PayLinkCreated', 'PayLinkTextAttempted', 'PayLinkTexted'])
  const [received, ...events] = await app.leadline.store.readStream(`lead-${app.acme.accountId}-3125550142`)
  t.match(received, { type: 'LeadReceived', data: { list: { listName: 'Inbound Leads' }, speedToLeadSkipped: { reason: 'speed_to_lead_off' } } })
  t.match(events[0], { data: { requestId: out.request_id, amountCents: 12500, currency: 'usd', connectedAccount: FAKE_CONNECTED_ACCOUNT, idempotencyKey: 'pay-1', providerIdempotencyKey: request?.headers['idempotency-key'] }, metadata: { actor: { kind: 'api_key', id: app.acme.keyIds.write } } })
  t.match(events[1], { data: { sessionId: session?.id, url: session?.url, expiresAt: out.expires_at } })
  t.match(events[3], { data: { messageId: out.message_id, carrier: 'twilio', at: String } })

  const again = await app.call(app.acme.keys.write, 'request_payment', { ...PAYMENT, idempotency_key: 'pay-1' })
  t.same(again.result?.structuredContent, out)
  t.same(again.result?._meta, { 'leadline/replayed': true })
  t.equal(stripe.sessionRequests().length, 1, 'no second Checkout Session request')
  t.equal(twilio.messageRequests().length, 1, 'no second text')

  const byId = await app.call(app.acme.keys.write, 'request_payment', { lead_id: app.jane.leadId, amountCents: 5000, description: 'Balance', idempotency_key: 'pay-2' })
  t.match(byId.result?.structuredContent, { status: 'texted', texted_to: JANE_E164, amount: '$50.00' }, 'the customer by lead_id')
})

t.test('20 identical calls at once: one decision, one Checkout Session, one text, one answer', async (t) => {
  const app = await paymentsApp(t)
  const answers = await Promise.all(Array.from({ length: 20 }, () => app.call(app.acme.keys.write, 'request_payment', { ...PAYMENT, idempotency_key: 'burst' })))
  t.same(answers.filter((a) => a.error), [], 'no errors')
  t.equal(new Set(answers.map((a) => JSON.stringify(a.result?.structuredContent))).size, 1, 'one result for all 20')
  t.equal(app.stripe!.sessions().length, 1, 'one Checkout Session')
  t.equal(app.stripe!.sessionRequests().length, 1, 'one request to Stripe')
  t.equal(app.twilio!.messageRequests().length, 1, 'one text')
  const types = await app.leadEventTypes()
  t.equal(types.filter((type) => type === 'PaymentRequested').length, 1)
  t.equal(types.filter((type) => type === 'PayLinkTexted').length, 1)
})

t.test('dry_run: the amount, recipient, text and connected account; nothing created, texted or appended', async (t) => {
  const app = await paymentsApp(t)
  const before = await app.leadline.store.headPosition()
  const answer = await app.call(app.acme.keys.write, 'request_payment', { ...PAYMENT, idempotency_key: 'dry-1', dry_run: true })
  t.same(answer.result?.structuredContent, {
    request_id: null,
    status: 'would_text',
    url: null,
    amount_cents: 12500,
    currency: 'usd',
    amount: '$125.00',
    description: 'Roof inspection deposit',
    expires_at: null,
    texted_to: JANE_E164,
    from: CALLER_ID,
    message: 'Acme Roofing: Roof inspection deposit, $125.00. Pay securely by card here: <link>\nReply STOP to opt out.',
    message_id: null,
    lead_id: app.jane.leadId,
    connected_account: FAKE_CONNECTED_ACCOUNT,
    carrier: 'twilio',
    provider: 'stripe',
    dry_run: true,
  })
  // A dry run validates as much as a real call does.
  t.match(await app.call(app.acme.keys.write, 'request_payment', { ...PAYMENT, phone: '(773) 555-0199', idempotency_key: 'dry-2', dry_run: true }), { error: { code: -32603, data: { code: 'customer_not_found' } } })
  t.equal(await app.leadline.store.headPosition(), before, 'the log is unchanged (no claim on the key either)')
  t.equal(app.stripe!.requests().length, 0, 'nothing reached Stripe')
  t.equal(app.twilio!.messageRequests().length, 0, 'nothing was texted')
  // The key was not used up: a real call with it runs.
  t.match(await app.call(app.acme.keys.write, 'request_payment', { ...PAYMENT, idempotency_key: 'dry-1' }), { result: { structuredContent: { status: 'texted' } } })
})

t.test('refusals: -32603 with a stable data.code, and nothing charged or texted', async (t) => {
  const app = await paymentsApp(t)
  const key = app.acme.keys.write
  let n = 0
  const call = (args: Record<string, unknown>) => app.call(key, 'request_payment', { ...PAYMENT, idempotency_key: `refusal-${n++}`, ...args })

  t.match(await call({ phone: '(773) 555-0199' }), { error: { code: -32603, data: { code: 'customer_not_found' } } }, 'a number that is not a lead')
  t.match(await call({ phone: undefined, lead_id: 'ld_00000000000000000000' }), { error: { code: -32603, data: { code: 'customer_not_found' } } }, 'an unknown lead id')
  const other = await app.account('Other Co', { callerId: '+13125550111', stripeAccount: FAKE_CONNECTED_ACCOUNT })
  const bob = await other.pushLead({ name: 'Bob', phone: '(415) 555-0100' })
  t.match(await call({ phone: undefined, lead_id: bob.leadId }), { error: { data: { code: 'customer_not_found' } } }, "another account's lead is not a customer here")

  await app.call(app.acme.keys.write, 'mark_do_not_call', { phone: '(312) 555-0143', idempotency_key: 'x' })
  await app.acme.pushLead({ name: 'Dan', phone: '(312) 555-0143', dnc: 'yes' })
  t.match(await call({ phone: '(312) 555-0143' }), { error: { code: -32603, data: { code: 'do_not_call' } } })

  const noCaller = await app.account('No Number', { stripeAccount: FAKE_CONNECTED_ACCOUNT })
  await noCaller.pushLead({ phone: '(312) 555-0142' })
  t.match(await app.call(noCaller.keys.write, 'request_payment', { ...PAYMENT, idempotency_key: 'nc' }), { error: { code: -32603, data: { code: 'payments_not_configured', missing: 'caller_id' } } })
  const noStripe = await app.account('Not Connected', { callerId: '+13125550112' })
  await noStripe.pushLead({ phone: '(312) 555-0142' })
  t.match(await app.call(noStripe.keys.write, 'request_payment', { ...PAYMENT, idempotency_key: 'ns' }), { error: { code: -32603, message: /--stripe-account acct_/, data: { code: 'no_connected_account' } } })
  t.equal(app.stripe!.requests().length, 0, 'none of these reached Stripe')

  // Stripe refuses (USD Checkout needs at least $0.50): recorded, nothing texted.
  const tooSmall = await call({ amountCents: 10 })
  t.match(tooSmall, { error: { code: -32603, message: /at least \$0\.50/, data: { code: 'stripe_error', failure: 'rejected', provider_code: 'amount_too_small', request_id: /^pay_/ } } })
  t.match((await app.leadEventTypes()).slice(-2), ['PaymentRequested', 'PayLinkFailed'])

  // The carrier refuses: recorded, and the link is not texted again on a retry.
  app.twilio!.failNext({ kind: 'status', status: 400, code: 21610, message: 'Attempt to send to unsubscribed recipient' })
  const refused = await call({})
  t.match(refused, { error: { code: -32603, data: { code: 'carrier_error', failure: 'rejected' } } })
  t.match((await app.leadEventTypes()).slice(-1), ['PayLinkTextFailed'])
  t.equal(app.twilio!.messageRequests().length, 1)

  t.match(await app.call(app.acme.keys.read, 'request_payment', { ...PAYMENT, idempotency_key: 'r' }), { error: { code: -32003, data: { code: 'insufficient_scope', scope: 'write' } } })
})

t.test('arguments are checked before anything happens: -32602', async (t) => {
  const app = await paymentsApp(t)
  const before = await app.leadline.store.headPosition()
  const invalid = async (args: Record<string, unknown>, path: string) => {
    const answer = await app.call(app.acme.keys.write, 'request_payment', { ...PAYMENT, idempotency_key: 'a', ...args })
    t.match(answer, { error: { code: -32602, data: { code: 'invalid_arguments' } } }, JSON.stringify(args))
    if (path) t.match(answer.error?.data.problems, [{ path }])
  }
  await invalid({ amountCents: 0 }, 'amountCents')
  await invalid({ amountCents: 12.5 }, 'amountCents')
  await invalid({ amountCents: MAX_AMOUNT_CENTS + 1 }, 'amountCents')
  await invalid({ amountCents: '12500' }, 'amountCents')
  await invalid({ description: '  ' }, 'description')
  await invalid({ description: 'x'.repeat(251) }, 'description')
  await invalid({ lead_id: 'ld_1' }, '')
  await invalid({ phone: undefined }, '')
  t.equal(await app.leadline.store.headPosition(), before)
  const listed = (await app.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, app.acme.keys.read)).body.result.tools.find((tool: { name: string }) => tool.name === 'request_payment')
  t.match(listed, { _meta: { 'leadline/scope': 'write' }, inputSchema: { properties: { amountCents: { type: 'integer', minimum: 1, maximum: MAX_AMOUNT_CENTS }, description: { maxLength: 250 } } } })
})

t.test('a result recorded before the output became snake_case is replayed in snake_case', async (t) => {
  const app = await paymentsApp(t, { provider: 'simulated' })
  const account = app.leadline.accounts
  const state = (await account.authenticateApiKey(app.acme.keys.write))?.account
  if (!state) throw new Error('no account')
  const context = { actor: { kind: 'api_key' as const, id: app.acme.keyIds.write }, correlationId: 'earlier-version' }
  // What the tool recorded until it answered snake_case: the service's own result, as it was.
  const earlier = await requestPayment(app.leadline, state, { ...PAYMENT, idempotencyKey: 'old-1', dryRun: true }, context)
  t.match(earlier, { requestId: null, textedTo: JANE_E164, dryRun: true }, 'the recorded shape is camelCase')
  await app.leadline.idempotency.run(
    { accountId: app.acme.accountId, keyId: app.acme.keyIds.write, idempotencyKey: 'old-1', tool: 'request_payment', args: PAYMENT, correlationId: 'earlier-version' },
    async () => earlier,
  )
  const replay = await app.call(app.acme.keys.write, 'request_payment', { ...PAYMENT, idempotency_key: 'old-1' })
  t.same(replay.result?._meta, { 'leadline/replayed': true })
  t.same(replay.result?.structuredContent, {
    request_id: null, status: 'would_text', url: null, amount_cents: 12500, currency: 'usd', amount: '$125.00', description: PAYMENT.description,
    expires_at: null, texted_to: JANE_E164, from: CALLER_ID, message: earlier.message, message_id: null, lead_id: app.jane.leadId,
    connected_account: null, carrier: 'simulated', provider: 'simulated', dry_run: true,
  })
})
