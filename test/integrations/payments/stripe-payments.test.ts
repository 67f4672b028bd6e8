/**
 * The Stripe adapter through the real `stripe` SDK against the fake Stripe server on 127.0.0.1:
 * the contract, the exact request (body, Stripe-Account, Idempotency-Key), retries that reuse the
 * key, the error mapping, and reading and verifying webhook events.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import type { Test } from 'tap'
import { METADATA, PaymentsError } from '../../../src/integrations/payments/payments.port.ts'
import {
  createStripePayments,
  settlementFromStripeEvent,
  stripeConnection,
  verifyStripeWebhook,
  type StripePayments,
} from '../../../src/integrations/payments/stripe/stripe-payments.adapter.ts'
import {
  FAKE_CONNECTED_ACCOUNT,
  FAKE_STRIPE_WEBHOOK_SECRET,
  checkoutEvent,
  signedEvent,
  startFakeStripe,
  type FakeStripe,
  type FakeStripeOptions,
} from '../../doubles/fake-stripe.ts'
import { paymentsContract, payLinkRequest } from './payments.contract.ts'

async function setup(t: Test, options: { fake?: FakeStripeOptions; maxNetworkRetries?: number; apiUrl?: string } = {}): Promise<{ fake: FakeStripe; stripe: StripePayments }> {
  const fake = await startFakeStripe(options.fake)
  const stripe = createStripePayments({ secretKey: fake.secretKey, apiUrl: options.apiUrl ?? fake.url, maxNetworkRetries: options.maxNetworkRetries ?? 2 })
  t.teardown(async () => {
    await stripe.close()
    await fake.close()
  })
  return { fake, stripe }
}

async function failure(promise: Promise<unknown>): Promise<PaymentsError> {
  const outcome = await promise.then(
    () => new Error('expected the request to fail'),
    (e: unknown) => e,
  )
  if (!(outcome instanceof PaymentsError)) throw outcome
  return outcome
}

void paymentsContract(t, {
  name: 'stripe',
  connectedAccount: FAKE_CONNECTED_ACCOUNT,
  async open(t) {
    const { fake, stripe } = await setup(t)
    return {
      provider: stripe,
      observed: () =>
        fake.sessionRequests().map((r) => ({
          amountCents: Number(r.form['line_items[0][price_data][unit_amount]']),
          currency: r.form['line_items[0][price_data][currency]'] as string,
          description: r.form['line_items[0][price_data][product_data][name]'] as string,
          connectedAccount: (r.headers['stripe-account'] as string | undefined) ?? null,
          idempotencyKey: r.headers['idempotency-key'] as string,
          metadata: Object.fromEntries(
            Object.entries(r.form)
              .filter(([k]) => k.startsWith('metadata['))
              .map(([k, v]) => [k.slice('metadata['.length, -1), v]),
          ),
        })),
    }
  },
})

t.test('STRIPE_API_URL becomes the SDK host, port and protocol', async (t) => {
  t.same(stripeConnection('http://127.0.0.1:12111'), { host: '127.0.0.1', port: 12111, protocol: 'http' })
  t.same(stripeConnection('https://api.stripe.com'), { host: 'api.stripe.com', port: 443, protocol: 'https' })
  t.same(stripeConnection('http://[::1]:8080/'), { host: '::1', port: 8080, protocol: 'http' })
})

t.test('a Checkout Session in payment mode, a direct charge on the connected account, keyed by the decision', async (t) => {
  const { fake, stripe } = await setup(t, { fake: { connectedAccounts: [FAKE_CONNECTED_ACCOUNT] } })
  const link = await stripe.createPayLink(payLinkRequest(FAKE_CONNECTED_ACCOUNT))
  const [request] = fake.sessionRequests()
  t.equal(request?.method, 'POST')
  t.equal(request?.path, '/v1/checkout/sessions')
  t.equal(request?.headers.authorization, `Bearer ${fake.secretKey}`)
  t.equal(request?.headers['stripe-account'], FAKE_CONNECTED_ACCOUNT, 'Stripe-Account: a direct charge on the connected account')
  t.equal(request?.headers['idempotency-key'], 'leadline-pay-contract-1', 'our key, not one the SDK made up')
  t.match(request?.headers['content-type'], /application\/x-www-form-urlencoded/)
  t.match(request?.form, {
    mode: 'payment',
    'line_items[0][quantity]': '1',
    'line_items[0][price_data][currency]': 'usd',
    'line_items[0][price_data][unit_amount]': '12500',
    'line_items[0][price_data][product_data][name]': 'Roof inspection deposit',
    'payment_intent_data[description]': 'Roof inspection deposit',
    [`payment_intent_data[metadata][${METADATA.requestId}]`]: 'pay_contract00000001',
    [`metadata[${METADATA.leadStream}]`]: 'lead-acc_1-3125550142',
    [`metadata[${METADATA.requestId}]`]: 'pay_contract00000001',
    client_reference_id: 'pay_contract00000001',
    success_url: 'http://leadline.test/pay/thanks',
  })
  const session = fake.sessions()[0]
  t.same(link, { sessionId: session?.id, url: session?.url, expiresAt: new Date((session?.expires_at ?? 0) * 1000).toISOString(), provider: 'stripe' })
  t.match(link.url, /^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/)
})

t.test('the SDK retries a 500 and a dropped connection with the same Idempotency-Key: one session', async (t) => {
  const { fake, stripe } = await setup(t)
  fake.failNext({ kind: 'status', status: 500 })
  const first = await stripe.createPayLink(payLinkRequest(FAKE_CONNECTED_ACCOUNT))
  t.equal(fake.sessionRequests().length, 2, 'one retry')
  t.same(new Set(fake.sessionRequests().map((r) => r.headers['idempotency-key'])), new Set(['leadline-pay-contract-1']))

  // Stripe made the session, the answer never came: the retry replays it instead of making another.
  fake.failNext({ kind: 'destroy' })
  const second = await stripe.createPayLink(payLinkRequest(FAKE_CONNECTED_ACCOUNT, { idempotencyKey: 'leadline-pay-contract-2' }))
  const outcomes = fake.sessionRequests().slice(2).map((r) => r.outcome)
  t.same(outcomes, ['fault', 'replayed'])
  t.equal(fake.sessions().length, 2, 'two keys, two sessions: the dropped one was not made twice')
  t.not(first.sessionId, second.sessionId)
  t.equal(second.sessionId, fake.sessions()[1]?.id)
})

t.test("Stripe's errors map onto the port's failures", async (t) => {
  const { fake, stripe } = await setup(t, { maxNetworkRetries: 0, fake: { connectedAccounts: [FAKE_CONNECTED_ACCOUNT] } })
  const key = (n: number) => ({ idempotencyKey: `k-${n}` })

  const tooSmall = await failure(stripe.createPayLink(payLinkRequest(FAKE_CONNECTED_ACCOUNT, { amountCents: 10, ...key(1) })))
  t.match(tooSmall, { failure: 'rejected', details: { status: 400, providerCode: 'amount_too_small', providerRequestId: /^req_/ } })

  const noAccess = await failure(stripe.createPayLink(payLinkRequest('acct_1SomeoneElse000', key(2))))
  t.match(noAccess, { failure: 'rejected', details: { status: 403, providerCode: 'account_invalid' } })

  fake.failNext({ kind: 'status', status: 402, code: 'card_declined', message: 'Your card was declined.' })
  t.match(await failure(stripe.createPayLink(payLinkRequest(FAKE_CONNECTED_ACCOUNT, key(3)))), { failure: 'rejected', details: { status: 402 } })

  fake.failNext({ kind: 'status', status: 429 })
  t.match(await failure(stripe.createPayLink(payLinkRequest(FAKE_CONNECTED_ACCOUNT, key(4)))), { failure: 'rate_limited', details: { status: 429 } })

  fake.failNext({ kind: 'status', status: 500 })
  t.match(await failure(stripe.createPayLink(payLinkRequest(FAKE_CONNECTED_ACCOUNT, key(5)))), { failure: 'unknown_outcome', details: { status: 500 } })

  const wrongKey = createStripePayments({ secretKey: 'sk_test_notTheRightKey000', apiUrl: fake.url, maxNetworkRetries: 0 })
  t.teardown(() => wrongKey.close())
  t.match(await failure(wrongKey.createPayLink(payLinkRequest(FAKE_CONNECTED_ACCOUNT, key(6)))), { failure: 'rejected', details: { status: 401 } })
  t.equal(fake.sessions().length, 0, 'nothing was made')
})

t.test('nothing listening: unreachable (the request never left)', async (t) => {
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  const stripe = createStripePayments({ secretKey: 'sk_test_fakeLeadline0123456789abcdef', apiUrl: `http://127.0.0.1:${port}`, maxNetworkRetries: 0 })
  t.teardown(() => stripe.close())
  t.match(await failure(stripe.createPayLink(payLinkRequest(FAKE_CONNECTED_ACCOUNT))), { failure: 'unreachable' })
})

t.test('webhook events: verified over the raw body, then read as settlements', async (t) => {
  const refused = (verify: () => unknown, what: string) => {
    try {
      verify()
      t.fail(`${what}: verified`)
    } catch (error) {
      t.match(error, { type: 'StripeSignatureVerificationError' }, what)
    }
  }
  const session = { id: 'cs_test_a1xyz', url: 'https://checkout.stripe.com/c/pay/cs_test_a1xyz', expires_at: 1_900_000_000, amount_total: 12500, currency: 'usd', metadata: { [METADATA.leadStream]: 'lead-acc_1-3125550142', [METADATA.requestId]: 'pay_1' } }
  const completed = checkoutEvent('checkout.session.completed', session, { id: 'evt_1', created: 1_800_000_000 })
  const { body, signature } = signedEvent(completed)
  const event = verifyStripeWebhook(Buffer.from(body), signature, FAKE_STRIPE_WEBHOOK_SECRET)
  t.same(settlementFromStripeEvent(event), {
    provider: 'stripe',
    eventId: 'evt_1',
    outcome: 'settled',
    connectedAccount: FAKE_CONNECTED_ACCOUNT,
    sessionId: 'cs_test_a1xyz',
    leadStream: 'lead-acc_1-3125550142',
    requestId: 'pay_1',
    amountCents: 12500,
    currency: 'usd',
    paymentIntentId: (completed.data as { object: { payment_intent: string } }).object.payment_intent,
    at: new Date(1_800_000_000_000).toISOString(),
  })

  refused(() => verifyStripeWebhook(Buffer.from(body.replace('12500', '99')), signature, FAKE_STRIPE_WEBHOOK_SECRET), 'a changed body')
  refused(() => verifyStripeWebhook(Buffer.from(body), signature, 'whsec_anotherSecret0000'), 'another secret')
  refused(() => verifyStripeWebhook(Buffer.from(body), undefined, FAKE_STRIPE_WEBHOOK_SECRET), 'no header')
  const stale = signedEvent(completed, FAKE_STRIPE_WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 3600)
  refused(() => verifyStripeWebhook(Buffer.from(stale.body), stale.signature, FAKE_STRIPE_WEBHOOK_SECRET), 'signed an hour ago')

  const outcome = (type: string, paid?: boolean) => settlementFromStripeEvent(checkoutEvent(type, session, paid === undefined ? {} : { paid }) as never)?.outcome ?? null
  t.equal(outcome('checkout.session.async_payment_succeeded'), 'settled')
  t.equal(outcome('checkout.session.async_payment_failed', false), 'failed')
  t.equal(outcome('checkout.session.expired', false), 'expired')
  t.equal(outcome('checkout.session.completed', false), null, 'completed but the bank debit is still pending: wait for async_payment_*')
  t.equal(outcome('payment_intent.succeeded'), null, 'other types settle nothing')
})
