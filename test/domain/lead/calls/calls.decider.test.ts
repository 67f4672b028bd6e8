/**
 * Call decisions on the lead aggregate, as given/when/then: speed to lead (once ever, or the reason it
 * did not call), place_call (idempotent per key, refusals with codes), claims (at most once per
 * decision), carrier outcomes (forward only), follow-up scheduling and claiming per the account's policy.
 * Histories are built by running the decider itself, so they are histories the code can produce.
 */
import t from 'tap'
import type { Test } from 'tap'
import { DEFAULT_SETTINGS, type AccountSettings } from '../../../../src/domain/account/account-settings.ts'
import { leadDecider, type LeadCommand, type LeadState } from '../../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../../src/domain/lead/lead.events.ts'
import type { LeadFields } from '../../../../src/domain/lead/intake/normalize-lead-input.ts'
import type { CallStatusUpdate } from '../../../../src/domain/lead/calls/call-status.ts'
import { CALL_SUMMARIES, speedToLeadSkipLine, type SpeedToLeadSkip } from '../../../../src/domain/lead/calls/calls.events.ts'
import { DomainError } from '../../../../src/domain/shared/decider.ts'
import { deciderSpec } from '../../../helpers/decider-spec.ts'

/** Tuesday 10 March 2026, 11:00 in New York (EDT since 8 March). */
const NOW = new Date('2026-03-10T15:00:00Z')
const CALLER_ID = '+13125550100'
const PHONE = '+13125550142'
const ON: AccountSettings = { ...DEFAULT_SETTINGS, speedToLead: true, callerId: CALLER_ID, leadTimeGuard: false }

const at = (iso: string) => new Date(iso)
const plus = (date: Date, ms: number) => new Date(date.getTime() + ms)
const MIN = 60_000
const HOUR = 60 * MIN

function fields(extra: Partial<LeadFields> = {}): LeadFields {
  return { phone: PHONE, phoneLast10: PHONE.slice(-10), phoneRaw: '312-555-0142', fullName: 'Jane Doe', industryFields: {}, extraFields: [], ...extra }
}

/** A history made by the decider: each step is a command decided at its time, its events appended. */
function play(steps: ReadonlyArray<readonly [Date, LeadCommand]>, start: readonly LeadEvent[] = []): LeadEvent[] {
  const events = [...start]
  for (const [when, command] of steps) {
    const state = events.reduce((s, e) => leadDecider.evolve(s, e), leadDecider.initialState())
    events.push(...leadDecider.decide(command, state, when))
  }
  return events
}

function stateOf(events: readonly LeadEvent[]): LeadState {
  return events.reduce((s, e) => leadDecider.evolve(s, e), leadDecider.initialState())
}

const receive = (extra: Partial<LeadFields> = {}): LeadCommand => ({ type: 'ReceiveLead', accountId: 'acc_1', newLeadId: 'ld_1', fields: fields(extra) })
/** A new lead as the webhook receives it: speed to lead is decided in the same append. */
const withSettings = (settings: AccountSettings, decisionId = 'dec_in', extra: Partial<LeadFields> = {}): LeadCommand =>
  ({ ...receive(extra), speedToLead: { settings, decisionId } }) as LeadCommand
/** Speed to lead's answer on a new lead's LeadReceived, when it did not call. */
const skipOf = (events: readonly LeadEvent[]) => (events[0] as Extract<LeadEvent, { type: 'LeadReceived' }>).data.speedToLeadSkipped
const status = (callId: string, s: CallStatusUpdate['status'], more: Partial<CallStatusUpdate> = {}): CallStatusUpdate => ({
  callId, status: s, timestamp: '', carrier: 'twilio', ...more,
})
const recordStatus = (update: CallStatusUpdate, settings: AccountSettings = ON): LeadCommand => ({ type: 'RecordCallStatus', settings, update })

/** Received at `when`, speed to lead decided, claimed and placed as call `callId`. */
function placedLead(when: Date = NOW, settings: AccountSettings = ON, callId = 'CA1'): LeadEvent[] {
  return play([
    [when, withSettings(settings, 'dec_stl')],
    [when, { type: 'StartCallAttempt', decisionId: 'dec_stl', node: 'n1' }],
    [when, { type: 'RecordCallPlaced', decisionId: 'dec_stl', callId, carrier: 'twilio' }],
  ])
}

/** The call `callId` (decision `decisionId`) rings out unanswered at `when`. */
function noAnswer(events: LeadEvent[], callId: string, when: Date, settings: AccountSettings = ON): LeadEvent[] {
  return play([[when, recordStatus(status(callId, 'no-answer'), settings)]], events)
}

/** Claims the pending follow-up at `when` and places it as `callId`. */
function followUpPlaced(events: LeadEvent[], when: Date, decisionId: string, callId: string, settings: AccountSettings = ON): LeadEvent[] {
  const pending = stateOf(events).dialing.pendingFollowUp
  if (!pending) throw new Error('no follow-up pending')
  return play(
    [
      [when, { type: 'ClaimFollowUp', settings, attempt: pending.attempt, decisionId }],
      [when, { type: 'StartCallAttempt', decisionId, node: 'n1' }],
      [when, { type: 'RecordCallPlaced', decisionId, callId, carrier: 'twilio' }],
    ],
    events,
  )
}

/** The events `command` produces at `now` after `given` (for assertions that need a message). */
function decideAt(now: Date, given: readonly LeadEvent[], command: LeadCommand): LeadEvent[] {
  return leadDecider.decide(command, stateOf(given), now)
}

function types(events: readonly LeadEvent[]): string[] {
  return events.map((e) => e.type)
}

function thrown(t: Test, run: () => unknown, code: string, details?: Record<string, unknown>): void {
  try {
    run()
    t.fail(`expected ${code}`)
  } catch (error) {
    t.ok(error instanceof DomainError, 'a DomainError')
    t.equal((error as DomainError).code, code)
    if (details) t.same((error as DomainError).details, details)
  }
}

t.test('speed to lead', async (t) => {
  t.test('a new lead inside calling hours: one decision to call at once, from the caller id to the lead', async (t) => {
    deciderSpec(leadDecider, NOW)([]).when(withSettings(ON, 'dec_1')).then(t, (events) => {
      t.same(events.slice(1), [
        {
          type: 'CallDecided',
          data: { leadId: 'ld_1', decisionId: 'dec_1', purpose: 'speed_to_lead', attempt: 1, from: CALLER_ID, to: PHONE, decidedAt: NOW.toISOString(), idempotencyKey: null },
        },
      ])
    })
  })

  t.test('decided with the lead: a new lead received with the account settings carries its decision in the same append', async (t) => {
    const received = (events: readonly LeadEvent[]) => (events[0] as Extract<LeadEvent, { type: 'LeadReceived' }>).data
    const decided = leadDecider.decide(withSettings(ON), leadDecider.initialState(), NOW)
    t.same(types(decided), ['LeadReceived', 'CallDecided'])
    t.same(received(decided).list, { listId: 'inbound-leads', listName: 'Inbound Leads' })
    t.notOk('speedToLeadSkipped' in received(decided), 'a call follows: no reason for not calling')
    t.match(decided[1], { data: { decisionId: 'dec_in', purpose: 'speed_to_lead', from: CALLER_ID, to: PHONE } })
    t.match(stateOf(decided), { lists: ['Inbound Leads'], dialing: { speedToLead: 'decided', order: ['dec_in'] } })
    // No call: the lead, its list and the reason are one event.
    const off = leadDecider.decide(withSettings({ ...ON, speedToLead: false }), leadDecider.initialState(), NOW)
    t.same(types(off), ['LeadReceived'])
    t.same(received(off).list, { listId: 'inbound-leads', listName: 'Inbound Leads' })
    t.same(received(off).speedToLeadSkipped, { reason: 'speed_to_lead_off', message: 'speed to lead is off for this account', nextAllowedAt: null })
    t.match(stateOf(off), { lists: ['Inbound Leads'], dialing: { speedToLead: 'skipped', order: [] } })
    const dnc = leadDecider.decide({ ...withSettings(ON), fields: fields({ doNotCall: true }) } as LeadCommand, leadDecider.initialState(), NOW)
    t.same(types(dnc), ['LeadReceived'])
    t.match(received(dnc).speedToLeadSkipped, { reason: 'do_not_call', nextAllowedAt: null })
    const later = leadDecider.decide(withSettings({ ...ON, callingHours: 'mon-fri 13:00-17:00' }), leadDecider.initialState(), NOW)
    t.match(received(later).speedToLeadSkipped, { reason: 'outside_calling_hours', nextAllowedAt: '2026-03-10T17:00:00.000Z' })
    // Skipped with the lead is skipped for good, as a SpeedToLeadSkipped event was.
    t.same(types(decideAt(plus(NOW, 3 * HOUR), off, withSettings(ON, 'dec_2'))), ['LeadUpdated'], 'submitted again with speed to lead on: no call')
    // A person first met by place_call is not an inbound lead: no speed to lead, even with settings.
    const unlisted = leadDecider.decide({ ...withSettings(ON), list: false } as LeadCommand, leadDecider.initialState(), NOW)
    t.same(types(unlisted), ['LeadReceived'])
    t.notOk('list' in received(unlisted) || 'speedToLeadSkipped' in received(unlisted), 'no list, no speed to lead answer')
    t.match(stateOf(unlisted), { lists: [], dialing: { speedToLead: 'pending' } })
    // A later submission is an update: never a second decision.
    const again = leadDecider.decide(withSettings(ON), stateOf(decided), plus(NOW, HOUR))
    t.same(types(again), ['LeadUpdated'])
  })

  t.test('decided once ever: a replay, a second node or a later submission decides nothing', async (t) => {
    const decided = play([[NOW, withSettings(ON, 'dec_1')]])
    const later = plus(NOW, HOUR)
    t.same(types(decideAt(later, decided, withSettings(ON, 'dec_2'))), ['LeadUpdated'], 'a second node receiving it again: no second call')
    const updated = play([[later, receive({ email: 'jane@example.com' })]], decided)
    t.same(types(updated.slice(decided.length)), ['LeadUpdated'], 'a repeat submission is an update, not a new lead')
    t.same(types(decideAt(later, updated, withSettings(ON, 'dec_3'))), ['LeadUpdated'])
    // Skipped once is skipped for good: the lead does not get a sequence later either.
    const skipped = play([[NOW, withSettings({ ...ON, speedToLead: false }, 'dec_1')]])
    t.same(types(decideAt(later, skipped, withSettings(ON, 'dec_2'))), ['LeadUpdated'])
  })

  t.test('no call: the reason goes on the lead history, with the next allowed time', async (t) => {
    const skipped = (settings: AccountSettings, extra: Partial<LeadFields> = {}, now = NOW) => {
      const events = leadDecider.decide(withSettings(settings, 'dec_1', extra), leadDecider.initialState(), now)
      t.same(types(events), ['LeadReceived'], 'the lead and the reason are one event')
      return skipOf(events)
    }
    t.match(skipped({ ...ON, speedToLead: false }), { reason: 'speed_to_lead_off', nextAllowedAt: null, message: /speed to lead is off/ })
    t.match(skipped(ON, { doNotCall: true }), { reason: 'do_not_call', nextAllowedAt: null })
    t.match(skipped({ ...ON, callerId: null }), { reason: 'no_caller_id', nextAllowedAt: null })
    t.match(skipped({ ...ON, callingHours: 'none' }), { reason: 'no_calling_hours', nextAllowedAt: null })
    // 11:00 on a Tuesday in New York; the account calls 13:00-17:00 → today at 13:00 EDT.
    t.match(skipped({ ...ON, callingHours: 'mon-fri 13:00-17:00' }), { reason: 'outside_calling_hours', nextAllowedAt: '2026-03-10T17:00:00.000Z' })
    // Weekend-only hours, reckoned in the account's zone (Tokyo: it is already Wednesday 00:00 there).
    t.match(skipped({ ...ON, timeZone: 'Asia/Tokyo', callingHours: 'sat-sun 10:00-12:00' }), { reason: 'outside_calling_hours', nextAllowedAt: '2026-03-14T01:00:00.000Z' })
    // Lead-time guard: the account calls around the clock, the lead is in California (415) at 08:00 ET = 05:00 PT.
    t.match(
      skipped({ ...ON, callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: true }, { phone: '+14155550142', phoneLast10: '4155550142' }, at('2026-03-10T12:00:00Z')),
      { reason: 'outside_lead_hours', nextAllowedAt: '2026-03-10T15:00:00.000Z' },
    )
    // A Florida lead (by its state field; a Chicago number) at 20:30 Eastern: refused by Florida's rule, named (#27).
    const florida = skipped({ ...ON, callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: true }, { state: 'FL' }, at('2026-03-11T00:30:00Z'))
    t.match(florida, { reason: 'outside_lead_hours', rule: 'FL 501.616', nextAllowedAt: '2026-03-11T13:00:00.000Z' })
    t.match(speedToLeadSkipLine(florida as SpeedToLeadSkip), /\(outside_lead_hours, rule FL 501\.616\)/)
  })

  t.test('a person first met by place_call is not an inbound lead: speed to lead leaves it alone', async (t) => {
    const metByPlaceCall = play([[NOW, { ...receive(), list: false } as LeadCommand]])
    t.same(types(metByPlaceCall), ['LeadReceived'])
    t.notOk('list' in (metByPlaceCall[0] as LeadEvent).data, 'not in Inbound Leads')
    // When the webhook later sends the same person, the list it missed is its own event after the update.
    deciderSpec(leadDecider, plus(NOW, HOUR))(metByPlaceCall).when(withSettings(ON)).then(t, (events, after) => {
      t.same(types(events), ['LeadUpdated', 'LeadAddedToList'])
      t.same(events[1], { type: 'LeadAddedToList', data: { leadId: 'ld_1', listId: 'inbound-leads', listName: 'Inbound Leads' } })
      t.match(after, { lists: ['Inbound Leads'], dialing: { speedToLead: 'pending' } })
    })
  })

  // Logs written before a new lead was one event hold it as three; they must rebuild the same lead.
  t.test('an older log, received, listed and skipped (or decided) apart, folds to the same lead as one event now', async (t) => {
    const bare: LeadEvent = { type: 'LeadReceived', data: { leadId: 'ld_1', accountId: 'acc_1', fields: fields(), receivedAt: NOW.toISOString() } }
    const listed: LeadEvent = { type: 'LeadAddedToList', data: { leadId: 'ld_1', listId: 'inbound-leads', listName: 'Inbound Leads' } }
    const skippedNow = leadDecider.decide(withSettings({ ...ON, speedToLead: false }), leadDecider.initialState(), NOW)
    const skippedThen: LeadEvent[] = [
      bare,
      listed,
      { type: 'SpeedToLeadSkipped', data: { leadId: 'ld_1', reason: 'speed_to_lead_off', message: 'speed to lead is off for this account', nextAllowedAt: null, skippedAt: NOW.toISOString() } },
    ]
    t.same(types(skippedNow), ['LeadReceived'])
    t.same(stateOf(skippedThen), stateOf(skippedNow))
    t.match(stateOf(skippedThen), { exists: true, lists: ['Inbound Leads'], dialing: { speedToLead: 'skipped', order: [] } })
    const calledNow = leadDecider.decide(withSettings(ON), leadDecider.initialState(), NOW)
    t.same(types(calledNow), ['LeadReceived', 'CallDecided'])
    const calledThen: LeadEvent[] = [bare, listed, calledNow[1] as LeadEvent]
    t.same(stateOf(calledThen), stateOf(calledNow))
    t.match(stateOf(calledThen), { lists: ['Inbound Leads'], dialing: { speedToLead: 'decided', order: ['dec_in'] } })
    // And either way speed to lead is spent.
    for (const history of [skippedThen, calledThen]) {
      t.same(types(decideAt(plus(NOW, HOUR), history, withSettings(ON, 'dec_2'))), ['LeadUpdated'], 'received again: no call')
    }
  })
})

t.test('place_call', async (t) => {
  const received = play([[NOW, receive()]])
  const spec = deciderSpec(leadDecider, NOW)

  t.test('decides a call tied to the idempotency key; the same key again decides nothing', async (t) => {
    spec(received).when({ type: 'DecidePlaceCall', settings: ON, decisionId: 'dec_1', idempotencyKey: 'k1' }).then(t, [
      { type: 'CallDecided', data: { leadId: 'ld_1', decisionId: 'dec_1', purpose: 'place_call', attempt: 1, from: CALLER_ID, to: PHONE, decidedAt: NOW.toISOString(), idempotencyKey: 'k1' } },
    ])
    const once = play([[NOW, { type: 'DecidePlaceCall', settings: ON, decisionId: 'dec_1', idempotencyKey: 'k1' }]], received)
    spec(once).when({ type: 'DecidePlaceCall', settings: ON, decisionId: 'dec_2', idempotencyKey: 'k1' }).then(t, [])
    // Even after the call ended, and even when calling would now be refused: the key is spent.
    const ended = play([
      [NOW, { type: 'StartCallAttempt', decisionId: 'dec_1', node: 'n1' }],
      [NOW, { type: 'RecordCallPlaced', decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio' }],
      [NOW, recordStatus(status('CA1', 'completed', { durationSeconds: 30 }))],
      [NOW, { type: 'MarkDoNotCall' }],
    ], once)
    spec(ended).when({ type: 'DecidePlaceCall', settings: ON, decisionId: 'dec_3', idempotencyKey: 'k1' }).then(t, [])
    spec(once).when({ type: 'DecidePlaceCall', settings: ON, decisionId: 'dec_2', idempotencyKey: 'k2' }).then(t, (events) => {
      t.match(events, [{ type: 'CallDecided', data: { decisionId: 'dec_2', attempt: 2, idempotencyKey: 'k2' } }], 'another key is another call')
    })
  })

  t.test('refusals carry a stable code and the next allowed time', async (t) => {
    const refuse = (settings: AccountSettings, given: readonly LeadEvent[] = received) => () =>
      leadDecider.decide({ type: 'DecidePlaceCall', settings, decisionId: 'dec_1', idempotencyKey: 'k1' }, stateOf(given), NOW)
    thrown(t, refuse(ON, play([[NOW, receive({ doNotCall: true })]])), 'do_not_call', { next_allowed_at: null, daily_limit: 3 })
    thrown(t, refuse({ ...ON, callerId: null }), 'no_caller_id', { next_allowed_at: null, daily_limit: 3 })
    thrown(t, refuse({ ...ON, callingHours: 'mon-fri 13:00-17:00' }), 'outside_calling_hours', { next_allowed_at: '2026-03-10T17:00:00.000Z', daily_limit: 3 })
    thrown(t, refuse({ ...ON, callingHours: 'none' }), 'no_calling_hours', { next_allowed_at: null, daily_limit: 3 })
    thrown(t, refuse(ON, []), 'lead_not_found')
  })
})

t.test('claims and carrier results: at most one attempt per decision', async (t) => {
  const decided = play([[NOW, withSettings(ON, 'dec_1')]])
  const spec = deciderSpec(leadDecider, NOW)

  t.test('a decision is claimed once, before the carrier is asked', async (t) => {
    spec(decided).when({ type: 'StartCallAttempt', decisionId: 'dec_1', node: 'node-a' }).then(t, [
      { type: 'CallAttemptStarted', data: { decisionId: 'dec_1', node: 'node-a', startedAt: NOW.toISOString() } },
    ])
    const started = play([[NOW, { type: 'StartCallAttempt', decisionId: 'dec_1', node: 'node-a' }]], decided)
    spec(started).when({ type: 'StartCallAttempt', decisionId: 'dec_1', node: 'node-b' }).then(t, [])
    spec(decided).when({ type: 'StartCallAttempt', decisionId: 'dec_nope', node: 'node-a' }).thenThrows(t, 'call_not_found')
  })

  t.test('checked again as the call goes out: a lead that became do-not-call, or hours that closed, fail the decision undialed', async (t) => {
    spec(decided).when({ type: 'StartCallAttempt', decisionId: 'dec_1', node: 'n1', settings: ON }).then(t, (events) => {
      t.same(types(events), ['CallAttemptStarted'], 'still allowed: claimed')
    })
    const dnc = play([[NOW, { type: 'MarkDoNotCall' }]], decided)
    spec(dnc).when({ type: 'StartCallAttempt', decisionId: 'dec_1', node: 'n1', settings: ON }).then(t, (events, after) => {
      t.match(events, [{ type: 'CallFailed', data: { decisionId: 'dec_1', failure: 'do_not_call', carrierCode: null, message: /^not dialed: / } }])
      t.equal(after.dialing.calls.dec_1?.stage, 'failed')
      t.equal(after.dialing.pendingFollowUp, null, 'and no follow-up')
    })
    const late = plus(NOW, 8 * HOUR) // 19:00 in New York
    deciderSpec(leadDecider, late)(decided).when({ type: 'StartCallAttempt', decisionId: 'dec_1', node: 'n1', settings: { ...ON, callingHours: 'mon-fri 09:00-18:00' } }).then(t, (events) => {
      t.match(events, [{ type: 'CallFailed', data: { failure: 'outside_calling_hours', message: /not dialed: .*next allowed/i } }])
    })
    const failed = play([[NOW, { type: 'StartCallAttempt', decisionId: 'dec_1', node: 'n1', settings: ON }]], dnc)
    t.same(decideAt(NOW, failed, { type: 'StartCallAttempt', decisionId: 'dec_1', node: 'n2', settings: ON }), [], 'a failed decision is never claimed later')
  })

  t.test('an outcome is recorded only for a started attempt, and only once', async (t) => {
    const started = play([[NOW, { type: 'StartCallAttempt', decisionId: 'dec_1', node: 'n1' }]], decided)
    spec(decided).when({ type: 'RecordCallPlaced', decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio' }).then(t, [])
    spec(started).when({ type: 'RecordCallPlaced', decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio' }).then(t, [
      { type: 'CallPlaced', data: { decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio', placedAt: NOW.toISOString() } },
    ])
    spec(started).when({ type: 'RecordCallPlaced', decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio', machineDetection: true }).then(t, [
      { type: 'CallPlaced', data: { decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio', placedAt: NOW.toISOString(), machineDetection: true } },
    ])
    spec(started).when({ type: 'RecordCallFailed', decisionId: 'dec_1', failure: 'rejected', message: 'invalid number', carrierCode: 21211 }).then(t, [
      { type: 'CallFailed', data: { decisionId: 'dec_1', failure: 'rejected', message: 'invalid number', carrierCode: 21211, failedAt: NOW.toISOString() } },
    ])
    const placed = play([[NOW, { type: 'RecordCallPlaced', decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio' }]], started)
    spec(placed).when({ type: 'RecordCallPlaced', decisionId: 'dec_1', callId: 'CA2', carrier: 'twilio' }).then(t, [])
    t.same(decideAt(NOW, placed, { type: 'RecordOutcomeUnknown', decisionId: 'dec_1', reason: 'sweep' }), [], 'a placed call is never made unknown')
  })

  t.test('after a crash, an attempt without an outcome becomes unknown and is never redialed', async (t) => {
    const started = play([[NOW, { type: 'StartCallAttempt', decisionId: 'dec_1', node: 'n1' }]], decided)
    spec(started).when({ type: 'RecordOutcomeUnknown', decisionId: 'dec_1', reason: 'process stopped' }).then(t, [
      { type: 'CallOutcomeUnknown', data: { decisionId: 'dec_1', reason: 'process stopped', at: NOW.toISOString() } },
    ])
    const unknown = play([[NOW, { type: 'RecordOutcomeUnknown', decisionId: 'dec_1', reason: 'process stopped' }]], started)
    spec(unknown).when({ type: 'StartCallAttempt', decisionId: 'dec_1', node: 'n2' }).then(t, [])
    spec(unknown).when({ type: 'RecordCallPlaced', decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio' }).then(t, [])
    t.same(types(decideAt(NOW, unknown, withSettings(ON, 'dec_2'))), ['LeadUpdated'], 'and speed to lead does not decide again')
    t.equal(stateOf(unknown).dialing.pendingFollowUp, null, 'an unknown outcome schedules no follow-up')
  })
})

t.test('carrier outcomes move forward only', async (t) => {
  const placed = placedLead()
  const spec = deciderSpec(leadDecider, NOW)

  t.test('answered (with AnsweredBy), then completed', async (t) => {
    spec(placed).when(recordStatus(status('CA1', 'in-progress', { answeredBy: 'human', timestamp: NOW.toISOString() }))).then(t, [
      { type: 'CallAnswered', data: { decisionId: 'dec_stl', callId: 'CA1', answeredBy: 'human', at: NOW.toISOString() } },
    ])
    const answered = play([[NOW, recordStatus(status('CA1', 'in-progress'))]], placed)
    t.equal(stateOf(answered).dialing.calls.dec_stl?.answered, true)
    spec(answered).when(recordStatus(status('CA1', 'completed', { durationSeconds: 42 }))).then(t, (events) => {
      t.match(events, [{ type: 'CallCompleted', data: { decisionId: 'dec_stl', callId: 'CA1', durationSeconds: 42 } }])
    })
  })

  t.test('duplicates and late, out-of-order callbacks change nothing', async (t) => {
    const ringing = play([[NOW, recordStatus(status('CA1', 'ringing'))]], placed)
    const answered = play([[NOW, recordStatus(status('CA1', 'in-progress'))]], ringing)
    t.same(decideAt(NOW, answered, recordStatus(status('CA1', 'in-progress'))), [], 'a duplicate answer')
    t.same(decideAt(NOW, answered, recordStatus(status('CA1', 'ringing'))), [], 'a late ringing')
    t.same(decideAt(NOW, answered, recordStatus(status('CA1', 'queued'))), [], 'a late queued')
    const completed = play([[NOW, recordStatus(status('CA1', 'completed', { durationSeconds: 10 }))]], answered)
    for (const late of ['completed', 'in-progress', 'ringing', 'no-answer', 'busy', 'canceled'] as const) {
      t.same(decideAt(NOW, completed, recordStatus(status('CA1', late))), [], `${late} after completed`)
    }
    // Completed (with a duration) outruns in-progress: answered and completed at once, then nothing.
    const outran = play([[NOW, recordStatus(status('CA1', 'completed', { durationSeconds: 12, answeredBy: 'human' }))]], placed)
    t.same(types(outran.slice(placed.length)), ['CallAnswered', 'CallCompleted'])
    t.match(outran[placed.length], { data: { answeredBy: 'human' } })
    spec(outran).when(recordStatus(status('CA1', 'in-progress'))).then(t, [])
    // A no-answer after which a stale ringing arrives.
    const unanswered = noAnswer(placed, 'CA1', NOW)
    spec(unanswered).when(recordStatus(status('CA1', 'ringing'))).then(t, [])
    t.same(decideAt(NOW, unanswered, recordStatus(status('CA1', 'no-answer'))), [], 'a duplicate no-answer schedules nothing more')
  })

  t.test('not answered: busy, no-answer, failed, canceled, or completed without a conversation', async (t) => {
    for (const outcome of ['busy', 'no-answer', 'failed', 'canceled'] as const) {
      spec(placed).when(recordStatus(status('CA1', outcome))).then(t, (events, after) => {
        t.match(events, [{ type: 'CallNotAnswered', data: { decisionId: 'dec_stl', callId: 'CA1', status: outcome } }, { type: 'FollowUpScheduled' }], outcome)
        t.equal(after.dialing.calls.dec_stl?.ended, true)
      })
    }
    spec(placed).when(recordStatus(status('CA1', 'completed', { durationSeconds: 0 }))).then(t, (events) => {
      t.match(events, [{ type: 'CallNotAnswered', data: { status: 'no-answer' } }, { type: 'FollowUpScheduled' }])
    })
  })

  t.test('recordings and transcripts are kept as events, once', async (t) => {
    const answered = play([[NOW, recordStatus(status('CA1', 'in-progress'))]], placed)
    const update = status('CA1', 'completed', { durationSeconds: 30, recordingUrl: 'https://api.twilio.com/rec/RE1', transcript: 'hello there' })
    const stored = play([[NOW, recordStatus(update)]], answered)
    t.same(types(stored.slice(answered.length)), ['CallRecordingAvailable', 'CallTranscriptAvailable', 'CallCompleted'])
    t.same(decideAt(NOW, stored, recordStatus(update)), [], 'a duplicate callback stores nothing twice')
  })

  t.test('a callback for a call this lead never placed is refused', async (t) => {
    spec(placed).when(recordStatus(status('CA_other', 'completed'))).thenThrows(t, 'call_not_found')
  })
})

t.test('follow-up scheduling per the account policy', async (t) => {
  t.test('the default policy: 10 minutes, 1 hour, next day 10:00 local, then stop', async (t) => {
    // A lead at 09:00 New York: 09:00, 09:10, 10:10, then 10:00 the next day is 25 hours after the first call.
    const first = at('2026-03-10T13:00:00Z')
    let events = noAnswer(placedLead(first), 'CA1', first)
    t.match(events.at(-1), { type: 'FollowUpScheduled', data: { leadId: 'ld_1', attempt: 2, dueAt: plus(first, 10 * MIN).toISOString(), afterDecisionId: 'dec_stl' } })
    events = noAnswer(followUpPlaced(events, plus(first, 10 * MIN), 'dec_f1', 'CA2'), 'CA2', plus(first, 10 * MIN))
    t.match(events.at(-1), { type: 'FollowUpScheduled', data: { attempt: 3, dueAt: plus(first, 70 * MIN).toISOString(), afterDecisionId: 'dec_f1' } })
    events = noAnswer(followUpPlaced(events, plus(first, 70 * MIN), 'dec_f2', 'CA3'), 'CA3', plus(first, 70 * MIN))
    t.match(events.at(-1), { type: 'FollowUpScheduled', data: { attempt: 4, dueAt: '2026-03-11T14:00:00.000Z' } }, 'next day 10:00 EDT')
    events = noAnswer(followUpPlaced(events, at('2026-03-11T14:00:00Z'), 'dec_f3', 'CA4'), 'CA4', at('2026-03-11T14:00:30Z'))
    t.match(events.at(-1), { type: 'FollowUpStopped', data: { reason: 'attempts_exhausted' } })
    t.equal(stateOf(events).dialing.pendingFollowUp, null)
    t.same(
      stateOf(events).dialing.order.map((id) => stateOf(events).dialing.calls[id]?.purpose),
      ['speed_to_lead', 'follow_up', 'follow_up', 'follow_up'],
    )
  })

  t.test('next day 10:00 is in the account zone, across a daylight-saving change', async (t) => {
    const settings = { ...ON, timeZone: 'Europe/London', callingHours: 'mon-sun 00:00-24:00', followUp: 'next-day 10:00' }
    // Saturday 28 March 2026, 12:00 in London (GMT); Sunday is the change to BST.
    const saturday = at('2026-03-28T12:00:00Z')
    const events = noAnswer(placedLead(saturday, settings), 'CA1', saturday, settings)
    t.match(events.at(-1), { type: 'FollowUpScheduled', data: { dueAt: '2026-03-29T09:00:00.000Z' } }, '10:00 BST')
  })

  t.test('at most N attempts in any 24 hours, whatever the steps say', async (t) => {
    // The default policy, a lead at 11:00: the next-day 10:00 step would be the 4th call within 23 hours.
    let events = noAnswer(placedLead(NOW), 'CA1', NOW)
    events = noAnswer(followUpPlaced(events, plus(NOW, 10 * MIN), 'dec_f1', 'CA2'), 'CA2', plus(NOW, 10 * MIN))
    events = noAnswer(followUpPlaced(events, plus(NOW, 70 * MIN), 'dec_f2', 'CA3'), 'CA3', plus(NOW, 70 * MIN))
    t.match(events.at(-1), { type: 'FollowUpScheduled', data: { dueAt: plus(NOW, 24 * HOUR + 1000).toISOString() } }, 'pushed until the first call is 24 hours old')
    // A tighter limit with short steps.
    const tight = { ...ON, followUp: '30s, 30s, 30s; max 2 per 24h' }
    let short = noAnswer(placedLead(NOW, tight), 'CA1', NOW, tight)
    t.match(short.at(-1), { data: { dueAt: plus(NOW, 30_000).toISOString() } })
    short = noAnswer(followUpPlaced(short, plus(NOW, 30_000), 'dec_f1', 'CA2', tight), 'CA2', plus(NOW, 40_000), tight)
    t.match(short.at(-1), { type: 'FollowUpScheduled', data: { dueAt: plus(NOW, 24 * HOUR + 1000).toISOString() } })
  })

  t.test('no follow-up when the policy is off, or for a do-not-call lead', async (t) => {
    const off = { ...ON, followUp: 'off' }
    t.match(noAnswer(placedLead(NOW, off), 'CA1', NOW, off).at(-1), { type: 'FollowUpStopped', data: { reason: 'policy_off' } })
    const dnc = play([[NOW, { type: 'MarkDoNotCall' }]], placedLead())
    t.match(noAnswer(dnc, 'CA1', NOW).at(-1), { type: 'FollowUpStopped', data: { reason: 'do_not_call' } })
  })

  t.test('an answer stops follow-up; a later unanswered call schedules none', async (t) => {
    const pending = noAnswer(placedLead(), 'CA1', NOW)
    // A place_call while a follow-up is pending, and the lead picks up.
    const calledBack = play([
      [NOW, { type: 'DecidePlaceCall', settings: ON, decisionId: 'dec_p', idempotencyKey: 'k1' }],
      [NOW, { type: 'StartCallAttempt', decisionId: 'dec_p', node: 'n1' }],
      [NOW, { type: 'RecordCallPlaced', decisionId: 'dec_p', callId: 'CA9', carrier: 'twilio' }],
    ], pending)
    deciderSpec(leadDecider, NOW)(calledBack).when(recordStatus(status('CA9', 'in-progress'))).then(t, (events, after) => {
      t.same(types(events), ['CallAnswered', 'FollowUpStopped'])
      t.match(events[1], { data: { reason: 'answered' } })
      t.equal(after.dialing.pendingFollowUp, null)
    })
    const answered = play([[NOW, recordStatus(status('CA9', 'completed', { durationSeconds: 20 }))]], calledBack)
    const again = play([
      [NOW, { type: 'DecidePlaceCall', settings: ON, decisionId: 'dec_q', idempotencyKey: 'k2' }],
      [NOW, { type: 'StartCallAttempt', decisionId: 'dec_q', node: 'n1' }],
      [NOW, { type: 'RecordCallPlaced', decisionId: 'dec_q', callId: 'CA10', carrier: 'twilio' }],
    ], answered)
    deciderSpec(leadDecider, NOW)(again).when(recordStatus(status('CA10', 'busy'))).then(t, (events) => {
      t.same(types(events), ['CallNotAnswered'], 'a lead who answered once gets no more follow-ups')
    })
  })

  t.test('a lead that becomes do-not-call stops its pending follow-up', async (t) => {
    const pending = noAnswer(placedLead(), 'CA1', NOW)
    deciderSpec(leadDecider, NOW)(pending).when({ type: 'MarkDoNotCall' }).then(t, (events, after) => {
      t.same(types(events), ['LeadMarkedDoNotCall', 'FollowUpStopped'])
      t.equal(after.dialing.pendingFollowUp, null)
    })
    deciderSpec(leadDecider, NOW)(pending).when(receive({ doNotCall: true })).then(t, (events) => {
      t.same(types(events), ['LeadUpdated', 'FollowUpStopped'], 'the sender says do not call')
    })
  })
})

t.test('claiming a due follow-up', async (t) => {
  const pending = noAnswer(placedLead(), 'CA1', NOW)
  const due = plus(NOW, 10 * MIN)
  const claim = (settings: AccountSettings = ON, attempt = 2, decisionId = 'dec_f1'): LeadCommand => ({ type: 'ClaimFollowUp', settings, attempt, decisionId })

  t.test('when due and allowed: one follow-up decision, once', async (t) => {
    deciderSpec(leadDecider, due)(pending).when(claim()).then(t, (events, after) => {
      t.match(events, [{ type: 'CallDecided', data: { decisionId: 'dec_f1', purpose: 'follow_up', attempt: 2, decidedAt: due.toISOString(), idempotencyKey: null } }])
      t.equal(after.dialing.pendingFollowUp, null)
    })
    const claimed = play([[due, claim()]], pending)
    t.same(decideAt(plus(due, HOUR), claimed, claim(ON, 2, 'dec_f1b')), [], 'claimed already (another node, a clock jump)')
  })

  t.test('not yet due, or another attempt: nothing', async (t) => {
    deciderSpec(leadDecider, plus(due, -1000))(pending).when(claim()).then(t, [])
    deciderSpec(leadDecider, due)(pending).when(claim(ON, 7)).then(t, [])
  })

  t.test('the lead answered meanwhile: stopped', async (t) => {
    // An answer recorded without the stop (e.g. history from before the stop existed) is still honoured.
    const answeredMeanwhile = [...pending, { type: 'CallAnswered', data: { decisionId: 'dec_stl', callId: 'CA1', answeredBy: null, at: NOW.toISOString() } } as LeadEvent]
    deciderSpec(leadDecider, due)(answeredMeanwhile).when(claim()).then(t, (events) => {
      t.match(events, [{ type: 'FollowUpStopped', data: { reason: 'answered' } }])
    })
  })

  t.test('do-not-call or no caller id: stopped', async (t) => {
    const dnc = [...pending, { type: 'LeadMarkedDoNotCall', data: { leadId: 'ld_1', markedAt: NOW.toISOString() } } as LeadEvent]
    deciderSpec(leadDecider, due)(dnc).when(claim()).then(t, (events) => t.match(events, [{ type: 'FollowUpStopped', data: { reason: 'do_not_call' } }]))
    deciderSpec(leadDecider, due)(pending).when(claim({ ...ON, callerId: null })).then(t, (events) =>
      t.match(events, [{ type: 'FollowUpStopped', data: { reason: 'no_caller_id' } }]),
    )
    deciderSpec(leadDecider, due)(pending).when(claim({ ...ON, callingHours: 'none' })).then(t, (events) =>
      t.match(events, [{ type: 'FollowUpStopped', data: { reason: 'no_calling_hours' } }]),
    )
  })

  t.test('outside calling hours: rescheduled to the next allowed time, then claimed there', async (t) => {
    const hours = { ...ON, callingHours: 'mon-fri 09:00-11:05' }
    deciderSpec(leadDecider, due)(pending).when(claim(hours)).then(t, (events, after) => {
      t.same(events, [
        { type: 'FollowUpRescheduled', data: { attempt: 2, dueAt: '2026-03-11T13:00:00.000Z', reason: 'outside_calling_hours', message: (events[0] as { data: { message: string } }).data.message } },
      ])
      t.same(after.dialing.pendingFollowUp, { attempt: 2, dueAt: '2026-03-11T13:00:00.000Z' })
    })
    const rescheduled = play([[due, claim(hours)]], pending)
    deciderSpec(leadDecider, at('2026-03-11T12:59:59Z'))(rescheduled).when(claim(hours)).then(t, [])
    deciderSpec(leadDecider, at('2026-03-11T13:00:00Z'))(rescheduled).when(claim(hours)).then(t, (events) => {
      t.match(events, [{ type: 'CallDecided', data: { purpose: 'follow_up', decidedAt: '2026-03-11T13:00:00.000Z' } }])
    })
  })

  t.test('outside a state rule: rescheduled, the rule named in the event and its line (#27)', async (t) => {
    // A Florida lead (state field; a Chicago number, so either Florida zone) whose follow-up falls due
    // at 20:30 Eastern: next allowed 08:00 Central.
    const late = at('2026-03-11T00:30:00Z')
    const earlier = plus(late, -10 * MIN)
    const placed = play([
      [earlier, withSettings({ ...ON, callingHours: 'mon-sun 00:00-24:00' }, 'dec_stl', { state: 'FL' })],
      [earlier, { type: 'StartCallAttempt', decisionId: 'dec_stl', node: 'n1' }],
      [earlier, { type: 'RecordCallPlaced', decisionId: 'dec_stl', callId: 'CA1', carrier: 'twilio' }],
    ])
    const floridaLead = noAnswer(placed, 'CA1', earlier)
    const guarded = { ...ON, callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: true }
    deciderSpec(leadDecider, late)(floridaLead).when(claim(guarded)).then(t, (events) => {
      t.match(events, [{ type: 'FollowUpRescheduled', data: { attempt: 2, reason: 'outside_lead_hours', rule: 'FL 501.616', dueAt: '2026-03-11T13:00:00.000Z' } }])
      t.match(CALL_SUMMARIES.FollowUpRescheduled((events[0] as Extract<LeadEvent, { type: 'FollowUpRescheduled' }>).data), /\(outside_lead_hours, rule FL 501\.616\)$/)
    })
  })

  t.test('over the daily limit: rescheduled until a 24-hour-old attempt falls out', async (t) => {
    // Two calls already today (speed to lead and a place_call) under "max 2 per 24h".
    const tight = { ...ON, followUp: '30s; max 2 per 24h' }
    const twoCalls = play([
      [NOW, { type: 'DecidePlaceCall', settings: tight, decisionId: 'dec_p', idempotencyKey: 'k1' }],
      [NOW, { type: 'StartCallAttempt', decisionId: 'dec_p', node: 'n1' }],
    ], pending)
    deciderSpec(leadDecider, due)(twoCalls).when(claim(tight)).then(t, (events) => {
      t.match(events, [{ type: 'FollowUpRescheduled', data: { attempt: 2, dueAt: plus(NOW, 24 * HOUR + 1000).toISOString(), reason: 'daily_limit' } }])
    })
  })
})

t.test("a lead form's test lead: speed to lead skips it (test_lead), place_call and request_payment refuse it, and it stays one", async (t) => {
  const testLead = (command: LeadCommand): LeadCommand => ({ ...command, test: true }) as LeadCommand
  const received = play([[NOW, testLead(withSettings(ON))]])
  t.same(received.map((e) => e.type), ['LeadReceived'], 'no call decided')
  t.match(skipOf(received), { reason: 'test_lead' })
  t.equal((received[0] as Extract<LeadEvent, { type: 'LeadReceived' }>).data.test, true)
  t.throws(() => leadDecider.decide({ type: 'DecidePlaceCall', settings: ON, decisionId: 'dec_1', idempotencyKey: 'k1' }, stateOf(received), NOW), { code: 'test_lead' })
  const pay: LeadCommand = {
    type: 'RequestPayment', requestId: 'pay_1', amountCents: 100, currency: 'usd', description: 'x', connectedAccount: null, provider: 'simulated',
    idempotencyKey: 'k', providerIdempotencyKey: 'pk', from: CALLER_ID,
  } as LeadCommand
  t.throws(() => leadDecider.decide(pay, stateOf(received), NOW), { code: 'test_lead' })
  // A real submission later leaves it a test lead; a test submission on a real lead leaves that one real.
  const again = play([[plus(NOW, MIN), receive({ email: 'real@example.com' })]], received)
  t.equal(stateOf(again).test, true)
  const real = play([[NOW, withSettings(ON)], [plus(NOW, MIN), testLead(receive())]])
  t.equal(stateOf(real).test, false)
  t.equal((real.find((e) => e.type === 'LeadUpdated') as Extract<LeadEvent, { type: 'LeadUpdated' }>).data.test, true, 'the submission says it was a test')
})
