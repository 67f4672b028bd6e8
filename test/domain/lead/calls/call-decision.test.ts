/**
 * The one call decision (issue #24): every path (speed to lead, follow-up, place_call) shares the
 * daily limit and the destination rules, and one person keeps one number. Histories are made by the
 * decider itself; time comes in as an argument.
 */
import t from 'tap'
import type { Test } from 'tap'
import { DEFAULT_SETTINGS, type AccountSettings } from '../../../../src/domain/account/account-settings.ts'
import { leadDecider, type LeadCommand, type LeadState } from '../../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../../src/domain/lead/lead.events.ts'
import type { LeadFields } from '../../../../src/domain/lead/intake/normalize-lead-input.ts'
import { leadCallTarget } from '../../../../src/domain/lead/calls/calls.decider.ts'
import { mayCall } from '../../../../src/domain/dialing/may-call.ts'
import { DomainError } from '../../../../src/domain/shared/decider.ts'

const NOW = new Date('2026-03-10T15:00:00Z')
const CALLER_ID = '+13125550100'
const PHONE = '+13125550142'
const ON: AccountSettings = { ...DEFAULT_SETTINGS, speedToLead: true, callerId: CALLER_ID, leadTimeGuard: false, callingHours: 'mon-sun 00:00-24:00' }
const MIN = 60_000
const HOUR = 60 * MIN
const plus = (date: Date, ms: number) => new Date(date.getTime() + ms)

function fields(phone = PHONE, extra: Partial<LeadFields> = {}): LeadFields {
  return { phone, phoneLast10: phone.replace(/\D/g, '').slice(-10), phoneRaw: phone, fullName: 'Jane Doe', industryFields: {}, extraFields: [], ...extra }
}

function stateOf(events: readonly LeadEvent[]): LeadState {
  return events.reduce((s, e) => leadDecider.evolve(s, e), leadDecider.initialState())
}

function play(steps: ReadonlyArray<readonly [Date, LeadCommand]>, start: readonly LeadEvent[] = []): LeadEvent[] {
  const events = [...start]
  for (const [when, command] of steps) events.push(...leadDecider.decide(command, stateOf(events), when))
  return events
}

const receive = (phone = PHONE, settings?: AccountSettings): LeadCommand =>
  ({ type: 'ReceiveLead', accountId: 'acc_1', newLeadId: 'ld_1', fields: fields(phone), ...(settings ? { speedToLead: { settings, decisionId: 'dec_stl' } } : {}) }) as LeadCommand
const placeCall = (key: string, settings: AccountSettings = ON, to?: string): LeadCommand =>
  ({ type: 'DecidePlaceCall', settings, decisionId: `dec_${key}`, idempotencyKey: key, ...(to ? { to, toRaw: to } : {}) }) as LeadCommand

function refusal(t: Test, run: () => unknown): DomainError | null {
  try {
    run()
    t.fail('expected a refusal')
    return null
  } catch (error) {
    t.ok(error instanceof DomainError, 'a DomainError')
    return error as DomainError
  }
}

t.test('place_call: at most 3 calls to one person in 24 hours; the 4th is refused with daily_limit and next_allowed_at', async (t) => {
  let events = play([[NOW, receive()]])
  for (const [i, key] of ['a', 'b', 'c'].entries()) events = play([[plus(NOW, i * MIN), placeCall(key)]], events)
  t.equal(events.filter((e) => e.type === 'CallDecided').length, 3)
  const error = refusal(t, () => leadDecider.decide(placeCall('d'), stateOf(events), plus(NOW, 3 * MIN)))
  t.equal(error?.code, 'daily_limit')
  // The first call falls out of the rolling 24 hours a day (and a second) after it was decided.
  t.same(error?.details, { next_allowed_at: plus(NOW, 24 * HOUR + 1000).toISOString(), daily_limit: 3 })
  // The dry run's answer is the same decision.
  t.match(mayCall(ON, leadCallTarget(stateOf(events), 'place_call'), plus(NOW, 3 * MIN)), { allowed: false, reason: 'daily_limit', nextAllowedAt: plus(NOW, 24 * HOUR + 1000).toISOString(), dailyLimit: 3 })
  t.match(mayCall(ON, leadCallTarget(stateOf(events), 'place_call'), plus(NOW, 24 * HOUR + 1000)), { allowed: true, dailyLimit: 3 }, 'a day later a call fits again')
  // The account's own limit (`max N per 24h`) is the one applied.
  const four = { ...ON, followUp: '10m, 1h; max 4 per 24h' }
  t.match(leadDecider.decide(placeCall('d', four), stateOf(events), plus(NOW, 3 * MIN)), [{ type: 'CallDecided' }])
})

t.test('the next allowed time of a daily_limit refusal also falls inside calling hours', async (t) => {
  const hours = { ...ON, callingHours: 'mon-fri 09:00-18:00' } // New York; NOW is 11:00 there
  let events = play([[NOW, receive()]])
  for (const key of ['a', 'b', 'c']) events = play([[NOW, placeCall(key, hours)]], events)
  // Released at 11:00:01 on Wednesday, inside the hours.
  t.match(mayCall(hours, leadCallTarget(stateOf(events), 'place_call'), plus(NOW, HOUR)), { reason: 'daily_limit', nextAllowedAt: plus(NOW, 24 * HOUR + 1000).toISOString() })
  const friday = new Date('2026-03-13T21:00:00Z') // Friday 17:00 in New York
  let late = play([[friday, receive()]])
  for (const key of ['a', 'b', 'c']) late = play([[friday, placeCall(key, hours)]], late)
  // Released Saturday 17:00:01, when the hours are closed: next is Monday 09:00.
  t.match(mayCall(hours, leadCallTarget(stateOf(late), 'place_call'), plus(friday, 10 * MIN)), { reason: 'daily_limit', nextAllowedAt: '2026-03-16T13:00:00.000Z' })
})

t.test('speed to lead, follow-up and place_call share the one cap', async (t) => {
  // Speed to lead calls; it rings out; the follow-up is due in 10 minutes.
  let events = play([
    [NOW, receive(PHONE, ON)],
    [NOW, { type: 'StartCallAttempt', decisionId: 'dec_stl', node: 'n1' }],
    [NOW, { type: 'RecordCallPlaced', decisionId: 'dec_stl', callId: 'CA1', carrier: 'twilio' }],
    [NOW, { type: 'RecordCallStatus', settings: ON, update: { callId: 'CA1', status: 'no-answer', timestamp: '', carrier: 'twilio' } }],
  ])
  t.match(stateOf(events).dialing.pendingFollowUp, { attempt: 2 })
  // Two place_calls in the meantime: three calls in all.
  events = play([[plus(NOW, MIN), placeCall('a')], [plus(NOW, 2 * MIN), placeCall('b')]], events)
  const pending = stateOf(events).dialing.pendingFollowUp
  t.ok(pending, 'the follow-up is still pending')
  // The follow-up falls due: it is the fourth, so it waits for the first to be a day old.
  const claim = leadDecider.decide({ type: 'ClaimFollowUp', settings: ON, attempt: pending?.attempt ?? 0, decisionId: 'dec_fu' }, stateOf(events), plus(NOW, 10 * MIN))
  t.match(claim, [{ type: 'FollowUpRescheduled', data: { reason: 'daily_limit', dueAt: plus(NOW, 24 * HOUR + 1000).toISOString() } }])
  // And a third place_call is refused likewise.
  t.equal(refusal(t, () => leadDecider.decide(placeCall('c'), stateOf(events), plus(NOW, 10 * MIN)))?.code, 'daily_limit')
})

t.test('destinations: premium rate, satellite and other countries are skipped by speed to lead and refused by place_call', async (t) => {
  const cases: Array<[string, string, string]> = [
    ['+979123456789', 'number_type_not_allowed', 'international premium rate (+979)'],
    ['+19002345678', 'number_type_not_allowed', 'US premium rate (+1 900)'],
    ['+8821612345678', 'number_type_not_allowed', 'international networks, satellite (+882)'],
    ['+252612345678', 'country_not_allowed', 'Somalia (+252), a mobile number'],
    ['+18765551234', 'country_not_allowed', 'Jamaica (+1 876): +1, but not the US'],
    ['+18002345678', 'number_type_not_allowed', 'toll free'],
    ['+131255501422', 'phone_not_valid', 'a number that is not valid'],
  ]
  for (const [phone, reason, label] of cases) {
    const [received, ...rest] = leadDecider.decide(receive(phone, ON), stateOf([]), NOW)
    t.equal(rest.length, 0, `${label}: no call decided`)
    t.match((received as Extract<LeadEvent, { type: 'LeadReceived' }>).data.speedToLeadSkipped, { reason, nextAllowedAt: null }, `${label}: skipped with ${reason}`)
    const lead = play([[NOW, receive(phone)]])
    t.equal(refusal(t, () => leadDecider.decide(placeCall('k'), stateOf(lead), NOW))?.code, reason, `${label}: place_call refused with ${reason}`)
  }
  // The account's own country is allowed by default, and its list can be widened for every call.
  const canada = '+14165550123'
  t.match(leadDecider.decide(receive(canada, ON), stateOf([]), NOW)[0], { data: { speedToLeadSkipped: { reason: 'country_not_allowed' } } })
  t.match(leadDecider.decide(receive(canada, { ...ON, allowedCountries: ['US', 'CA'] }), stateOf([]), NOW), [{ type: 'LeadReceived' }, { type: 'CallDecided' }])
})

t.test('place_call may ring the further countries the account widens it to; automatic calls may not', async (t) => {
  const widened: AccountSettings = { ...ON, placeCallCountries: ['SO'] }
  const somalia = '+252612345678'
  t.match(leadDecider.decide(receive(somalia, widened), stateOf([]), NOW)[0], { data: { speedToLeadSkipped: { reason: 'country_not_allowed' } } }, 'speed to lead still skips')
  const lead = play([[NOW, receive(somalia)]])
  t.match(leadDecider.decide(placeCall('k', widened), stateOf(lead), NOW), [{ type: 'CallDecided', data: { to: somalia } }], 'place_call rings it')
  // Premium rate and non-geographic numbers are never rung, whatever the countries.
  const premium = play([[NOW, receive('+19002345678')]])
  t.equal(refusal(t, () => leadDecider.decide(placeCall('k', { ...widened, placeCallCountries: ['US', 'SO'] }), stateOf(premium), NOW))?.code, 'number_type_not_allowed')
})

t.test('a follow-up to a number no longer allowed stops, with the reason', async (t) => {
  let events = play([
    [NOW, receive(PHONE, ON)],
    [NOW, { type: 'StartCallAttempt', decisionId: 'dec_stl', node: 'n1' }],
    [NOW, { type: 'RecordCallPlaced', decisionId: 'dec_stl', callId: 'CA1', carrier: 'twilio' }],
    [NOW, { type: 'RecordCallStatus', settings: ON, update: { callId: 'CA1', status: 'no-answer', timestamp: '', carrier: 'twilio' } }],
  ])
  const narrowed = { ...ON, allowedCountries: ['CA'] }
  events = play([[plus(NOW, 10 * MIN), { type: 'ClaimFollowUp', settings: narrowed, attempt: 2, decisionId: 'dec_fu' }]], events)
  t.match(events.at(-1), { type: 'FollowUpStopped', data: { reason: 'country_not_allowed' } })
})

t.test('a decided call is checked again as it goes out, against its own number', async (t) => {
  const events = play([[NOW, receive()], [NOW, placeCall('a')]])
  const out = leadDecider.decide({ type: 'StartCallAttempt', decisionId: 'dec_a', node: 'n1', settings: { ...ON, allowedCountries: ['CA'] } }, stateOf(events), NOW)
  t.match(out, [{ type: 'CallFailed', data: { failure: 'country_not_allowed' } }], 'not dialed')
  const fine = leadDecider.decide({ type: 'StartCallAttempt', decisionId: 'dec_a', node: 'n1', settings: ON }, stateOf(events), NOW)
  t.match(fine, [{ type: 'CallAttemptStarted' }], 'the daily limit counted it when decided, not again')
})

t.test('one person, one number: a submission with another country code is another person, recorded as a conflict and nothing else', async (t) => {
  const received = play([[NOW, receive(PHONE)]])
  const foreign = '+443125550142' // same last ten digits, +44
  const events = leadDecider.decide({ type: 'ReceiveLead', accountId: 'acc_1', newLeadId: 'ld_2', fields: fields(foreign, { phoneRaw: '+44 312 555 0142' }) }, stateOf(received), NOW)
  t.match(events, [
    { type: 'LeadPhoneConflict', data: { storedPhone: PHONE, receivedPhone: foreign, receivedRaw: '+44 312 555 0142', source: 'webhook', kept: true } },
  ])
  t.equal(events.length, 1, 'no LeadUpdated: nothing of the lead changes')
  t.equal(stateOf([...received, ...events]).fields?.phone, PHONE, 'the stored number is kept')
  // The same number again: no conflict.
  t.match(leadDecider.decide(receive(PHONE), stateOf(received), NOW), [{ type: 'LeadUpdated' }])
  t.equal(leadDecider.decide(receive(PHONE), stateOf(received), NOW).length, 1)
})

t.test('a valid number replaces a stored one that was not valid, and the change is recorded', async (t) => {
  const invalid = '+443125550142' // no GB number
  const received = play([[NOW, receive(invalid)]])
  const events = leadDecider.decide(receive(PHONE), stateOf(received), NOW)
  t.match(events, [
    { type: 'LeadUpdated', data: { changes: { phone: PHONE }, warnings: [{ code: 'phone_conflict' }] } },
    { type: 'LeadPhoneConflict', data: { storedPhone: invalid, receivedPhone: PHONE, kept: false } },
  ])
  t.equal(stateOf([...received, ...events]).fields?.phone, PHONE)
})

t.test('place_call decides a call to exactly the number asked, and records a conflict with the number on record', async (t) => {
  const received = play([[NOW, receive(PHONE)]])
  const asked = '+13125550142'
  t.match(leadDecider.decide(placeCall('a', ON, asked), stateOf(received), NOW), [{ type: 'CallDecided', data: { to: asked } }])
  t.equal(leadDecider.decide(placeCall('a', ON, asked), stateOf(received), NOW).length, 1, 'the same number: no conflict')
  const other = '+523125550142' // Mexico, same last ten digits
  const widened = { ...ON, placeCallCountries: ['MX'] }
  const events = leadDecider.decide(placeCall('b', widened, other), stateOf(received), NOW)
  t.match(events, [
    { type: 'LeadPhoneConflict', data: { storedPhone: PHONE, receivedPhone: other, source: 'place_call', kept: true } },
    { type: 'CallDecided', data: { to: other, purpose: 'place_call' } },
  ])
  t.equal(stateOf([...received, ...events]).fields?.phone, PHONE, 'the number on record is kept')
  t.equal(refusal(t, () => leadDecider.decide(placeCall('c', ON, other), stateOf(received), NOW))?.code, 'country_not_allowed', 'the asked number is the one checked')
})
