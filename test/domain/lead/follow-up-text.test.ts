/**
 * Follow-up text steps on the lead aggregate, given/when/then on histories the decider makes: a due
 * text step becomes one TextDecided (placeholders filled, the opt-out line added) and the next step in
 * the same append; it keeps to the hours and the do-not-call list like a call; the account's call limit
 * does not hold it back; an answer stops it; a callback stays a call.
 */
import t from 'tap'
import { DEFAULT_SETTINGS, type AccountSettings } from '../../../src/domain/account/account-settings.ts'
import { leadDecider, type LeadCommand } from '../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../src/domain/lead/lead.events.ts'
import { CALL_SUMMARIES } from '../../../src/domain/lead/calls/calls.events.ts'
import { CALLBACK_AFTER_MS } from '../../../src/domain/lead/calls/calls.decider.ts'
import { leadFields, play, plus, stateOf, types } from '../../helpers/lead-play.ts'

/** Tuesday 10 March 2026, 11:00 in New York. */
const NOW = new Date('2026-03-10T15:00:00Z')
const MIN = 60_000
const HOUR = 60 * MIN
const CALLER_ID = '+13125550100'
const TEXT_THEN_CALL = '10m text "Hi {first_name}, it\'s {business} about your request. Call {callback_number}.", 1h'
const settingsWith = (followUp: string, more: Partial<AccountSettings> = {}): AccountSettings => ({
  ...DEFAULT_SETTINGS, speedToLead: true, callerId: CALLER_ID, leadTimeGuard: false, callingHours: 'mon-sun 00:00-24:00', followUp, ...more,
})
const S = settingsWith(TEXT_THEN_CALL)

/** The timer's claim, with an id for a call and one for a text (`dec_x`, `txt_x`): which is used depends on the step. */
const claim = (settings: AccountSettings, attempt: number, decisionId: string): LeadCommand =>
  ({ type: 'ClaimFollowUp', settings, attempt, decisionId, textId: decisionId.replace(/^dec_/, 'txt_'), business: 'Acme Roofing' })

/** Jane Doe received at `when`, speed to lead placed as CA1, rung out unanswered. */
function unanswered(settings: AccountSettings, when = NOW, extra: Record<string, unknown> = {}): LeadEvent[] {
  return play([
    [when, { type: 'ReceiveLead', accountId: 'acc_1', newLeadId: 'ld_1', fields: { ...leadFields(), ...extra }, speedToLead: { settings, decisionId: 'dec_stl' } } as LeadCommand],
    [when, { type: 'StartCallAttempt', decisionId: 'dec_stl', node: 'n1' }],
    [when, { type: 'RecordCallPlaced', decisionId: 'dec_stl', callId: 'CA1', carrier: 'twilio' }],
    [when, { type: 'RecordCallStatus', settings, update: { callId: 'CA1', status: 'no-answer', timestamp: '', carrier: 'twilio' } }],
  ])
}

t.test('a due text step: one text decided, its placeholders filled and the opt-out line added, with the next step in the same append', async (t) => {
  const given = unanswered(S)
  const scheduled = given.at(-1)
  t.match(scheduled, { type: 'FollowUpScheduled', data: { attempt: 2, dueAt: plus(NOW, 10 * MIN).toISOString(), textStep: 1 } }, 'a text step is scheduled as a call step is')
  t.equal(CALL_SUMMARIES.FollowUpScheduled((scheduled as Extract<LeadEvent, { type: 'FollowUpScheduled' }>).data), `follow-up scheduled: text step 1 due ${plus(NOW, 10 * MIN).toISOString()}`)

  const due = plus(NOW, 10 * MIN)
  t.same(leadDecider.decide(claim(S, 2, 'dec_t1'), stateOf(given), plus(due, -1000)), [], 'not before it is due')
  const events = leadDecider.decide(claim(S, 2, 'dec_t1'), stateOf(given), due)
  t.same(types(events), ['TextDecided', 'FollowUpScheduled'])
  t.match(events[0], {
    data: {
      leadId: 'ld_1', textId: 'txt_t1', reason: 'follow_up', step: 1, from: CALLER_ID, to: '+13125550142', idempotencyKey: null, at: due.toISOString(),
      body: "Hi Jane, it's Acme Roofing about your request. Call +13125550100.\nReply STOP to opt out.",
    },
  })
  t.match(events[1], { data: { attempt: 2, dueAt: plus(due, HOUR).toISOString(), afterDecisionId: 'txt_t1' } }, 'the next step, timed from the text')
  t.notOk('textStep' in (events[1] as { data: object }).data, 'the next step is a call')

  const after = [...given, ...events]
  t.equal(stateOf(after).dialing.followUpTexts, 1)
  t.same(leadDecider.decide(claim(S, 2, 'dec_t2'), stateOf(after), plus(due, 30 * MIN)), [], 'claimed once: the same timer does not text again')
  const called = play([[plus(due, HOUR), claim(S, 2, 'dec_f1')]], after)
  t.match(called.at(-1), { type: 'CallDecided', data: { purpose: 'follow_up', decisionId: 'dec_f1', attempt: 2 } }, 'then the call step')
  const rungOut = play(
    [
      [plus(due, HOUR), { type: 'StartCallAttempt', decisionId: 'dec_f1', node: 'n1' }],
      [plus(due, HOUR), { type: 'RecordCallPlaced', decisionId: 'dec_f1', callId: 'CA2', carrier: 'twilio' }],
      [plus(due, HOUR), { type: 'RecordCallStatus', settings: S, update: { callId: 'CA2', status: 'busy', timestamp: '', carrier: 'twilio' } }],
    ],
    called,
  )
  t.match(rungOut.at(-1), { type: 'FollowUpStopped', data: { reason: 'attempts_exhausted', message: 'all 2 follow-ups were tried' } }, 'both steps taken, the text among them')
})

t.test('a text that already says how to opt out gets no second line; a lead with no name is "there"', async (t) => {
  const settings = settingsWith('30s text "Hi {first_name}. Reply STOP to opt out."')
  const given = unanswered(settings, NOW, { firstName: undefined, fullName: undefined })
  const [decided] = leadDecider.decide(claim(settings, 2, 'dec_t1'), stateOf(given), plus(NOW, 30_000))
  t.match(decided, { type: 'TextDecided', data: { body: 'Hi there. Reply STOP to opt out.' } })
})

t.test('outside the hours: moved to the next allowed time, then decided there', async (t) => {
  // Weekdays 09:00-11:05 in New York: due at 11:10 on Tuesday, so Wednesday 09:00.
  const hours = settingsWith(TEXT_THEN_CALL, { callingHours: 'mon-fri 09:00-11:05' })
  const given = unanswered(hours)
  const moved = leadDecider.decide(claim(hours, 2, 'dec_t1'), stateOf(given), plus(NOW, 10 * MIN))
  t.match(moved, [{ type: 'FollowUpRescheduled', data: { attempt: 2, dueAt: '2026-03-11T13:00:00.000Z', reason: 'outside_calling_hours' } }])
  const rescheduled = [...given, ...moved]
  t.same(leadDecider.decide(claim(hours, 2, 'dec_t1'), stateOf(rescheduled), new Date('2026-03-11T12:59:59Z')), [])
  t.same(types(leadDecider.decide(claim(hours, 2, 'dec_t1'), stateOf(rescheduled), new Date('2026-03-11T13:00:00Z'))), ['TextDecided', 'FollowUpScheduled'])
})

t.test("outside the lead's hours (the lead-time guard): moved, with the rule named", async (t) => {
  // 20:50 in Chicago (CDT); the text step falls due at 21:10 there, after the federal 21:00.
  const evening = new Date('2026-03-11T01:50:00Z')
  const guarded = settingsWith('20m text "Hi"', { leadTimeGuard: true })
  const given = unanswered(guarded, evening)
  const moved = leadDecider.decide(claim(guarded, 2, 'dec_t1'), stateOf(given), plus(evening, 20 * MIN))
  t.match(moved, [{ type: 'FollowUpRescheduled', data: { dueAt: '2026-03-11T13:00:00.000Z', reason: 'outside_lead_hours', rule: /TCPA/ } }], '08:00 in Chicago')
})

t.test("the account's call limit does not hold a text step back; the call after it waits for it", async (t) => {
  const one = settingsWith('30s text "Hi", 30s; max 1 per 24h')
  const given = unanswered(one)
  t.match(given.at(-1), { type: 'FollowUpScheduled', data: { dueAt: plus(NOW, 30_000).toISOString(), textStep: 1 } }, 'the text is not pushed a day out')
  const events = leadDecider.decide(claim(one, 2, 'dec_t1'), stateOf(given), plus(NOW, 30_000))
  t.same(types(events), ['TextDecided', 'FollowUpScheduled'])
  t.match(events[1], { data: { dueAt: plus(NOW, 24 * HOUR + 1000).toISOString() } }, 'the next call fits one call in 24 hours')
})

t.test('no text step to a lead who answered, who became do-not-call, or with no caller id', async (t) => {
  const given = unanswered(S)
  const due = plus(NOW, 10 * MIN)
  const answered = [...given, { type: 'CallAnswered', data: { decisionId: 'dec_stl', callId: 'CA1', answeredBy: null, at: NOW.toISOString() } } as LeadEvent]
  t.match(leadDecider.decide(claim(S, 2, 'dec_t1'), stateOf(answered), due), [{ type: 'FollowUpStopped', data: { reason: 'answered' } }])
  const dnc = [...given, { type: 'LeadMarkedDoNotCall', data: { leadId: 'ld_1', markedAt: NOW.toISOString() } } as LeadEvent]
  t.match(leadDecider.decide(claim(S, 2, 'dec_t1'), stateOf(dnc), due), [{ type: 'FollowUpStopped', data: { reason: 'do_not_call' } }])
  const marked = play([[NOW, { type: 'MarkDoNotCall', source: 'api' } as LeadCommand]], given)
  t.match(marked.at(-1), { type: 'FollowUpStopped', data: { reason: 'do_not_call' } }, 'marking the lead stops the pending text step at once')
  t.same(leadDecider.decide(claim(S, 2, 'dec_t1'), stateOf(marked), due), [], 'nothing is pending any more')
  t.match(leadDecider.decide(claim({ ...S, callerId: null }, 2, 'dec_t1'), stateOf(given), due), [{ type: 'FollowUpStopped', data: { reason: 'no_caller_id' } }])
})

t.test('a callback the lead asked for is a call, even where the policy has a text step', async (t) => {
  const received = play([[NOW, { type: 'ReceiveLead', accountId: 'acc_1', newLeadId: 'ld_1', fields: leadFields(), speedToLead: { settings: S, decisionId: 'dec_stl' } } as LeadCommand]])
  const answered = play(
    [
      [NOW, { type: 'StartCallAttempt', decisionId: 'dec_stl', node: 'n1' }],
      [NOW, { type: 'RecordCallPlaced', decisionId: 'dec_stl', callId: 'CA1', carrier: 'twilio' }],
      [NOW, { type: 'RecordCallStatus', settings: S, update: { callId: 'CA1', status: 'in-progress', timestamp: '', carrier: 'twilio' } }],
      [NOW, { type: 'PressMenuKey', settings: S, decisionId: 'dec_stl', digit: '2', ownerNumber: null }],
    ],
    received,
  )
  t.match(answered.at(-1), { type: 'FollowUpScheduled' })
  const claimed = leadDecider.decide(claim(S, 2, 'dec_cb'), stateOf(answered), plus(NOW, CALLBACK_AFTER_MS))
  t.match(claimed, [{ type: 'CallDecided', data: { purpose: 'follow_up', decisionId: 'dec_cb' } }])
})
