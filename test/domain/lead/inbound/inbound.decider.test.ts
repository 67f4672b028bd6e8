/**
 * The inbound slice on the lead aggregate, on histories the decider makes: a new caller becomes a
 * listed lead nobody dials; a call is recorded once; the first claim takes it and a second connects
 * no one; a call taken stops follow-up; a missed one brings follow-up forward within calling hours;
 * do-not-call never changes.
 */
import t from 'tap'
import { DEFAULT_SETTINGS, type AccountSettings } from '../../../../src/domain/account/account-settings.ts'
import { leadDecider, type LeadCommand } from '../../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../../src/domain/lead/lead.events.ts'
import { LEAD_SUMMARIES } from '../../../../src/domain/lead/lead.decider.ts'
import { inboundDecisionId } from '../../../../src/domain/lead/inbound/inbound.decider.ts'
import { leadFields, play, plus, stateOf, types } from '../../../helpers/lead-play.ts'

/** Tuesday 10 March 2026, 11:00 in New York. */
const NOW = new Date('2026-03-10T15:00:00Z')
const HOUR = 3_600_000
const S: AccountSettings = { ...DEFAULT_SETTINGS, speedToLead: true, callerId: '+13125550100', leadTimeGuard: false, followUp: '1h, 1d' }
const JANE = leadFields()

const receive = (callId = 'CA_in1', fields = { phone: JANE.phone, phoneLast10: JANE.phoneLast10, phoneRaw: JANE.phone, industryFields: {}, extraFields: [] }): LeadCommand => ({
  type: 'ReceiveInboundCall', accountId: 'acc_1', newLeadId: 'ld_new', fields, callId, from: JANE.phone, to: '+13125550100', withinBusinessHours: true, route: 'owners',
})
const connect = (leg: number, callId = 'CA_in1'): LeadCommand => ({ type: 'ConnectInboundCall', callId, by: 'owner', leg, ownerNumber: `+1312555020${leg}` })

/** Jane received (speed to lead rung out unanswered), follow-up pending an hour on. */
function pending(settings = S): LeadEvent[] {
  return play([
    [NOW, { type: 'ReceiveLead', accountId: 'acc_1', newLeadId: 'ld_1', fields: JANE, speedToLead: { settings, decisionId: 'dec_stl' } }],
    [NOW, { type: 'StartCallAttempt', decisionId: 'dec_stl', node: 'n1' }],
    [NOW, { type: 'RecordCallPlaced', decisionId: 'dec_stl', callId: 'CA1', carrier: 'twilio' }],
    [NOW, { type: 'RecordCallStatus', settings, update: { callId: 'CA1', status: 'no-answer', timestamp: '', carrier: 'twilio' } }],
  ])
}

t.test('a person not on record becomes a lead in Inbound Leads, source inbound call, with no speed to lead, in the same append as the call', async (t) => {
  const events = leadDecider.decide(receive(), stateOf([]), NOW)
  t.same(types(events), ['LeadReceived', 'InboundCallReceived'])
  t.match(events[0], { data: { leadId: 'ld_new', list: { listName: 'Inbound Leads' }, fields: { source: 'inbound call' }, speedToLeadSkipped: { reason: 'inbound_call' } } })
  t.match(events[1], { data: { leadId: 'ld_new', callId: 'CA_in1', newLead: true, route: 'owners' } })
  t.notOk(events.some((e) => e.type === 'CallDecided'), 'nobody dials a caller')
  t.same(leadDecider.decide(receive(), stateOf(events), plus(NOW, 1000)), [], 'a replayed webhook records nothing')
})

t.test('a known lead calling: the call only, newLead false', async (t) => {
  const events = leadDecider.decide(receive(), stateOf(pending()), NOW)
  t.same(types(events), ['InboundCallReceived'])
  t.match(events[0], { data: { leadId: 'ld_1', newLead: false } })
})

t.test('first claim wins; a late second press connects no one; the taken call stops follow-up and the lead counts as reached', async (t) => {
  const given = [...pending(), ...leadDecider.decide(receive(), stateOf(pending()), NOW)]
  const first = leadDecider.decide(connect(1), stateOf(given), NOW)
  t.same(types(first), ['InboundCallConnected', 'FollowUpStopped'])
  t.match(first[1], { data: { reason: 'answered' } })
  const after = [...given, ...first]
  t.same(leadDecider.decide(connect(0), stateOf(after), NOW), [], 'the second press finds it taken')
  t.equal(stateOf(after).dialing.answeredAt, NOW.toISOString())
  t.equal(stateOf(after).dialing.pendingFollowUp, null)
  t.same(leadDecider.decide({ type: 'MissInboundCall', callId: 'CA_in1', reason: 'no_owner_answered', settings: S }, stateOf(after), NOW), [], 'a taken call is never missed')
})

t.test('a missed call brings the pending follow-up forward to now, inside calling hours; outside them, to the first allowed moment', async (t) => {
  const given = [...pending(), ...leadDecider.decide(receive(), stateOf(pending()), NOW)]
  t.match(stateOf(given).dialing.pendingFollowUp, { dueAt: plus(NOW, HOUR).toISOString() })
  const missed = leadDecider.decide({ type: 'MissInboundCall', callId: 'CA_in1', reason: 'no_owner_answered', settings: S }, stateOf(given), NOW)
  t.same(types(missed), ['InboundCallMissed', 'FollowUpRescheduled'])
  t.match(missed[1], { data: { dueAt: NOW.toISOString(), reason: 'called_in' } })
  t.same(leadDecider.decide({ type: 'MissInboundCall', callId: 'CA_in1', reason: 'no_owner_answered', settings: S }, stateOf([...given, ...missed]), NOW), [], 'missed once')

  // Tuesday 22:00 in New York, follow-up due Wednesday 11:00: the calling hours (mon-fri 09:00-18:00) open Wednesday 09:00.
  const daily = { ...S, followUp: '1d' }
  const late = play([[NOW, receive()]], pending(daily))
  t.match(stateOf(late).dialing.pendingFollowUp, { dueAt: '2026-03-11T15:00:00.000Z' })
  const night = new Date('2026-03-11T02:00:00Z')
  const atNight = leadDecider.decide({ type: 'EndInboundCall', callId: 'CA_in1', status: 'completed', durationSeconds: 20, settings: daily }, stateOf(late), night)
  t.same(types(atNight), ['InboundCallMissed', 'InboundCallEnded', 'FollowUpRescheduled'], 'the caller hung up: missed as caller_hung_up')
  t.match(atNight[0], { data: { reason: 'caller_hung_up' } })
  t.match(atNight[2], { data: { dueAt: '2026-03-11T13:00:00.000Z' } }, 'Wednesday 09:00 in New York, never the night')
})

t.test('a do-not-call caller is answered and stays do-not-call; their follow-up is not brought forward', async (t) => {
  const dnc = play([[NOW, { type: 'MarkDoNotCall' }]], pending())
  const events = play([
    [NOW, receive()],
    [NOW, { type: 'MissInboundCall', callId: 'CA_in1', reason: 'outside_business_hours', settings: S }],
    [NOW, { type: 'RequestInboundCallback', callId: 'CA_in1' }],
    [NOW, { type: 'RecordInboundVoicemail', callId: 'CA_in1', durationSeconds: 14.6 }],
  ], dnc).slice(dnc.length)
  t.same(types(events), ['InboundCallReceived', 'InboundCallMissed', 'InboundCallbackRequested', 'InboundVoicemailLeft'])
  t.ok(stateOf([...dnc, ...events]).doNotCall)
  t.match(events[3], { data: { durationSeconds: 15 } })
  for (const e of events) t.notMatch(JSON.stringify(e), /https?:|recording/i, 'no recording or URL on the log')
  t.type(LEAD_SUMMARIES.InboundCallbackRequested, 'function')
})

t.test('the assistant on an inbound call: its session opens once, only while the call is live, and takes the call', async (t) => {
  const given = [...pending(), ...leadDecider.decide(receive(), stateOf(pending()), NOW)]
  const decisionId = inboundDecisionId('CA_in1')
  t.throws(() => leadDecider.decide({ type: 'OpenAssistantSession', decisionId, callId: 'CA_other', node: 'n1' }, stateOf(given), NOW), { code: 'call_not_live' })
  const opened = leadDecider.decide({ type: 'OpenAssistantSession', decisionId, callId: 'CA_in1', node: 'n1' }, stateOf(given), NOW)
  t.same(types(opened), ['AssistantSessionOpened', 'InboundCallConnected', 'FollowUpStopped'])
  t.match(opened[1], { data: { by: 'assistant', leg: null } })
  t.throws(() => leadDecider.decide({ type: 'OpenAssistantSession', decisionId, callId: 'CA_in1', node: 'n1' }, stateOf([...given, ...opened]), NOW), { code: 'call_not_live' })
})
