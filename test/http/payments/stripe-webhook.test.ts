/**
 * Settlement through POST /api/payments/stripe/webhook: the signature checked by the SDK over the raw
 * body (400 otherwise), Checkout Session events for the request's connected account recorded once on
 * the lead, everything else answered 200 and ignored, and a settled payment visible in get_lead,
 * get_lead_history and the stale-leads view.
 */
import t from 'tap'
import { STRIPE_WEBHOOK_PATH } from '../../../src/http/payments/stripe-webhook.route.ts'
import { FAKE_STRIPE_WEBHOOK_SECRET, checkoutEvent, signedEvent, type CheckoutSession } from '../../doubles/fake-stripe.ts'
import { PAYMENT, paymentsApp, type PaymentsTestApp } from './payments-helpers.ts'

async function deliver(app: PaymentsTestApp, event: unknown, options: { secret?: string; signature?: string | null; body?: string } = {}) {
  const signed = signedEvent(event, options.secret ?? FAKE_STRIPE_WEBHOOK_SECRET)
  const response = await app.app.inject({
    method: 'POST',
    url: STRIPE_WEBHOOK_PATH,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      ...(options.signature === null ? {} : { 'stripe-signature': options.signature ?? signed.signature }),
    },
    payload: options.body ?? signed.body,
  })
  return { status: response.statusCode, body: response.json() as Record<string, unknown> }
}

/** A texted request and the Checkout Session Stripe made for it. */
async function requested(app: PaymentsTestApp, key: string): Promise<{ requestId: string; session: CheckoutSession }> {
  const answer = await app.call(app.acme.keys.write, 'request_payment', { ...PAYMENT, idempotency_key: key })
  const requestId = answer.result?.structuredContent.request_id as string
  const session = app.stripe!.sessions().find((s) => s.metadata.leadline_request_id === requestId) as CheckoutSession
  return { requestId, session }
}

t.test('a bad or missing signature is 400 and records nothing', async (t) => {
  const app = await paymentsApp(t)
  const { session } = await requested(app, 'p-1')
  const before = await app.leadline.store.headPosition()
  const event = checkoutEvent('checkout.session.completed', session)
  t.same(await deliver(app, event, { secret: 'whsec_notTheEndpointSecret00' }), { status: 400, body: { error: 'invalid signature', detail: 'the Stripe-Signature header does not match the body for STRIPE_WEBHOOK_SECRET' } })
  t.equal((await deliver(app, event, { signature: null })).status, 400, 'no Stripe-Signature header')
  const { signature, body } = signedEvent(event)
  t.equal((await deliver(app, event, { signature, body: body.replace('"paid"', '"unpaid"') })).status, 400, 'a body changed after signing')
  t.equal((await deliver(app, event, { signature, body: JSON.stringify(JSON.parse(body), null, 2) })).status, 400, 'the same JSON, re-serialised: not the signed bytes')
  t.equal(await app.leadline.store.headPosition(), before)
})

t.test('checkout.session.completed settles the request once; it shows in get_lead, get_lead_history and the stale-leads view', async (t) => {
  const app = await paymentsApp(t)
  const { requestId, session } = await requested(app, 'p-1')
  await app.settle()
  const activity = () =>
    app.leadline.views.prepare('SELECT contacted, pending_since AS pendingSince, last_touch_at AS lastTouch FROM lead_activity WHERE lead_id = ?').get(app.jane.leadId) as {
      contacted: number
      pendingSince: string | null
      lastTouch: string
    }
  t.match(activity(), { contacted: 1, pendingSince: String }, 'the texted pay-link is a contact, waiting for a touch back')

  const event = checkoutEvent('checkout.session.completed', session, { created: Math.floor(Date.now() / 1000) })
  t.same(await deliver(app, event), { status: 200, body: { received: true, handled: true, duplicate: false } })
  t.same(await deliver(app, event), { status: 200, body: { received: true, handled: true, duplicate: true } }, "Stripe's retry of the same event")
  const async = checkoutEvent('checkout.session.async_payment_succeeded', session)
  t.same((await deliver(app, async)).body, { received: true, handled: true, duplicate: true }, 'another event for a settled session')
  const late = checkoutEvent('checkout.session.expired', session, { paid: false })
  t.same((await deliver(app, late)).body, { received: true, handled: true, duplicate: true }, 'an expiry after payment changes nothing')

  const types = await app.leadEventTypes()
  t.equal(types.filter((type) => type === 'PaymentSettled').length, 1, 'one settlement')
  const settled = (await app.leadline.store.readStream(`lead-${app.acme.accountId}-3125550142`)).find((e) => e.type === 'PaymentSettled')
  const intent = (event.data as { object: { payment_intent: string } }).object.payment_intent
  t.match(settled, {
    data: { requestId, sessionId: session.id, amountCents: 12500, currency: 'usd', paymentIntentId: intent, provider: 'stripe', providerEventId: event.id, at: new Date((event.created as number) * 1000).toISOString() },
    metadata: { actor: { kind: 'payments', id: 'stripe' } },
  })

  const lead = await app.call(app.acme.keys.read, 'get_lead', { phone: PAYMENT.phone })
  t.match(lead.result?.structuredContent.payments, [
    { request_id: requestId, status: 'settled', amount_cents: 12500, currency: 'usd', description: PAYMENT.description, texted: true, url: session.url, provider: 'stripe', settled_at: String },
  ])
  const history = await app.call(app.acme.keys.read, 'get_lead_history', { phone: PAYMENT.phone })
  t.match(history.result?.structuredContent.events[0], { type: 'PaymentSettled', actor: { kind: 'payments', id: 'stripe' }, data: { requestId, amountCents: 12500 } })

  await app.settle()
  t.match(activity(), { contacted: 1, pendingSince: null }, 'the payment touched back: no longer waiting')
})

t.test('failed and expired sessions; other types, other connected accounts and unknown links: 200 and ignored', async (t) => {
  const app = await paymentsApp(t)
  const failed = await requested(app, 'p-1')
  const expired = await requested(app, 'p-2')
  t.same((await deliver(app, checkoutEvent('checkout.session.async_payment_failed', failed.session, { paid: false }))).body, { received: true, handled: true, duplicate: false })
  t.same((await deliver(app, checkoutEvent('checkout.session.expired', expired.session, { paid: false }))).body, { received: true, handled: true, duplicate: false })
  t.match((await app.leadEventTypes()).slice(-2), ['PaymentFailed', 'PaymentLinkExpired'])

  const before = await app.leadline.store.headPosition()
  const paid = await requested(app, 'p-3')
  const afterRequest = await app.leadline.store.headPosition()
  t.ok(afterRequest > before)
  const unused = await deliver(app, { ...checkoutEvent('checkout.session.completed', paid.session), type: 'payment_intent.succeeded' })
  t.same(unused, { status: 200, body: { received: true, handled: false } }, 'a type Leadline does not use')
  const pending = await deliver(app, checkoutEvent('checkout.session.completed', paid.session, { paid: false }))
  t.same(pending.body, { received: true, handled: false }, 'completed, but a bank debit is still pending')
  const elsewhere = await deliver(app, checkoutEvent('checkout.session.completed', paid.session, { account: 'acct_1SomeoneElse000' }))
  t.same(elsewhere, { status: 200, body: { received: true, handled: false, reason: 'connected_account_mismatch' } }, 'an event from another connected account')
  const platform = await deliver(app, checkoutEvent('checkout.session.completed', paid.session, { account: null }))
  t.same(platform.body, { received: true, handled: false, reason: 'connected_account_mismatch' }, "the platform's own event, not a connected account's")
  const stranger = await deliver(app, checkoutEvent('checkout.session.completed', { ...paid.session, id: 'cs_test_someoneElses', metadata: {} }))
  t.same(stranger.body, { received: true, handled: false, reason: 'unknown_session' }, 'a session Leadline did not make')
  t.equal(await app.leadline.store.headPosition(), afterRequest, 'nothing recorded for any of them')
  t.match((await app.call(app.acme.keys.read, 'get_lead', { phone: PAYMENT.phone })).result?.structuredContent.payments, [
    { status: 'failed' },
    { status: 'expired' },
    { status: 'open', texted: true },
  ])
})

t.test('without Stripe configured the webhook is 404', async (t) => {
  const app = await paymentsApp(t, { provider: 'simulated' })
  const response = await app.app.inject({ method: 'POST', url: STRIPE_WEBHOOK_PATH, headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' }, payload: '{}' })
  t.equal(response.statusCode, 404)
  t.match(response.json(), { error: 'not found', detail: /not configured/ })
})
