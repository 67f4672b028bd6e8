/**
 * A lead who asks for a person and reaches nobody (issue #40 item 12c): menu key 1 and the assistant's
 * transfer alike record the missed connect and schedule the call back (an hour on, inside the hours),
 * and follow-up makes that call although the lead answered.
 */
import t from 'tap'
import { DEFAULT_SETTINGS, type AccountSettings } from '../../../../src/domain/account/account-settings.ts'
import { leadDecider, type LeadCommand } from '../../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../../src/domain/lead/lead.events.ts'
import { leadFields as fields, play, plus, stateOf, types } from '../../../helpers/lead-play.ts'

const NOW = new Date('2026-03-10T15:00:00Z') // a Tuesday, 11:00 in New York
const OWNER = '+13125550199'
const ON: AccountSettings = { ...DEFAULT_SETTINGS, speedToLead: true, callerId: '+13125550100', leadTimeGuard: false, callingHours: 'mon-sun 00:00-24:00' }
const HOUR = 60 * 60_000

function placed(): LeadEvent[] {
  const received = play([[NOW, { type: 'ReceiveLead', accountId: 'acc_1', newLeadId: 'ld_1', fields: fields(), speedToLead: { settings: ON, decisionId: 'dec_1' } } as LeadCommand]])
  return [
    ...received,
    { type: 'CallAttemptStarted', data: { decisionId: 'dec_1', node: 'n1', startedAt: NOW.toISOString() } },
    { type: 'CallPlaced', data: { decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio', placedAt: NOW.toISOString(), machineDetection: true } },
    { type: 'CallAnswered', data: { decisionId: 'dec_1', callId: 'CA1', answeredBy: 'human', at: plus(NOW, 10_000).toISOString() } },
  ]
}
const ownerDial = (status: string, settings: AccountSettings | undefined = ON): LeadCommand =>
  ({ type: 'RecordOwnerConnect', decisionId: 'dec_1', status, durationSeconds: status === 'completed' ? 60 : 0, ...(settings === undefined ? {} : { settings }) })

/** The assistant's call ended by handing the call over. */
const transferred = (): LeadEvent => ({
  type: 'AssistantCallEnded',
  data: { decisionId: 'dec_1', callId: 'CA1', disposition: 'transferred', answers: [], callbackAt: null, why: 'the assistant handed the call to a person', provider: 'scripted', turns: 2, endedAt: plus(NOW, 60_000).toISOString() },
})

t.test('menu key 1, then no one: connect missed, and the lead is called back an hour on', async (t) => {
  const pressed = play([[plus(NOW, 20_000), { type: 'PressMenuKey', settings: ON, decisionId: 'dec_1', digit: '1', ownerNumber: OWNER }]], placed())
  const missed = play([[plus(NOW, 50_000), ownerDial('no-answer')]], pressed).slice(pressed.length)
  t.same(types(missed), ['OwnerConnectEnded', 'FollowUpScheduled'])
  t.match(missed[1], { data: { afterDecisionId: 'dec_1', connectMissed: true, dueAt: plus(NOW, 50_000 + HOUR).toISOString() } })
  const history = [...pressed, ...missed]
  const claimed = leadDecider.decide({ type: 'ClaimFollowUp', settings: ON, attempt: 2, decisionId: 'dec_2' }, stateOf(history), plus(NOW, 50_000 + HOUR))
  t.match(claimed, [{ type: 'CallDecided', data: { decisionId: 'dec_2', purpose: 'follow_up' } }], 'the call back goes out although the lead answered')
  t.same(types(play([[plus(NOW, 50_000), ownerDial('completed')]], pressed).slice(pressed.length)), ['OwnerConnectEnded'], 'a connect that talked schedules nothing')
})

t.test("the assistant's transfer, then no one: recorded as menu key 1's is, with the call back", async (t) => {
  const start = [...placed(), transferred()]
  const missed = play([[plus(NOW, 90_000), ownerDial('busy')]], start).slice(start.length)
  t.same(types(missed), ['OwnerConnectEnded', 'FollowUpScheduled'])
  t.match(missed, [{ data: { decisionId: 'dec_1', connected: false, status: 'busy' } }, { data: { connectMissed: true } }])
  t.equal(stateOf([...start, ...missed]).dialing.calls.dec_1?.ownerConnected, false)
  t.same(play([[plus(NOW, 91_000), ownerDial('busy')]], [...start, ...missed]).length, start.length + missed.length, 'a repeat records nothing')
  t.same(types(play([[plus(NOW, 90_000), ownerDial('completed')]], start).slice(start.length)), ['OwnerConnectEnded'], 'a transfer that connected: only that')
})

t.test('no owner-dial outcome is recorded for a call that asked for no connect', async (t) => {
  const start = placed()
  t.same(leadDecider.decide(ownerDial('no-answer'), stateOf(start), plus(NOW, 30_000)), [])
})

t.test('a do-not-call lead is not called back', async (t) => {
  const start = [...placed(), transferred(), { type: 'LeadMarkedDoNotCall', data: { leadId: 'ld_1', source: 'assistant_call', markedAt: plus(NOW, 70_000).toISOString() } } as LeadEvent]
  const state = stateOf(start)
  t.equal(state.doNotCall, true)
  t.same(types(leadDecider.decide(ownerDial('no-answer'), state, plus(NOW, 90_000))), ['OwnerConnectEnded'])
})
