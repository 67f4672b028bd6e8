/**
 * The dialer against the REAL Twilio adapter and the fake Twilio server, under carrier faults: a
 * request that cannot have placed a call (429) is retried; one that may have (5xx, timeout, a reset
 * after the request was read) becomes "outcome unknown" and is never retried nor followed up; a
 * rejection (400) is a failure with the carrier's code.
 */
import t from 'tap'
import { createTwilioCarrier } from '../../../src/integrations/carrier/twilio/twilio-carrier.adapter.ts'
import { DIALING, dialingApp, fakeTwilio, freePortUrl, leadEventTypes, leadEvents, placedCalls, postLead, sleep, waitFor, waitForEvent } from '../../helpers/dialing-app.ts'

const PHONE = '3125550142'

t.test('429 then success: retried, one call placed', async (t) => {
  const fake = await fakeTwilio(t)
  const { app, leadline, createAccount } = await dialingApp(t, { fake })
  const { account, token } = await createAccount('Acme', DIALING)
  fake.failNext({ kind: 'status', status: 429, headers: { 'retry-after': '0' } })
  fake.failNext({ kind: 'status', status: 429 })
  await postLead(app, token, { phone: PHONE })
  const placed = await waitForEvent(leadline, account.accountId, PHONE, 'CallPlaced')
  t.same(fake.callRequests().map((r) => r.status), [429, 429, 201], 'two refusals, then the call')
  t.equal((placed.data as { callId: string }).callId, placedCalls(fake)[0]?.sid)
  await sleep(100)
  t.same(await leadEventTypes(leadline, account.accountId, PHONE), ['LeadReceived', 'CallDecided', 'CallAttemptStarted', 'CallPlaced'], 'one attempt on the history')
})

t.test('429 every time: retried twice, then a failure that is not the carrier having rung', async (t) => {
  const fake = await fakeTwilio(t)
  const { app, leadline, createAccount } = await dialingApp(t, { fake })
  const { account, token } = await createAccount('Acme', DIALING)
  fake.failNext({ kind: 'status', status: 429, headers: { 'retry-after': '0' } }, 5)
  await postLead(app, token, { phone: PHONE })
  const failed = await waitForEvent(leadline, account.accountId, PHONE, 'CallFailed')
  t.match(failed.data, { failure: 'rate_limited', carrierCode: 20429 })
  t.equal(fake.callRequests().length, 3)
})

for (const [name, fault] of [
  ['500', { kind: 'status', status: 500 }],
  ['503 from a load balancer (HTML)', { kind: 'raw', status: 503, body: '<html>busy</html>' }],
  ['the connection reset after the request was read (the call WAS created)', { kind: 'destroy' }],
] as const) {
  t.test(`${name} → outcome unknown: no retry, no follow-up, no redial`, async (t) => {
    const fake = await fakeTwilio(t)
    const { app, leadline, createAccount } = await dialingApp(t, { fake, attemptTimeoutMs: 100 })
    const { account, token } = await createAccount('Acme', { ...DIALING, followUp: '30s, 30s' })
    fake.failNext(fault)
    await postLead(app, token, { phone: PHONE })
    const unknown = await waitForEvent(leadline, account.accountId, PHONE, 'CallOutcomeUnknown')
    t.match(unknown.data, { reason: /may have been placed/ })
    await leadline.dialer.sweep(0)
    await sleep(300)
    t.equal(fake.callRequests().length, 1, 'asked once')
    t.same(await leadEventTypes(leadline, account.accountId, PHONE), ['LeadReceived', 'CallDecided', 'CallAttemptStarted', 'CallOutcomeUnknown'], 'no retry, no follow-up')
    t.same(leadline.calls.dueFollowUps('9999-12-31T00:00:00.000Z'), [])
  })
}

t.test('a timeout → outcome unknown (the carrier is slower than the adapter waits)', async (t) => {
  const fake = await fakeTwilio(t)
  // The real adapter with a short timeout (its default is 10 s).
  const { app, leadline, createAccount } = await dialingApp(t, {
    carrier: () => createTwilioCarrier({ accountSid: fake.accountSid, authToken: fake.authToken, apiUrl: fake.url, timeoutMs: 400 }),
  })
  const { account, token } = await createAccount('Acme', DIALING)
  fake.failNext({ kind: 'delay', ms: 1500 })
  await postLead(app, token, { phone: PHONE })
  const unknown = await waitForEvent(leadline, account.accountId, PHONE, 'CallOutcomeUnknown')
  t.match(unknown.data, { reason: /no answer from twilio within 400 ms/ })
  await waitFor('the fake to create the call', () => placedCalls(fake).length === 1)
  t.equal(fake.callRequests().length, 1, 'not retried')
  t.pass('the fake did create the call: retrying would have rung the person twice')
})

t.test('a rejection (400, invalid number) is a failure with the carrier code, not retried', async (t) => {
  const fake = await fakeTwilio(t)
  const { app, leadline, createAccount } = await dialingApp(t, { fake })
  const { account, token } = await createAccount('Acme', DIALING)
  fake.failNext({ kind: 'status', status: 400, code: 21211, message: "Invalid 'To' Phone Number" })
  await postLead(app, token, { phone: PHONE })
  const failed = await waitForEvent(leadline, account.accountId, PHONE, 'CallFailed')
  t.match(failed.data, { failure: 'rejected', carrierCode: 21211, message: /21211/ })
  await sleep(100)
  t.equal(fake.callRequests().length, 1)
  t.notOk((await leadEvents(leadline, account.accountId, PHONE)).some((e) => e.type.startsWith('FollowUp')), 'no follow-up after a carrier failure')
})

t.test('Twilio unreachable (connection refused before sending): retried, then failed', async (t) => {
  const url = await freePortUrl()
  const fake = await fakeTwilio(t)
  const { app, leadline, createAccount } = await dialingApp(t, {
    // Twilio said it holds the caller ID when the account was set up; it is unreachable from then on.
    carrier: () => ({ ...createTwilioCarrier({ accountSid: fake.accountSid, authToken: fake.authToken, apiUrl: url }), numberHeld: async () => 'incoming_number' as const }),
  })
  const { account, token } = await createAccount('Acme', DIALING)
  const started = Date.now()
  await postLead(app, token, { phone: PHONE })
  const failed = await waitForEvent(leadline, account.accountId, PHONE, 'CallFailed', 1)
  t.match(failed.data, { failure: 'unreachable' })
  t.ok(Date.now() - started >= 1250, 'after two retries (250 ms, then 1 s)')
})

t.test('checked again as the call goes out: a lead that became do-not-call while waiting its turn is not dialed', async (t) => {
  const fake = await fakeTwilio(t)
  const { app, leadline, createAccount } = await dialingApp(t, { fake })
  // One call a second: the third lead waits about two seconds for its turn.
  const { account, token } = await createAccount('Acme', { ...DIALING, callsPerSecond: 1 })
  for (const phone of ['3125550101', '3125550102', '3125550103']) await postLead(app, token, { phone })
  await fake.waitForCalls(1)
  t.equal((await postLead(app, token, { phone: '3125550103', dnc: 'yes' })).status, 200, 'the sender flags the third do-not-call')
  const failed = await waitForEvent(leadline, account.accountId, '3125550103', 'CallFailed', 1)
  t.match(failed.data, { failure: 'do_not_call', carrierCode: null, message: /not dialed/ })
  await fake.waitForCalls(2)
  await sleep(1200)
  t.same(fake.callRequests().map((r) => r.form.To), ['+13125550101', '+13125550102'], 'the do-not-call lead was never rung')
})
