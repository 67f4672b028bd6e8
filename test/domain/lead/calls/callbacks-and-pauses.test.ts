/**
 * The account's callback and a paused follow-up, on the lead aggregate (issue #30): a callback inside
 * calling hours takes the place of the pending follow-up and is claimed as one; outside them, in the
 * past or too far ahead it is refused with a code; a pause keeps the pending step and refuses its
 * claim, call or text step; resume moves a step that fell due to the next allowed moment.
 * Histories are made by the decider itself.
 */
import t from 'tap'
import { DEFAULT_SETTINGS, type AccountSettings } from '../../../../src/domain/account/account-settings.ts'
import { leadDecider, type LeadCommand, type LeadState } from '../../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../../src/domain/lead/lead.events.ts'
import { DomainError } from '../../../../src/domain/shared/decider.ts'

// Tuesday 10 March 2026, 10:00 in Chicago.
const NOW = new Date('2026-03-10T15:00:00Z')
const SETTINGS: AccountSettings = { ...DEFAULT_SETTINGS, callerId: '+13125550100', callingHours: 'mon-fri 09:00-17:00', timeZone: 'America/Chicago', leadTimeGuard: false }
const RECEIVE: LeadCommand = {
  type: 'ReceiveLead', accountId: 'acc_1', newLeadId: 'ld_1',
  fields: { phone: '+13125550142', phoneLast10: '3125550142', phoneRaw: '312-555-0142', fullName: 'Jane Doe', industryFields: {}, extraFields: [] },
}

function play(steps: ReadonlyArray<readonly [Date, LeadCommand]>, start: readonly LeadEvent[] = []): LeadEvent[] {
  const events = [...start]
  for (const [when, command] of steps) events.push(...leadDecider.decide(command, stateOf(events), when))
  return events
}
const stateOf = (events: readonly LeadEvent[]): LeadState => events.reduce((s, e) => leadDecider.evolve(s, e), leadDecider.initialState())
const refusal = (events: readonly LeadEvent[], command: LeadCommand, when = NOW): string | null => {
  try {
    leadDecider.decide(command, stateOf(events), when)
    return null
  } catch (error) {
    return error instanceof DomainError ? error.code : String(error)
  }
}
const callback = (at: string): LeadCommand => ({ type: 'ScheduleCallback', settings: SETTINGS, callbackAt: at })
const claim = (attempt: number): LeadCommand => ({ type: 'ClaimFollowUp', settings: SETTINGS, attempt, decisionId: 'dec_cb' })

t.test('a callback inside calling hours: CallbackScheduled and the follow-up at that time, claimed as a call then', async (t) => {
  const events = play([[NOW, RECEIVE], [NOW, callback('2026-03-11T10:00:00-05:00')]])
  t.match(events.slice(-2), [
    { type: 'CallbackScheduled', data: { callbackAt: '2026-03-11T15:00:00.000Z', replacedDueAt: null } },
    { type: 'FollowUpScheduled', data: { attempt: 1, dueAt: '2026-03-11T15:00:00.000Z' } },
  ])
  t.same(leadDecider.decide(claim(1), stateOf(events), new Date('2026-03-11T14:59:00Z')), [], 'not before its time')
  t.match(leadDecider.decide(claim(1), stateOf(events), new Date('2026-03-11T15:00:00Z')), [{ type: 'CallDecided', data: { purpose: 'follow_up', decisionId: 'dec_cb' } }])
  const again = play([[NOW, callback('2026-03-12T09:30:00-05:00')]], events)
  t.match(again.at(-2), { type: 'CallbackScheduled', data: { replacedDueAt: '2026-03-11T15:00:00.000Z' } }, 'a second one takes the place of the first')
})

t.test('refused with a code, and next_allowed_at when it is the hours', async (t) => {
  const events = play([[NOW, RECEIVE]])
  t.equal(refusal(events, callback('2026-03-10T08:00:00-05:00')), 'callback_in_past')
  t.equal(refusal(events, callback('2026-04-10T10:00:00-05:00')), 'callback_too_far')
  t.equal(refusal(events, callback('not a time')), 'invalid_callback_at')
  t.equal(refusal([], callback('2026-03-11T10:00:00-05:00')), 'lead_not_found')
  try {
    leadDecider.decide(callback('2026-03-14T10:00:00-05:00'), stateOf(events), NOW)
    t.fail('Saturday is refused')
  } catch (error) {
    t.match(error, { code: 'outside_calling_hours', details: { next_allowed_at: '2026-03-16T14:00:00.000Z' } })
  }
  const dnc = play([[NOW, { type: 'MarkDoNotCall' }]], events)
  t.equal(refusal(dnc, callback('2026-03-11T10:00:00-05:00')), 'do_not_call')
})

t.test('a pause keeps the pending step and refuses its claim; resume moves a step that fell due to the next allowed moment', async (t) => {
  const events = play([[NOW, RECEIVE], [NOW, callback('2026-03-11T10:00:00-05:00')], [NOW, { type: 'PauseFollowUp' }]])
  t.match(events.at(-1), { type: 'FollowUpPaused' })
  t.same(leadDecider.decide({ type: 'PauseFollowUp' }, stateOf(events), NOW), [], 'pausing again changes nothing')
  t.same(stateOf(events).dialing.pendingFollowUp?.dueAt, '2026-03-11T15:00:00.000Z', 'the step stays recorded')
  t.same(leadDecider.decide(claim(1), stateOf(events), new Date('2026-03-11T16:00:00Z')), [], 'not claimed while paused')
  t.equal(refusal(events, callback('2026-03-12T10:00:00-05:00')), 'follow_up_paused')

  // Wednesday 18:30 Chicago: after hours, so the step goes out Thursday 09:00.
  const evening = new Date('2026-03-11T23:30:00Z')
  const resumed = leadDecider.decide({ type: 'ResumeFollowUp', settings: SETTINGS }, stateOf(events), evening)
  t.match(resumed, [{ type: 'FollowUpResumed' }, { type: 'FollowUpRescheduled', data: { attempt: 1, dueAt: '2026-03-12T14:00:00.000Z', reason: 'resumed' } }])
  const after = [...events, ...resumed]
  t.same(leadDecider.decide({ type: 'ResumeFollowUp', settings: SETTINGS }, stateOf(after), evening), [], 'resuming again changes nothing')
  t.match(leadDecider.decide(claim(1), stateOf(after), new Date('2026-03-12T14:00:00Z')), [{ type: 'CallDecided' }])

  // Resumed before the step is due: it keeps its time.
  const early = leadDecider.decide({ type: 'ResumeFollowUp', settings: SETTINGS }, stateOf(events), NOW)
  t.match(early, [{ type: 'FollowUpResumed' }])
  t.equal(early.length, 1)
})
