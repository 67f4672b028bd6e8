/**
 * place_call through the `placeCall` command (what the MCP tool calls), with the REAL Twilio
 * adapter and the fake Twilio server: the same checks and the same dialer as speed to lead; one call
 * per idempotency key; a dry run says what would happen and why, and appends nothing.
 */
import t from 'tap'
import type { Test } from 'tap'
import type { AccountState } from '../../src/domain/account/account.decider.ts'
import { DomainError } from '../../src/domain/shared/decider.ts'
import { placeCall, type PlaceCallInput } from '../../src/commands/place-call.command.ts'
import { CALLER_ID, DIALING, dialingApp, fakeTwilio, leadEventTypes, leadEvents, manualClock, postLead, sleep, waitForEvent } from '../helpers/dialing-app.ts'

/** Pacing is tested elsewhere; here calls follow each other within milliseconds. */
const FAST = { ...DIALING, callsPerSecond: 100 }
const context = { actor: { kind: 'api_key', id: 'key_test' } } as const
const input = (more: Partial<PlaceCallInput> = {}): PlaceCallInput => ({ phone: '(312) 555-0142', name: 'Jane Doe', idempotencyKey: 'k1', dryRun: false, ...more })

async function setup(t: Test, settings: Record<string, unknown> = FAST, clock = manualClock('2026-03-10T15:00:00Z')) {
  const fake = await fakeTwilio(t)
  const built = await dialingApp(t, { fake, clock })
  const { account, token } = await built.createAccount('Acme', settings)
  return { fake, clock, ...built, account, token }
}

async function refused(t: Test, run: Promise<unknown>, code: string): Promise<DomainError | null> {
  try {
    await run
    t.fail(`expected ${code}`)
    return null
  } catch (error) {
    t.ok(error instanceof DomainError, `${code}: a DomainError`)
    t.equal((error as DomainError).code, code)
    return error as DomainError
  }
}

t.test('a real call: placed through the dialer, {status, callId, from, to, carrier}', async (t) => {
  const { fake, leadline, account } = await setup(t)
  const result = await placeCall(leadline, account, input(), context)
  const [request] = fake.callRequests()
  t.match(result, { status: 'placed', callId: request?.sid, from: CALLER_ID, to: '+13125550142', carrier: 'twilio', dryRun: false, leadId: /^ld_/ })
  t.match(request?.form, { From: CALLER_ID, To: '+13125550142', StatusCallback: 'http://leadline.test/api/carrier/twilio/status' })
  t.same(await leadEventTypes(leadline, account.accountId, '3125550142'), ['LeadReceived', 'CallDecided', 'CallAttemptStarted', 'CallPlaced'], 'a person the book had not met becomes a lead')
  const [received] = await leadEvents(leadline, account.accountId, '3125550142')
  t.notOk('list' in (received?.data as object), 'not in Inbound Leads')
  await sleep(300)
  t.equal(fake.callRequests().length, 1, 'speed to lead (on) does not ring the new lead a second time')
  const events = await leadEvents(leadline, account.accountId, '3125550142')
  t.notOk(events.some((e) => e.type === 'SpeedToLeadSkipped' || 'speedToLeadSkipped' in (e.data as object)), 'and does not record a skip for it')
})

t.test('idempotent per key: the same key returns the original call, also when called concurrently', async (t) => {
  const { fake, leadline, account } = await setup(t)
  const results = await Promise.all(Array.from({ length: 10 }, () => placeCall(leadline, account, input(), context)))
  t.equal(new Set(results.map((r) => r.callId)).size, 1, 'one call id')
  t.equal(fake.callRequests().length, 1, 'one call request')
  const again = await placeCall(leadline, account, input(), context)
  t.equal(again.callId, results[0]?.callId, 'later, the same result')
  const other = await placeCall(leadline, account, input({ idempotencyKey: 'k2' }), context)
  t.not(other.callId, again.callId, 'another key, another call')
  t.equal(fake.callRequests().length, 2)
})

t.test('the same key still returns its call after the conditions changed', async (t) => {
  const { fake, clock, leadline, account } = await setup(t, { ...FAST, callingHours: 'mon-fri 09:00-18:00' })
  const first = await placeCall(leadline, account, input(), context)
  clock.set('2026-03-11T03:00:00Z') // 23:00 in New York: a new call would be refused
  const again = await placeCall(leadline, account, input(), context)
  t.equal(again.callId, first.callId)
  await refused(t, placeCall(leadline, account, input({ idempotencyKey: 'k2' }), context), 'outside_calling_hours')
  t.equal(fake.callRequests().length, 1)
})

t.test('a dry run says what would happen and why, and appends nothing', async (t) => {
  const { fake, leadline, account, app, token } = await setup(t, { ...FAST, callingHours: 'mon-fri 13:00-18:00' })
  await postLead(app, token, { phone: '3125550143', dnc: 'yes' })
  // Speed to lead has had its say (no call, on the lead itself) before the head is read.
  t.match((await waitForEvent(leadline, account.accountId, '3125550143', 'LeadReceived')).data, { speedToLeadSkipped: { reason: 'do_not_call' } })
  const head = await leadline.store.headPosition()

  const outside = await placeCall(leadline, account, input({ dryRun: true }), context)
  t.match(outside, { status: 'would_not_call', callId: null, dryRun: true, from: CALLER_ID, to: '+13125550142', carrier: 'twilio', leadId: null })
  t.match(outside.check, { allowed: false, reason: 'outside_calling_hours', nextAllowedAt: '2026-03-10T17:00:00.000Z' })
  const dnc = await placeCall(leadline, account, input({ phone: '3125550143', dryRun: true }), context)
  t.match(dnc, { status: 'would_not_call', leadId: /^ld_/, check: { reason: 'do_not_call' } })
  const allowed = await placeCall(leadline, { ...account, settings: { ...account.settings, callingHours: 'mon-sun 00:00-24:00' } }, input({ dryRun: true }), context)
  t.match(allowed, { status: 'would_call', check: { allowed: true } })
  t.equal(await leadline.store.headPosition(), head, 'nothing appended')
  await sleep(100)
  t.equal(fake.callRequests().length, 0, 'nothing dialed')
})

t.test('refusals: do-not-call, calling hours, no caller id, a bad number; nothing appended, nothing dialed', async (t) => {
  const { fake, leadline, account, app, token } = await setup(t, { ...FAST, callingHours: 'mon-fri 13:00-18:00' })
  await postLead(app, token, { phone: '3125550143', dnc: 'yes' })
  // Speed to lead has had its say (no call, on the lead itself) before the head is read.
  t.match((await waitForEvent(leadline, account.accountId, '3125550143', 'LeadReceived')).data, { speedToLeadSkipped: { reason: 'do_not_call' } })
  const head = await leadline.store.headPosition()
  const hours = await refused(t, placeCall(leadline, account, input(), context), 'outside_calling_hours')
  t.same(hours?.details, { next_allowed_at: '2026-03-10T17:00:00.000Z', daily_limit: 3 })
  const always: AccountState = { ...account, settings: { ...account.settings, callingHours: 'mon-sun 00:00-24:00' } }
  await refused(t, placeCall(leadline, always, input({ phone: '312 555 0143' }), context), 'do_not_call')
  await refused(t, placeCall(leadline, { ...always, settings: { ...always.settings, callerId: null } }, input(), context), 'no_caller_id')
  await refused(t, placeCall(leadline, always, input({ phone: '12' }), context), 'phone_invalid')
  t.equal(await leadline.store.headPosition(), head, 'nothing appended')
  t.equal(fake.callRequests().length, 0)
})

t.test('carrier failures surface as carrier_error / carrier_outcome_unknown', async (t) => {
  const { fake, leadline, account } = await setup(t)
  fake.failNext({ kind: 'status', status: 400, code: 21211 })
  const rejected = await refused(t, placeCall(leadline, account, input(), context), 'carrier_error')
  t.match(rejected?.details, { failure: 'rejected' })
  fake.failNext({ kind: 'status', status: 500 })
  await refused(t, placeCall(leadline, account, input({ idempotencyKey: 'k2' }), context), 'carrier_outcome_unknown')
  // Asking again with the same key never asks the carrier again.
  await refused(t, placeCall(leadline, account, input({ idempotencyKey: 'k2' }), context), 'carrier_outcome_unknown')
  t.equal(fake.callRequests().length, 2)
})
