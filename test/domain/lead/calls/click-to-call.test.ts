/**
 * Click-to-call (issue #44) in the calls slice: a place_call decision with the owner's numbers is
 * agent-first to them for that call, whatever the account answers with; the lead is dialed only once
 * an owner pressed 1, and only if the lead may be called at that moment.
 */
import t from 'tap'
import { DEFAULT_SETTINGS, type AccountSettings } from '../../../../src/domain/account/account-settings.ts'
import { leadDecider, type LeadCommand } from '../../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../../src/domain/lead/lead.events.ts'
import { callSettings } from '../../../../src/domain/lead/calls/agent-first.ts'
import { ownerPhones } from '../../../../src/domain/dialing/on-answer.ts'

const NOW = new Date('2026-03-10T15:00:00Z')
const AT = NOW.toISOString()
const OWNER = '+13125550177'
const SETTINGS: AccountSettings = { ...DEFAULT_SETTINGS, callerId: '+13125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, onAnswer: `greeting+bridge:${OWNER}` }
const received = {
  type: 'LeadReceived',
  data: { leadId: 'ld_1', accountId: 'acc_1', fields: { phone: '+13125550142', phoneLast10: '3125550142', phoneRaw: '312-555-0142', industryFields: {}, extraFields: [] }, receivedAt: AT },
} as LeadEvent

function play(commands: readonly LeadCommand[], start: readonly LeadEvent[] = [received]): LeadEvent[] {
  const events = [...start]
  for (const command of commands) {
    const state = events.reduce((s, e) => leadDecider.evolve(s, e), leadDecider.initialState())
    events.push(...leadDecider.decide(command, state, NOW))
  }
  return events
}

t.test("the owner's phone: agent-first's numbers, else the bridge's; none otherwise", async (t) => {
  t.same(ownerPhones(`agent-first:${OWNER},+13125550178`), [OWNER, '+13125550178'])
  t.same(ownerPhones(`bridge:${OWNER}`), [OWNER])
  t.same(ownerPhones(`greeting+bridge:${OWNER}`), [OWNER])
  t.same(ownerPhones('greeting'), [])
  t.same(ownerPhones('assistant'), [])
  t.equal(callSettings(SETTINGS, { ownerNumbers: [OWNER] }).onAnswer, `agent-first:${OWNER}`)
  t.equal(callSettings(SETTINGS, { ownerNumbers: null }), SETTINGS, "any other call: the account's own")
})

t.test('a click-to-call rings the owner first and dials the lead on 1, on an account that bridges its other calls', async (t) => {
  const events = play([
    { type: 'DecidePlaceCall', settings: SETTINGS, decisionId: 'dec_1', idempotencyKey: 'console:k', ownerNumbers: [OWNER] },
    { type: 'StartCallAttempt', decisionId: 'dec_1', node: 'n', settings: SETTINGS },
    { type: 'RecordCallPlaced', decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio', ownerLeg: 0, to: OWNER },
    { type: 'PressAgentKey', settings: SETTINGS, decisionId: 'dec_1', callId: 'CA1', digit: '1', node: 'n' },
  ])
  t.match(events.find((e) => e.type === 'CallDecided'), { data: { purpose: 'place_call', ownerNumbers: [OWNER], to: '+13125550142' } })
  t.match(events.find((e) => e.type === 'LeadDialStarted'), { data: { to: '+13125550142' } }, 'the lead is dialed after the owner pressed 1')
  // The same key again decides nothing.
  const again = play([{ type: 'DecidePlaceCall', settings: SETTINGS, decisionId: 'dec_2', idempotencyKey: 'console:k', ownerNumbers: [OWNER] }], events)
  t.equal(again.filter((e) => e.type === 'CallDecided').length, 1)
})

t.test('a do-not-call lead is refused when the call is decided, with the rule', async (t) => {
  const dnc: LeadEvent = { type: 'LeadMarkedDoNotCall', data: { leadId: 'ld_1', markedAt: AT } }
  t.throws(() => play([{ type: 'DecidePlaceCall', settings: SETTINGS, decisionId: 'dec_1', idempotencyKey: 'k', ownerNumbers: [OWNER] }], [received, dnc]), { code: 'do_not_call' })
  // The lead became do-not-call while the owner's phone rang: pressing 1 dials nobody.
  const events = play([
    { type: 'DecidePlaceCall', settings: SETTINGS, decisionId: 'dec_1', idempotencyKey: 'k', ownerNumbers: [OWNER] },
    { type: 'StartCallAttempt', decisionId: 'dec_1', node: 'n', settings: SETTINGS },
    { type: 'RecordCallPlaced', decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio', ownerLeg: 0, to: OWNER },
    { type: 'MarkDoNotCall' },
    { type: 'PressAgentKey', settings: SETTINGS, decisionId: 'dec_1', callId: 'CA1', digit: '1', node: 'n' },
  ])
  t.notOk(events.some((e) => e.type === 'LeadDialStarted'), 'not dialed')
  t.match(events.find((e) => e.type === 'AgentUnavailable'), { data: { reason: 'lead_not_allowed' } })
})

t.test("an owner who declines ends a click-to-call: the account's assistant fallback does not call the lead instead", async (t) => {
  const settings = { ...SETTINGS, onAnswer: `agent-first:${OWNER};then=assistant` }
  const events = play([
    { type: 'DecidePlaceCall', settings, decisionId: 'dec_1', idempotencyKey: 'k', ownerNumbers: [OWNER] },
    { type: 'StartCallAttempt', decisionId: 'dec_1', node: 'n', settings },
    { type: 'RecordCallPlaced', decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio', ownerLeg: 0, to: OWNER },
    { type: 'PressAgentKey', settings, decisionId: 'dec_1', callId: 'CA1', digit: '2', node: 'n' },
  ])
  t.match(events.find((e) => e.type === 'AgentUnavailable'), { data: { reason: 'declined', nextLeg: null } })
  t.notOk(events.some((e) => e.type === 'AssistantFallbackStarted' || e.type === 'LeadDialStarted'), 'the lead is not rung')
})
