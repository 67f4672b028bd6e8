/**
 * When the phone is answered (issue #26): machine detection's verdict, the voicemail and its daily
 * limit, the menu's keys, the callback and the owner's leg. Histories are made by the decider itself.
 */
import t from 'tap'
import { DEFAULT_SETTINGS, type AccountSettings } from '../../../../src/domain/account/account-settings.ts'
import { leadDecider, type LeadCommand } from '../../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../../src/domain/lead/lead.events.ts'
import { leadFields as fields, play, plus, stateOf, types } from '../../../helpers/lead-play.ts'
import { CALLBACK_AFTER_MS } from '../../../../src/domain/lead/calls/calls.decider.ts'
import { renderVoicemail, spokenNumber, voicemailTemplateProblem } from '../../../../src/domain/dialing/voicemail.ts'
import { validateSettingsChange } from '../../../../src/domain/account/account-settings.ts'

const NOW = new Date('2026-03-10T15:00:00Z') // a Tuesday, 11:00 in New York
const CALLER_ID = '+13125550100'
const PHONE = '+13125550142'
const ON: AccountSettings = { ...DEFAULT_SETTINGS, speedToLead: true, callerId: CALLER_ID, leadTimeGuard: false, callingHours: 'mon-sun 00:00-24:00' }
const MIN = 60_000
const HOUR = 60 * MIN


/** A new lead rung by speed to lead with machine detection, placed as call CA1. */
function placed(settings: AccountSettings = ON, callId = 'CA1', at = NOW): LeadEvent[] {
  const received = play([[at, { type: 'ReceiveLead', accountId: 'acc_1', newLeadId: 'ld_1', fields: fields(), speedToLead: { settings, decisionId: 'dec_1' } } as LeadCommand]])
  return [
    ...received,
    { type: 'CallAttemptStarted', data: { decisionId: 'dec_1', node: 'n1', startedAt: at.toISOString() } },
    { type: 'CallPlaced', data: { decisionId: 'dec_1', callId, carrier: 'twilio', placedAt: at.toISOString(), machineDetection: settings.amd } },
  ]
}
const verdict = (answeredBy: string, settings: AccountSettings = ON, callId = 'CA1'): LeadCommand => ({ type: 'RecordAnsweredBy', settings, callId, answeredBy, node: 'n1' })
const status = (callStatus: string, durationSeconds?: number, callId = 'CA1', settings: AccountSettings = ON): LeadCommand =>
  ({ type: 'RecordCallStatus', settings, update: { callId, status: callStatus, timestamp: '', carrier: 'twilio', ...(durationSeconds !== undefined ? { durationSeconds } : {}) } }) as LeadCommand
const key = (digit: string, ownerNumber: string | null = '+13125550199', settings: AccountSettings = ON): LeadCommand => ({ type: 'PressMenuKey', settings, decisionId: 'dec_1', digit, ownerNumber })

t.test('a machine is not an answer: follow-up is scheduled at once, a voicemail is claimed, the call ends not answered', async (t) => {
  const start = placed()
  const afterVerdict = play([[plus(NOW, 20_000), verdict('machine_end_beep')]], start)
  t.same(types(afterVerdict.slice(start.length)), ['CallReachedMachine', 'FollowUpScheduled', 'VoicemailStarted'])
  t.match(afterVerdict.at(-1), { data: { decisionId: 'dec_1', callId: 'CA1', node: 'n1', message: 'text' } })
  const done = play([[plus(NOW, 21_000), { type: 'RecordVoicemailOutcome', decisionId: 'dec_1', failure: null }], [plus(NOW, 40_000), status('completed', 38)]], afterVerdict)
  t.same(types(done.slice(afterVerdict.length)), ['VoicemailLeft', 'CallNotAnswered'], 'no second follow-up, never FollowUpStopped(answered)')
  t.match(done.at(-1), { data: { status: 'machine' } })
  const state = stateOf(done)
  t.equal(state.dialing.answeredAt, null, 'not answered')
  t.ok(state.dialing.pendingFollowUp, 'follow-up goes on')
  t.match(state.dialing.calls.dec_1, { machine: true, answeredBy: 'machine_end_beep', voicemail: 'left', ended: true })
})

t.test('each answeredBy value', async (t) => {
  for (const answeredBy of ['human', 'unknown']) {
    const events = play([[NOW, verdict(answeredBy)]], placed())
    t.match(events.at(-1), { type: 'CallAnswered', data: { answeredBy } }, `${answeredBy}: answered`)
  }
  for (const [answeredBy, next] of [
    ['machine_end_beep', 'VoicemailStarted'], ['machine_end_silence', 'VoicemailStarted'], ['machine_end_other', 'VoicemailStarted'],
    ['machine_start', 'VoicemailSkipped'], ['fax', 'VoicemailSkipped'],
  ] as const) {
    const events = play([[NOW, verdict(answeredBy)]], placed())
    t.equal(events.find((e) => e.type === 'CallReachedMachine')?.type, 'CallReachedMachine', `${answeredBy}: a machine`)
    t.equal(events.at(-1)?.type, next, `${answeredBy}: ${next}`)
  }
  t.match(play([[NOW, verdict('fax')]], placed()).at(-1), { data: { reason: 'fax' } })
  t.match(play([[NOW, verdict('machine_start')]], placed()).at(-1), { data: { reason: 'no_message_end' } })
})

t.test('a verdict is taken once; a late or repeated one changes nothing', async (t) => {
  const once = play([[NOW, verdict('machine_end_beep')]], placed())
  t.same(leadDecider.decide(verdict('machine_end_beep'), stateOf(once), NOW), [], 'a repeated callback: one voicemail')
  t.same(leadDecider.decide(verdict('human'), stateOf(once), NOW), [], 'a contradicting one')
  const ended = play([[NOW, status('no-answer')]], placed())
  t.same(leadDecider.decide(verdict('human'), stateOf(ended), NOW), [], 'after the call ended')
})

t.test('at most voicemailPerDay voicemails to one lead in any 24 hours; 0 turns them off', async (t) => {
  let events = play([[NOW, verdict('machine_end_beep')], [NOW, status('completed', 30)]], placed())
  // The follow-up call an hour later reaches the machine again.
  events = [
    ...events,
    { type: 'CallDecided', data: { leadId: 'ld_1', decisionId: 'dec_2', purpose: 'follow_up', attempt: 2, from: CALLER_ID, to: PHONE, decidedAt: plus(NOW, HOUR).toISOString(), idempotencyKey: null } },
    { type: 'CallAttemptStarted', data: { decisionId: 'dec_2', node: 'n1', startedAt: plus(NOW, HOUR).toISOString() } },
    { type: 'CallPlaced', data: { decisionId: 'dec_2', callId: 'CA2', carrier: 'twilio', placedAt: plus(NOW, HOUR).toISOString(), machineDetection: true } },
  ]
  const second = leadDecider.decide(verdict('machine_end_beep', ON, 'CA2'), stateOf(events), plus(NOW, HOUR))
  t.match(second.at(-1), { type: 'VoicemailSkipped', data: { reason: 'voicemail_limit', message: 'at most 1 voicemail to one lead in any 24 hours' } })
  const two = leadDecider.decide(verdict('machine_end_beep', { ...ON, voicemailPerDay: 2 }, 'CA2'), stateOf(events), plus(NOW, HOUR))
  t.equal(two.at(-1)?.type, 'VoicemailStarted', 'with 2 a day, a second')
  const nextDay = leadDecider.decide(verdict('machine_end_beep', ON, 'CA2'), stateOf(events), plus(NOW, 24 * HOUR + 1000))
  t.equal(nextDay.at(-1)?.type, 'VoicemailStarted', 'a day later, another')
  const off = play([[NOW, verdict('machine_end_beep', { ...ON, voicemailPerDay: 0 })]], placed())
  t.match(off.at(-1), { type: 'VoicemailSkipped', data: { reason: 'voicemail_off' } })
})

t.test('machine detection on: in-progress is not an answer; a call that ends after a conversation with no verdict is answered by unknown', async (t) => {
  const start = placed()
  t.same(leadDecider.decide(status('in-progress'), stateOf(start), NOW), [], 'in-progress alone: no answer yet')
  const talked = play([[NOW, status('in-progress')], [plus(NOW, MIN), status('completed', 45)]], start)
  t.same(types(talked.slice(start.length)), ['CallAnswered', 'CallCompleted'])
  t.match(talked.at(-2), { data: { answeredBy: 'unknown' } })
  // Machine detection off (the account's choice): in-progress is an answer, as before.
  const off = placed({ ...ON, amd: false })
  t.match(leadDecider.decide(status('in-progress', undefined, 'CA1', { ...ON, amd: false }), stateOf(off), NOW), [{ type: 'CallAnswered', data: { answeredBy: null } }])
})

t.test('a status callback that carries a machine verdict ends the call not answered and follows up', async (t) => {
  const start = placed()
  const events = leadDecider.decide({ ...status('completed', 20), update: { callId: 'CA1', status: 'completed', durationSeconds: 20, answeredBy: 'machine_end_beep', timestamp: '', carrier: 'twilio' } } as LeadCommand, stateOf(start), NOW)
  t.same(types(events), ['CallReachedMachine', 'CallNotAnswered', 'FollowUpScheduled'])
})

t.test('menu: 1 connects the owner, the owner leg records whether they talked', async (t) => {
  const start = play([[NOW, verdict('human')]], placed())
  const pressed = play([[NOW, key('1')]], start)
  t.same(types(pressed.slice(start.length)), ['MenuKeyPressed'])
  t.match(pressed.at(-1), { data: { digit: '1', choice: 'connect' } })
  t.same(leadDecider.decide(key('1'), stateOf(pressed), NOW), [], 'a repeated key: nothing')
  const ended = play([[NOW, { type: 'RecordOwnerConnect', decisionId: 'dec_1', status: 'no-answer', durationSeconds: 0 }]], pressed)
  t.match(ended.at(-1), { type: 'OwnerConnectEnded', data: { connected: false, status: 'no-answer' } })
  t.same(leadDecider.decide({ type: 'RecordOwnerConnect', decisionId: 'dec_1', status: 'completed', durationSeconds: 30 }, stateOf(ended), NOW), [], 'once')
  const talked = play([[NOW, { type: 'RecordOwnerConnect', decisionId: 'dec_1', status: 'completed', durationSeconds: 30 }]], pressed)
  t.match(talked.at(-1), { data: { connected: true } })
  t.match(play([[NOW, key('1', null)]], start).at(-1), { data: { digit: '1', choice: 'none' } }, 'no owner number: 1 is no choice')
})

t.test('menu: a key before the verdict is a person answering', async (t) => {
  const events = play([[NOW, key('7')]], placed())
  t.same(types(events.slice(-2)), ['CallAnswered', 'MenuKeyPressed'])
  t.match(events.at(-2), { data: { answeredBy: 'human' } })
  t.match(events.at(-1), { data: { digit: '7', choice: 'none' } })
  t.match(play([[NOW, key('<Say>')]], placed()).at(-1), { data: { digit: '', choice: 'none' } }, 'only a key is recorded')
  const machine = play([[NOW, verdict('machine_end_beep')]], placed())
  t.same(leadDecider.decide(key('1'), stateOf(machine), NOW), [], 'keys on a machine are ignored')
})

t.test('menu: 2 asks for a callback an hour later inside calling hours, and follow-up calls then', async (t) => {
  const start = play([[NOW, verdict('human')]], placed())
  const events = play([[NOW, key('2')]], start)
  t.same(types(events.slice(start.length)), ['MenuKeyPressed', 'CallbackRequested', 'FollowUpScheduled'])
  const due = plus(NOW, CALLBACK_AFTER_MS).toISOString()
  t.match(events.at(-2), { data: { callbackAt: due } })
  t.match(events.at(-1), { data: { dueAt: due, attempt: 2, afterDecisionId: 'dec_1' } })
  const done = play([[plus(NOW, MIN), status('completed', 60)]], events)
  t.same(types(done.slice(events.length)), ['CallCompleted'], 'the answered call ends without stopping the callback')
  const claimed = leadDecider.decide({ type: 'ClaimFollowUp', settings: ON, attempt: 2, decisionId: 'dec_2' }, stateOf(done), plus(NOW, CALLBACK_AFTER_MS))
  t.match(claimed, [{ type: 'CallDecided', data: { purpose: 'follow_up', decisionId: 'dec_2' } }], 'called back although the lead answered before')
  // Late in the evening the callback moves to the next opening of calling hours.
  const hours: AccountSettings = { ...ON, callingHours: 'mon-fri 09:00-18:00' }
  const evening = new Date('2026-03-10T21:30:00Z') // 17:30 in New York
  const late = play([[evening, verdict('human', hours)], [evening, key('2', null, hours)]], placed(hours, 'CA1', evening))
  t.match(late.find((e) => e.type === 'CallbackRequested'), { data: { callbackAt: '2026-03-11T13:00:00.000Z' } }, 'Wednesday 09:00 in New York')
})

t.test('menu: 9 opts out: do-not-call from the lead, follow-up stopped', async (t) => {
  const start = play([[NOW, verdict('human')], [NOW, key('2')]], placed())
  const events = play([[NOW, key('9')]], play([[NOW, verdict('human')]], placed()))
  t.same(types(events.slice(-2)), ['MenuKeyPressed', 'LeadMarkedDoNotCall'])
  t.match(events.at(-1), { data: { source: 'in_call_keypress' } })
  t.equal(stateOf(events).doNotCall, true)
  // With a follow-up pending (a callback asked for on an earlier call), it stops.
  const pending = [
    ...start,
    { type: 'CallDecided', data: { leadId: 'ld_1', decisionId: 'dec_9', purpose: 'place_call', attempt: 2, from: CALLER_ID, to: PHONE, decidedAt: NOW.toISOString(), idempotencyKey: 'k' } },
    { type: 'CallAttemptStarted', data: { decisionId: 'dec_9', node: 'n1', startedAt: NOW.toISOString() } },
    { type: 'CallPlaced', data: { decisionId: 'dec_9', callId: 'CA9', carrier: 'twilio', placedAt: NOW.toISOString(), machineDetection: true } },
  ] as LeadEvent[]
  const stopped = leadDecider.decide({ type: 'PressMenuKey', settings: ON, decisionId: 'dec_9', digit: '9', ownerNumber: null }, stateOf(pending), NOW)
  t.same(types(stopped), ['CallAnswered', 'FollowUpStopped', 'MenuKeyPressed', 'LeadMarkedDoNotCall'], 'the answer stops the pending follow-up')
  const after = stateOf([...pending, ...stopped])
  t.equal(after.dialing.pendingFollowUp, null)
  t.equal(after.doNotCall, true)
  // 9 on the first key of a call while a follow-up is pending and the call was already answered.
  const answered = play([[NOW, { type: 'PressMenuKey', settings: ON, decisionId: 'dec_9', digit: '5', ownerNumber: null }]], pending)
  const late = [...answered, { type: 'FollowUpScheduled', data: { leadId: 'ld_1', attempt: 3, dueAt: plus(NOW, HOUR).toISOString(), afterDecisionId: 'dec_9' } }] as LeadEvent[]
  const first = [...late.filter((e) => !(e.type === 'MenuKeyPressed' && e.data.decisionId === 'dec_9'))]
  const optOut = leadDecider.decide({ type: 'PressMenuKey', settings: ON, decisionId: 'dec_9', digit: '9', ownerNumber: null }, stateOf(first), NOW)
  t.same(types(optOut), ['MenuKeyPressed', 'LeadMarkedDoNotCall', 'FollowUpStopped'])
  t.match(optOut.at(-1), { data: { reason: 'do_not_call' } })
})

t.test('voicemail text: placeholders, the callback number read in groups, bad templates refused', async (t) => {
  t.equal(
    renderVoicemail('Hi {first_name}, {business} here: {callback_number}. {unknown}', { firstName: null, business: 'Acme', callbackNumber: '+15125550100' }),
    'Hi there, Acme here: 5 1 2, 5 5 5, 0 1 0 0. {unknown}',
  )
  t.equal(spokenNumber('+442071838750'), '4 4 2 0 7 1 8 3 8 7 5 0')
  t.equal(voicemailTemplateProblem('Hi {name}'), 'unknown placeholder {name} (use {first_name}, {business}, {callback_number})')
  t.equal(voicemailTemplateProblem('  '), 'must not be empty')
  t.throws(() => validateSettingsChange({ voicemail: 'x'.repeat(601) }), { code: 'invalid_setting' })
  t.throws(() => validateSettingsChange({ voicemailUrl: 'ftp://x.test/a.mp3' }), { code: 'invalid_setting' })
  t.throws(() => validateSettingsChange({ voicemailPerDay: 6 }), { code: 'invalid_setting' })
  t.same(validateSettingsChange({ amd: false, voicemailPerDay: 0, voicemailUrl: 'https://x.test/vm.mp3' }), { amd: false, voicemailPerDay: 0, voicemailUrl: 'https://x.test/vm.mp3' })
})

t.test('a verdict carried by an in-progress status callback is taken as its own callback would be', async (t) => {
  const start = placed()
  const update = { callId: 'CA1', status: 'in-progress', answeredBy: 'machine_end_silence', timestamp: '', carrier: 'twilio' }
  const events = leadDecider.decide({ type: 'RecordCallStatus', settings: ON, update, node: 'n2' } as LeadCommand, stateOf(start), NOW)
  t.same(types(events), ['CallReachedMachine', 'FollowUpScheduled', 'VoicemailStarted'])
  t.match(events.at(-1), { data: { node: 'n2' } })
  const human = leadDecider.decide({ type: 'RecordCallStatus', settings: ON, update: { ...update, answeredBy: 'human' } } as LeadCommand, stateOf(start), NOW)
  t.match(human, [{ type: 'CallAnswered', data: { answeredBy: 'human' } }])
})
