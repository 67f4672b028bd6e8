/**
 * Appointments and follow-up on the lead aggregate, on histories the decider makes: a booking stops
 * the pending follow-up and holds the policy's next ones while it stands; a no-show puts the lead back
 * on follow-up (a call now, inside calling hours), even a lead who had answered; coming to it stops
 * that again; a cancellation resumes the policy's cadence.
 */
import t from 'tap'
import { DEFAULT_SETTINGS, type AccountSettings } from '../../../../src/domain/account/account-settings.ts'
import { leadDecider, type LeadCommand } from '../../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../../src/domain/lead/lead.events.ts'
import type { CallStatus } from '../../../../src/domain/lead/calls/call-status.ts'
import { leadFields, play, plus, stateOf, types } from '../../../helpers/lead-play.ts'

/** Tuesday 10 March 2026, 11:00 in New York. */
const NOW = new Date('2026-03-10T15:00:00Z')
const HOUR = 3_600_000
const S: AccountSettings = { ...DEFAULT_SETTINGS, speedToLead: true, callerId: '+13125550100', leadTimeGuard: false, followUp: '1h, 1d' }
/** Wednesday 11:00–11:30 in New York. */
const START = '2026-03-11T15:00:00.000Z'
const END = '2026-03-11T15:30:00.000Z'
const AFTER = new Date('2026-03-11T15:40:00Z')

const book = (appointmentId = 'apt_1', start = START, end = END): LeadCommand => ({
  type: 'RecordAppointmentBooked', appointmentId, appointmentTypeId: 'type_1', typeName: 'Roof inspection', start, end, provider: 'simulated',
  calendarId: 'cal_1', eventUid: `leadline-${appointmentId}`, leadZone: 'America/Chicago', by: 'agent', idempotencyKey: null,
})
const mark = (outcome: 'attended' | 'no_show', appointmentId = 'apt_1', settings: AccountSettings | null = S): LeadCommand => ({
  type: 'MarkAppointmentOutcome', appointmentId, outcome, by: 'owner', ...(settings === null ? {} : { settings }),
})

/** Jane received, speed to lead placed (its outcome not known yet). */
function placed(): LeadEvent[] {
  return play([
    [NOW, { type: 'ReceiveLead', accountId: 'acc_1', newLeadId: 'ld_1', fields: leadFields(), speedToLead: { settings: S, decisionId: 'dec_stl' } }],
    [NOW, { type: 'StartCallAttempt', decisionId: 'dec_stl', node: 'n1' }],
    [NOW, { type: 'RecordCallPlaced', decisionId: 'dec_stl', callId: 'CA1', carrier: 'twilio' }],
  ])
}
const status = (s: CallStatus, durationSeconds?: number): LeadCommand => ({
  type: 'RecordCallStatus', settings: S, update: { callId: 'CA1', status: s, timestamp: '', carrier: 'twilio', ...(durationSeconds === undefined ? {} : { durationSeconds }) },
})
/** Jane answered speed to lead, talked, and booked. */
const answeredAndBooked = () => play([[NOW, status('in-progress')], [NOW, status('completed', 60)], [NOW, book()]], placed())

t.test('a booking stops the pending follow-up: a lead who booked is not cold-called', async (t) => {
  const unanswered = play([[NOW, status('no-answer')]], placed())
  t.ok(stateOf(unanswered).dialing.pendingFollowUp, 'follow-up pending after the unanswered call')
  const events = leadDecider.decide(book(), stateOf(unanswered), plus(NOW, 60_000))
  t.same(types(events), ['AppointmentBooked', 'FollowUpStopped'])
  t.match(events[1], { data: { reason: 'appointment_booked' } })
  t.equal(stateOf([...unanswered, ...events]).dialing.pendingFollowUp, null)
  t.same(leadDecider.decide(book(), stateOf([...unanswered, ...events]), plus(NOW, 120_000)), [], 'the same booking again records nothing')
})

t.test('while a booking stands, an unanswered call schedules no follow-up; once it has ended, the policy goes on', async (t) => {
  const booked = play([[NOW, book()]], placed())
  const events = leadDecider.decide(status('no-answer'), stateOf(booked), NOW)
  t.same(types(events), ['CallNotAnswered', 'FollowUpStopped'])
  t.match(events[1], { data: { reason: 'appointment_booked' } })
  // After the appointment's end (unmarked), a later unanswered call follows the policy again.
  const late = leadDecider.decide(status('no-answer'), stateOf(placed()), AFTER)
  t.same(types(late), ['CallNotAnswered', 'FollowUpScheduled'], 'no booking: the policy schedules as before')
})

t.test('a no-show before the start is refused; after it, follow-up calls the lead now, even one who had answered', async (t) => {
  const given = answeredAndBooked()
  t.not(stateOf(given).dialing.answeredAt, null)
  t.throws(() => leadDecider.decide(mark('no_show'), stateOf(given), plus(new Date(START), -60_000)), { code: 'appointment_not_started' })
  const events = leadDecider.decide(mark('no_show'), stateOf(given), AFTER)
  t.same(types(events), ['AppointmentNoShow', 'FollowUpScheduled'])
  t.match(events[1], { data: { dueAt: AFTER.toISOString(), attempt: 2, afterDecisionId: 'dec_stl' } })
  const after = [...given, ...events]
  t.equal(stateOf(after).dialing.answeredAt, null, 'not reached any more')
  t.same(leadDecider.decide(mark('no_show'), stateOf(after), plus(AFTER, 60_000)), [], 'marked the same way again: nothing')
  const claim = leadDecider.decide({ type: 'ClaimFollowUp', settings: S, attempt: 2, decisionId: 'dec_fu' }, stateOf(after), AFTER)
  t.same(types(claim), ['CallDecided'], 'the follow-up claims a call, not a stop for "answered"')
  t.match(claim[0], { data: { purpose: 'follow_up' } })
})

t.test('a no-show marked at night is called at the first moment calling hours allow', async (t) => {
  const given = answeredAndBooked()
  // Wednesday 22:00 in New York; calling hours open Thursday 09:00.
  const night = new Date('2026-03-12T02:00:00Z')
  const events = leadDecider.decide(mark('no_show'), stateOf(given), night)
  t.same(types(events), ['AppointmentNoShow', 'FollowUpScheduled'])
  t.match(events[1], { data: { dueAt: '2026-03-12T13:00:00.000Z' } })
})

t.test('coming after all (a correction) stops the follow-up the no-show scheduled; a no-show without the settings resumes nothing', async (t) => {
  const given = answeredAndBooked()
  const noShow = play([[AFTER, mark('no_show')]], given)
  const events = leadDecider.decide(mark('attended'), stateOf(noShow), plus(AFTER, 60_000))
  t.same(types(events), ['AppointmentAttended', 'FollowUpStopped'])
  t.match(events[1], { data: { reason: 'appointment_attended' } })
  t.not(stateOf([...noShow, ...events]).dialing.answeredAt, null, 'reached: they came')
  t.same(types(leadDecider.decide(mark('no_show', 'apt_1', null), stateOf(given), AFTER)), ['AppointmentNoShow'])
})

t.test('a no-show while another booking stands, or of a do-not-call lead, calls nobody', async (t) => {
  const second = play([[NOW, book('apt_2', '2026-03-13T15:00:00.000Z', '2026-03-13T15:30:00.000Z')]], answeredAndBooked())
  t.same(types(leadDecider.decide(mark('no_show'), stateOf(second), AFTER)), ['AppointmentNoShow'])
  const dnc = play([[NOW, { type: 'MarkDoNotCall', source: 'operator' }]], answeredAndBooked())
  t.same(types(leadDecider.decide(mark('no_show'), stateOf(dnc), AFTER)), ['AppointmentNoShow'])
})

t.test("a cancellation resumes the policy's cadence at its next step", async (t) => {
  const given = answeredAndBooked()
  const at = plus(NOW, 2 * HOUR)
  const events = leadDecider.decide({ type: 'RecordAppointmentCancelled', appointmentId: 'apt_1', by: 'assistant', reason: 'the lead cancelled', settings: S }, stateOf(given), at)
  t.same(types(events), ['AppointmentCancelled', 'FollowUpScheduled'])
  t.match(events[1], { data: { dueAt: plus(at, HOUR).toISOString() } }, "the policy's first step: an hour on")
})
