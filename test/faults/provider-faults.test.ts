/**
 * Carrier and Stripe faults seen through the tool endpoint, as an assistant sees them: timeouts,
 * 5xx, 429 and slow answers from the fake Twilio and fake Stripe servers. Never a second call, charge
 * or text; a stable `error.data.code`; a retry with the same idempotency key answers the same and
 * asks no provider again. Retries happen only where they are safe: Stripe requests carry an
 * Idempotency-Key (the SDK and Leadline retry them), Twilio's calls.create has none (retried only
 * after a 429 or a refused connection, which cannot have rung anyone).
 */
import t, { type Test } from 'tap'
import { createTwilioCarrier } from '../../src/integrations/carrier/twilio/twilio-carrier.adapter.ts'
import { DIALING, fakeTwilio, PUBLIC_URL, twilioEnv } from '../helpers/dialing-app.ts'
import { mcpApp } from '../http/mcp/mcp-helpers.ts'
import { PAYMENT, paymentsApp } from '../http/payments/payments-helpers.ts'
import type { FakeTwilio } from '../doubles/fake-twilio.ts'

async function dialingTools(t: Test, fake: FakeTwilio, timeoutMs?: number) {
  const app = await mcpApp(t, {
    publicUrl: PUBLIC_URL,
    env: twilioEnv(fake),
    ...(timeoutMs !== undefined
      ? {
          carrier: () => createTwilioCarrier({ accountSid: fake.accountSid, authToken: fake.authToken, apiUrl: fake.url, timeoutMs }),
        }
      : {}),
  })
  const acme = await app.account('Acme', { ...DIALING, speedToLead: false, callsPerSecond: 100 })
  const placeCall = (key: string, phone = '(312) 555-0142') => app.call(acme.keys.dial, 'place_call', { phone, name: 'Jane Doe', idempotency_key: key })
  return { app, placeCall }
}

function created(fake: FakeTwilio, kind: 'call' | 'text' = 'call'): number {
  return (kind === 'call' ? fake.callRequests() : fake.messageRequests()).filter((r) => r.sid !== undefined).length
}

t.test('place_call: Twilio 5xx → carrier_outcome_unknown, never asked again under that key', async (t) => {
  const fake = await fakeTwilio(t)
  const { placeCall } = await dialingTools(t, fake)
  fake.failNext({ kind: 'status', status: 503 })
  const first = await placeCall('k-5xx')
  t.match(first.error, { code: -32603, data: { code: 'carrier_outcome_unknown' } })
  const again = await placeCall('k-5xx')
  t.match(again.error, { code: -32603, data: { code: 'carrier_outcome_unknown' } }, 'the same answer for the same key')
  t.equal(fake.callRequests().length, 1, 'Twilio was asked once: calls.create is not idempotent, so a 5xx is never retried')
})

t.test('place_call: a connection cut after Twilio took the call → unknown, not retried', async (t) => {
  const fake = await fakeTwilio(t)
  const { placeCall } = await dialingTools(t, fake)
  fake.failNext({ kind: 'destroy' })
  t.match((await placeCall('k-cut')).error, { data: { code: 'carrier_outcome_unknown' } })
  t.equal(fake.callRequests().length, 1)
  t.equal(created(fake), 1, 'the one call Twilio did place is the only one')
})

t.test('place_call: 429 twice, then placed: retried with backoff (a 429 rings no one), one call', async (t) => {
  const fake = await fakeTwilio(t)
  const { placeCall } = await dialingTools(t, fake)
  fake.failNext({ kind: 'status', status: 429, headers: { 'retry-after': '0' } }, 2)
  const answer = await placeCall('k-429')
  t.match(answer.result?.structuredContent, { status: 'placed' })
  t.equal(fake.callRequests().length, 3, 'two refusals and one call')
  t.equal(created(fake), 1)
})

t.test('place_call: slower than the carrier timeout → unknown; the late call is the only one', async (t) => {
  const fake = await fakeTwilio(t)
  const { placeCall } = await dialingTools(t, fake, 300)
  fake.failNext({ kind: 'delay', ms: 800 })
  t.match((await placeCall('k-slow')).error, { data: { code: 'carrier_outcome_unknown' } })
  await new Promise((resolve) => setTimeout(resolve, 700))
  t.match((await placeCall('k-slow')).error, { data: { code: 'carrier_outcome_unknown' } })
  t.equal(fake.callRequests().length, 1)
})

t.test('place_call: a slow answer within the timeout is a placed call', async (t) => {
  const fake = await fakeTwilio(t)
  const { placeCall } = await dialingTools(t, fake)
  fake.failNext({ kind: 'delay', ms: 400 })
  t.match((await placeCall('k-slowish')).result?.structuredContent, { status: 'placed' })
  t.equal(fake.callRequests().length, 1)
})

t.test('request_payment: Stripe 500 and a cut connection are retried with the same Idempotency-Key: one session, one text', async (t) => {
  const app = await paymentsApp(t)
  const stripe = app.stripe!
  const twilio = app.twilio!
  stripe.failNext({ kind: 'status', status: 500 })
  stripe.failNext({ kind: 'destroy' })
  const answer = await app.call(app.acme.keys.write, 'request_payment', { ...PAYMENT, idempotency_key: 'p-500' })
  t.match(answer.result?.structuredContent, { status: 'texted' })
  const keys = new Set(stripe.sessionRequests().map((r) => r.headers['idempotency-key']))
  t.equal(keys.size, 1, `every try carried the one key (${stripe.sessionRequests().length} requests)`)
  t.equal(stripe.sessions().length, 1, 'one Checkout Session')
  t.equal(created(twilio, 'text'), 1, 'one text')
  const again = await app.call(app.acme.keys.write, 'request_payment', { ...PAYMENT, idempotency_key: 'p-500' })
  t.same(again.result?.structuredContent, answer.result?.structuredContent, 'the same key: the same result')
  t.equal(stripe.sessions().length, 1)
  t.equal(created(twilio, 'text'), 1)
})

t.test('request_payment: Stripe 429 → retried with backoff; 429 every time → stripe_error rate_limited, nothing texted', async (t) => {
  const app = await paymentsApp(t)
  const stripe = app.stripe!
  stripe.failNext({ kind: 'status', status: 429 }, 2)
  t.match((await app.call(app.acme.keys.write, 'request_payment', { ...PAYMENT, idempotency_key: 'p-429' })).result?.structuredContent, { status: 'texted' })
  t.equal(stripe.sessions().length, 1)

  stripe.failNext({ kind: 'status', status: 429 }, 10)
  const limited = await app.call(app.acme.keys.write, 'request_payment', { ...PAYMENT, amountCents: 9900, idempotency_key: 'p-429-always' })
  t.match(limited.error, { code: -32603, data: { code: 'stripe_error', failure: 'rate_limited' } })
  t.equal(stripe.sessions().length, 1, 'no second session')
  t.equal(created(app.twilio!, 'text'), 1, 'nothing texted for the refused one')
})

t.test('request_payment: the carrier fails the text with a 5xx → carrier_error unknown_outcome, never resent', async (t) => {
  const app = await paymentsApp(t)
  app.twilio!.failNext({ kind: 'status', status: 500 })
  const answer = await app.call(app.acme.keys.write, 'request_payment', { ...PAYMENT, idempotency_key: 'p-text-5xx' })
  t.match(answer.error, { code: -32603, data: { code: 'carrier_error', failure: 'unknown_outcome' } })
  const again = await app.call(app.acme.keys.write, 'request_payment', { ...PAYMENT, idempotency_key: 'p-text-5xx' })
  t.match(again.error, { data: { code: 'carrier_error' } })
  t.equal(app.twilio!.messageRequests().length, 1, 'the carrier was asked once')
  t.equal(app.stripe!.sessions().length, 1)
})
