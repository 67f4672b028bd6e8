/**
 * Agent-first calling (issue #26, must-have 4), given/when/then on the lead decider: the owner's legs
 * are rung first, the lead is dialed only after a 1 and a fresh may-call check, and every owner leg
 * that gives no yes is recorded and followed by the next owner number or by follow-up.
 */
import t from 'tap'
import { DEFAULT_SETTINGS, type AccountSettings } from '../../../../src/domain/account/account-settings.ts'
import { leadDecider, type LeadCommand } from '../../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../../src/domain/lead/lead.events.ts'
import { leadFields as fields, play, plus, stateOf, types } from '../../../helpers/lead-play.ts'
import { leadFieldsLine, ownerLegNumber } from '../../../../src/domain/lead/calls/agent-first.ts'
import { LEAD_SUMMARIES } from '../../../../src/domain/lead/lead.events.ts'

const NOW = new Date('2026-03-10T15:00:00Z') // a Tuesday, 11:00 in New York
const CALLER_ID = '+13125550100'
const PHONE = '+13125550142'
const OWNER_1 = '+13125550199'
const OWNER_2 = '+13125550198'
const AGENT: AccountSettings = {
  ...DEFAULT_SETTINGS, speedToLead: true, callerId: CALLER_ID, leadTimeGuard: false, callingHours: 'mon-sun 00:00-24:00', onAnswer: `agent-first:${OWNER_1},${OWNER_2}`,
}
const ONE_OWNER: AccountSettings = { ...AGENT, onAnswer: `agent-first:${OWNER_1}` }

const after = (start: readonly LeadEvent[], steps: ReadonlyArray<readonly [Date, LeadCommand]>) => play(steps, start).slice(start.length)

/** A new lead whose speed-to-lead decision rang owner number 1 first, placed as call CA1 (the dialer's claim and record). */
function ownerRung(settings: AccountSettings = AGENT): LeadEvent[] {
  return play([
    [NOW, { type: 'ReceiveLead', accountId: 'acc_1', newLeadId: 'ld_1', fields: fields(), speedToLead: { settings, decisionId: 'dec_1' } } as LeadCommand],
    [NOW, { type: 'StartCallAttempt', decisionId: 'dec_1', node: 'n1', settings }],
    [NOW, { type: 'RecordCallPlaced', decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio', ownerLeg: 0, to: OWNER_1 }],
  ])
}
const key = (digit: string, callId = 'CA1', settings: AccountSettings = AGENT): LeadCommand => ({ type: 'PressAgentKey', settings, decisionId: 'dec_1', callId, digit, node: 'n1' })
const status = (callStatus: string, callId = 'CA1', extra: { durationSeconds?: number; answeredBy?: string } = {}, settings: AccountSettings = AGENT): LeadCommand =>
  ({ type: 'RecordCallStatus', settings, node: 'n1', update: { callId, status: callStatus, timestamp: '', carrier: 'twilio', ...extra } }) as LeadCommand
const verdict = (answeredBy: string, callId = 'CA1', settings: AccountSettings = AGENT): LeadCommand => ({ type: 'RecordAnsweredBy', settings, callId, answeredBy, node: 'n1' })
const leadDial = (dialStatus: string, settings: AccountSettings = AGENT): LeadCommand => ({ type: 'RecordLeadDial', settings, decisionId: 'dec_1', status: dialStatus })

t.test('the owner is rung first: their leg is recorded as owner leg 0, and is no contact with the lead', async (t) => {
  t.equal(ownerLegNumber(AGENT, 0), OWNER_1)
  t.equal(ownerLegNumber(AGENT, 1), OWNER_2)
  t.equal(ownerLegNumber(AGENT, 2), null, 'no third number')
  t.equal(ownerLegNumber({ ...AGENT, onAnswer: 'greeting' }, 0), null, 'another mode rings the lead')
  const events = ownerRung()
  t.match(events.at(-1), { type: 'CallPlaced', data: { callId: 'CA1', ownerLeg: 0, to: OWNER_1 } })
  const state = stateOf(events)
  t.match(state.dialing.calls.dec_1, { callId: 'CA1', agent: { leg: 0, ownerCallIds: ['CA1'], phase: 'owner' } })
  t.equal(state.dialing.lastContactAt, null, 'the lead has not been contacted')
  t.equal(LEAD_SUMMARIES.CallPlaced(events.at(-1)?.data as never), `call placed to owner number 1 (${OWNER_1}), before the lead, through twilio (call CA1)`)
})

t.test('the owner picking up is not the lead answering, with or without machine detection', async (t) => {
  for (const settings of [AGENT, { ...AGENT, amd: false }]) {
    const start = ownerRung(settings)
    t.same(after(start, [[NOW, status('ringing', 'CA1', {}, settings)], [NOW, status('in-progress', 'CA1', {}, settings)], [NOW, verdict('human', 'CA1', settings)]]), [], `amd ${settings.amd}`)
  }
})

t.test('1 on the live owner leg: the lead is checked again and dialed once; the dial answered connects them', async (t) => {
  const start = ownerRung()
  const pressed = after(start, [[plus(NOW, 20_000), key('1')]])
  t.same(pressed, [{ type: 'LeadDialStarted', data: { decisionId: 'dec_1', callId: 'CA1', leg: 0, to: PHONE, at: plus(NOW, 20_000).toISOString() } }])
  const dialing = [...start, ...pressed]
  t.same(leadDecider.decide(key('1'), stateOf(dialing), plus(NOW, 21_000)), [], 'a repeated 1 dials no one again')
  t.same(leadDecider.decide(key('2'), stateOf(dialing), plus(NOW, 21_000)), [], 'nor does any later key')
  t.equal(stateOf(dialing).dialing.lastContactAt, plus(NOW, 20_000).toISOString(), 'the dial of the lead is the contact')

  const connected = after(dialing, [[plus(NOW, 90_000), leadDial('completed')]])
  t.same(types(connected), ['CallAnswered', 'OwnerConnectEnded'])
  t.match(connected, [{ data: { callId: 'CA1', answeredBy: 'human' } }, { data: { connected: true, status: 'completed' } }])
  const done = [...dialing, ...connected]
  t.same(leadDecider.decide(leadDial('completed'), stateOf(done), plus(NOW, 91_000)), [], 'a repeated dial result: nothing twice')
  const ended = after(done, [[plus(NOW, 95_000), status('completed', 'CA1', { durationSeconds: 75 })]])
  t.same(types(ended), ['CallCompleted'], "the owner's leg ending completes the call")
  t.same(after([...done, ...ended], [[plus(NOW, 96_000), status('completed', 'CA1', { durationSeconds: 75 })]]), [], 'and its repeat changes nothing')
  t.match(stateOf([...done, ...ended]).dialing, { answeredAt: plus(NOW, 90_000).toISOString(), calls: { dec_1: { answered: true, ownerConnected: true, ended: true } } })
})

t.test('the lead not reached after 1: not answered, follow-up goes on; the owner leg ending later changes nothing', async (t) => {
  for (const dialStatus of ['busy', 'no-answer', 'failed']) {
    const dialing = play([[NOW, key('1')]], ownerRung())
    const result = after(dialing, [[plus(NOW, 30_000), leadDial(dialStatus)]])
    t.same(types(result), ['CallNotAnswered', 'FollowUpScheduled'], dialStatus)
    t.match(result[0], { data: { callId: 'CA1', status: dialStatus } })
    t.same(after([...dialing, ...result], [[plus(NOW, 31_000), status('completed', 'CA1', { durationSeconds: 30 })]]), [], `${dialStatus}: the owner leg's end`)
  }
  // No dial result ever came (Twilio reports it before the owner's leg ends): the owner leg's end counts the lead as not reached.
  const lost = after(play([[NOW, key('1')]], ownerRung()), [[plus(NOW, 60_000), status('completed', 'CA1', { durationSeconds: 50 })]])
  t.same(types(lost), ['CallNotAnswered', 'FollowUpScheduled'])
})

t.test('no yes from owner number 1: recorded with its reason, and owner number 2 is rung for the same decision', async (t) => {
  const cases: Array<[string, LeadCommand, string]> = [
    ['a decline', key('2'), 'declined'],
    ['no key before the timeout', key(''), 'no_key'],
    ['a key that is not one', key('12'), 'no_key'],
    ['no answer', status('no-answer'), 'no_answer'],
    ['canceled', status('canceled'), 'no_answer'],
    ['busy', status('busy'), 'busy'],
    ['a failed call', status('failed'), 'call_failed'],
    ['a hang-up before any key', status('completed', 'CA1', { durationSeconds: 4 }), 'no_key'],
    ["the owner's voicemail (machine detection)", verdict('machine_end_beep'), 'owner_voicemail'],
    ["the owner's voicemail (on a status)", status('in-progress', 'CA1', { answeredBy: 'machine_start' }), 'owner_voicemail'],
  ]
  for (const [what, command, reason] of cases) {
    const events = after(ownerRung(), [[NOW, command]])
    t.same(types(events), ['AgentUnavailable', 'OwnerLegStarted'], what)
    t.match(events, [{ data: { decisionId: 'dec_1', callId: 'CA1', leg: 0, reason, nextLeg: 1 } }, { data: { decisionId: 'dec_1', leg: 1, to: OWNER_2, node: 'n1' } }], what)
  }
  t.same(after(ownerRung(), [[NOW, verdict('human')]]), [], 'a person on the owner leg: wait for the key')
})

t.test('the next leg is claimed before the carrier is asked, recorded with its own call id; the earlier leg is done with', async (t) => {
  const declined = play([[NOW, key('2')]], ownerRung())
  const claimed = stateOf(declined).dialing.calls.dec_1
  t.match(claimed, { stage: 'started', agent: { leg: 1, phase: 'placing' }, ended: false })
  t.same(leadDecider.decide(key('1'), stateOf(declined), NOW), [], 'no key counts while the next leg is being placed')
  const placed = play([[NOW, { type: 'RecordCallPlaced', decisionId: 'dec_1', callId: 'CA2', carrier: 'twilio', ownerLeg: 1, to: OWNER_2 }]], declined)
  t.match(placed.at(-1), { type: 'CallPlaced', data: { callId: 'CA2', ownerLeg: 1, to: OWNER_2 } })
  t.match(stateOf(placed).dialing.calls.dec_1, { stage: 'placed', callId: 'CA2', agent: { leg: 1, ownerCallIds: ['CA1', 'CA2'], phase: 'owner' } })
  t.same(after(placed, [[NOW, status('completed', 'CA1', { durationSeconds: 9 })]]), [], "owner 1's late status changes nothing")
  t.same(after(placed, [[NOW, key('1', 'CA1')]]), [], "owner 1's late key dials no one")
  t.same(after(placed, [[NOW, verdict('machine_end_beep', 'CA1')]]), [], "owner 1's late verdict")

  // Owner 2 is the last: their voicemail ends the call, the lead is followed up, never stopped as answered.
  const last = after(placed, [[plus(NOW, 30_000), verdict('machine_end_silence', 'CA2')]])
  t.same(types(last), ['AgentUnavailable', 'FollowUpScheduled'])
  t.match(last[0], { data: { callId: 'CA2', leg: 1, reason: 'owner_voicemail', nextLeg: null } })
  t.match(last[1], { data: { attempt: 2, afterDecisionId: 'dec_1' } })
  const over = [...placed, ...last]
  t.match(stateOf(over).dialing, { answeredAt: null, calls: { dec_1: { ended: true, answered: false } } })
  t.same(after(over, [[NOW, status('completed', 'CA2', { durationSeconds: 20 })]]), [], 'the hung-up leg ending changes nothing')
  t.notOk(types(over).includes('LeadDialStarted'), 'the lead was never dialed')
  t.notOk(over.some((e) => e.type === 'FollowUpStopped'), 'never FollowUpStopped(answered)')
  t.equal(LEAD_SUMMARIES.AgentUnavailable(last[0]?.data as never), "owner number 2 did not take the lead: the owner's voicemail answered (owner_voicemail); the lead was not dialed")
})

t.test('a single owner number: no yes ends the call and follow-up decides', async (t) => {
  const events = after(ownerRung(ONE_OWNER), [[NOW, key('3', 'CA1', ONE_OWNER)]])
  t.same(types(events), ['AgentUnavailable', 'FollowUpScheduled'])
  t.match(events[0], { data: { reason: 'declined', message: 'the owner pressed 3, not 1', nextLeg: null } })
  const off = after(ownerRung({ ...ONE_OWNER, followUp: 'off' }), [[NOW, key('', 'CA1', { ...ONE_OWNER, followUp: 'off' })]])
  t.match(off, [{ type: 'AgentUnavailable' }, { type: 'FollowUpStopped', data: { reason: 'policy_off' } }], 'follow-up off: stopped for that reason, not as answered')
})

t.test('1 pressed when the lead may no longer be called: not dialed, the reason recorded, no other owner woken', async (t) => {
  const start = ownerRung()
  // Calling hours closed between the owner's ring and the key (11:00 in New York; hours now end at 10:00).
  const closed = { ...AGENT, callingHours: 'mon-sun 09:00-10:00' }
  const events = after(start, [[NOW, key('1', 'CA1', closed)]])
  t.same(types(events), ['AgentUnavailable', 'FollowUpScheduled'])
  t.match(events[0], { data: { reason: 'lead_not_allowed', refusal: 'outside_calling_hours', nextLeg: null } })
  t.notOk(types(events).includes('LeadDialStarted'))
  const dnc = stateOf(start)
  const optedOut = leadDecider.decide(key('1'), { ...dnc, doNotCall: true }, NOW)
  t.match(optedOut, [{ type: 'AgentUnavailable', data: { reason: 'lead_not_allowed', refusal: 'do_not_call' } }, { type: 'FollowUpStopped', data: { reason: 'do_not_call' } }])
})

t.test('the next owner number is not rung when the lead may not be called any more', async (t) => {
  const closed = { ...AGENT, callingHours: 'mon-sun 09:00-10:00' }
  t.same(types(after(ownerRung(), [[NOW, status('no-answer', 'CA1', {}, closed)]])), ['AgentUnavailable', 'FollowUpScheduled'])
})

t.test('the carrier refusing the next owner leg: that owner is unavailable, the call goes on to follow-up', async (t) => {
  const declined = play([[NOW, key('2')]], ownerRung())
  const failed = after(declined, [[NOW, { type: 'RecordOwnerLegFailed', settings: AGENT, decisionId: 'dec_1', leg: 1, failure: 'rejected', message: 'invalid number', node: 'n1' }]])
  t.same(types(failed), ['AgentUnavailable', 'FollowUpScheduled'])
  t.match(failed[0], { data: { callId: null, leg: 1, reason: 'call_failed', nextLeg: null } })
  t.match(stateOf([...declined, ...failed]).dialing.calls.dec_1, { stage: 'placed', ended: true }, 'the claim has its outcome: nothing left for the sweep')
  t.same(after([...declined, ...failed], [[NOW, { type: 'RecordOwnerLegFailed', settings: AGENT, decisionId: 'dec_1', leg: 1, failure: 'rejected', message: 'x', node: 'n1' }]]), [], 'once')
})

t.test('a lead-first call is untouched by the agent-first commands', async (t) => {
  const greeting: AccountSettings = { ...AGENT, onAnswer: 'greeting' }
  const leadFirst = play([
    [NOW, { type: 'ReceiveLead', accountId: 'acc_1', newLeadId: 'ld_1', fields: fields(), speedToLead: { settings: greeting, decisionId: 'dec_1' } } as LeadCommand],
    [NOW, { type: 'StartCallAttempt', decisionId: 'dec_1', node: 'n1' }],
    [NOW, { type: 'RecordCallPlaced', decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio' }],
  ])
  t.same(after(leadFirst, [[NOW, key('1')]]), [])
  t.same(after(leadFirst, [[NOW, leadDial('completed')]]), [])
})

t.test("one line of the lead's fields for the whisper", async (t) => {
  t.equal(
    leadFieldsLine({ industryFields: { coverage_type: 'term life', coverage_amount: '500000' }, extraFields: [{ name: 'best time', value: 'evenings' }, { name: 'tags', value: ['a'] }], city: 'Austin', state: 'TX' }),
    'coverage type: term life, coverage amount: 500000, in Austin, TX, best time: evenings',
  )
  t.equal(leadFieldsLine({ industryFields: {}, extraFields: [], city: null, state: null }), null)
})
