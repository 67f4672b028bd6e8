/**
 * A number that opted out by number (issue #40, must-have 3), given/when/then on the lead decider:
 * a text acts for its sender only, and every path that would call or text a suppressed number is
 * refused by the one policy (`suppressed`), beside the lead's own do-not-call flag.
 */
import t from 'tap'
import type { Test } from 'tap'
import { DEFAULT_SETTINGS, type AccountSettings } from '../../../src/domain/account/account-settings.ts'
import { leadDecider, type LeadCommand } from '../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../src/domain/lead/lead.events.ts'
import type { LeadFields } from '../../../src/domain/lead/intake/normalize-lead-input.ts'
import { CALL_REFUSALS, mayContact } from '../../../src/domain/dialing/may-call.ts'
import { callbackRefusal } from '../../../src/domain/lead/assistant/assistant.decider.ts'
import { leadCallTarget } from '../../../src/domain/lead/calls/calls.decider.ts'
import { play, plus, stateOf, types } from '../../helpers/lead-play.ts'

const NOW = new Date('2026-03-10T15:00:00Z')
const CALLER_ID = '+13125550100'
const US = '+12079460958' // the lead
const GB = '+442079460958' // another person: the same last ten digits
const NOT_VALID = '+440079460958' // no GB number: a lead received with it may take a valid one later
const ON: AccountSettings = { ...DEFAULT_SETTINGS, speedToLead: true, callerId: CALLER_ID, leadTimeGuard: false, callingHours: 'mon-sun 00:00-24:00', placeCallCountries: ['GB'] }
const AGENT: AccountSettings = { ...ON, onAnswer: 'agent-first:+13125550199' }

const fields = (phone: string, name = 'Sam Jones'): LeadFields => ({ phone, phoneLast10: phone.slice(-10), phoneRaw: phone, fullName: name, industryFields: {}, extraFields: [] })
const receive = (phone: string, settings?: AccountSettings, name?: string): LeadCommand =>
  ({ type: 'ReceiveLead', accountId: 'acc_1', newLeadId: 'ld_1', fields: fields(phone, name), ...(settings ? { speedToLead: { settings, decisionId: 'dec_stl' } } : {}) }) as LeadCommand
const text = (from: string, body: string, messageId: string): LeadCommand =>
  ({ type: 'ReceiveText', accountId: 'acc_1', newLeadId: 'ld_1', fields: { phone: from, phoneLast10: from.slice(-10), phoneRaw: from, industryFields: {}, extraFields: [] }, messageId, from, to: CALLER_ID, body, carrier: 'twilio' }) as LeadCommand
const confirm = (replyTo: string, to: string): LeadCommand => ({ type: 'ClaimTextReply', replyTo, kind: 'opt_out_confirmation', from: CALLER_ID, to, body: 'unsubscribed', node: 'n1' })
const after = (start: readonly LeadEvent[], steps: ReadonlyArray<readonly [Date, LeadCommand]>) => play(steps, start).slice(start.length)
const decide = (command: LeadCommand, events: readonly LeadEvent[], when = NOW) => leadDecider.decide(command, stateOf(events), when)
function refusal(t: Test, run: () => unknown, code: string, message: string): void {
  try {
    run()
    t.fail(`${message}: not refused`)
  } catch (error) {
    t.match(error, { code }, message)
  }
}

t.test('STOP from another full number suppresses that number only: the lead is not flagged, its follow-up goes on', async (t) => {
  const lead = play([[NOW, receive(US)]])
  const stop = after(lead, [[NOW, text(GB, 'STOP', 'SM1')]])
  t.same(types(stop), ['TextReceived', 'NumberSuppressed'], 'no LeadMarkedDoNotCall, no FollowUpStopped')
  t.match(stop, [{ data: { from: GB, otherNumber: true, keyword: 'opt_out' } }, { data: { phone: GB, source: 'sms_keyword', messageId: 'SM1' } }])
  const state = stateOf([...lead, ...stop])
  t.equal(state.doNotCall, false, 'the lead at +1 is not do-not-call')
  t.same(Object.keys(state.suppressed), [GB])
  t.same(decide(text(GB, 'quit', 'SM2'), [...lead, ...stop]).map((e) => e.type), ['TextReceived'], 'a second STOP from it: suppressed already')
  t.same(types(after([...lead, ...stop], [[NOW, text(GB, 'call me tomorrow', 'SM3')]])), ['TextReceived'], "its reply is not the lead's: no LeadReplied")
  t.same(types(after([...lead, ...stop], [[NOW, text(US, 'call me tomorrow', 'SM4')]])), ['TextReceived', 'LeadReplied'], "the lead's own reply still is")
})

t.test('one confirmation per number that opted out, to that number; the lead keeps its own', async (t) => {
  const stopped = play([[NOW, receive(US)], [NOW, text(GB, 'STOP', 'SM1')]])
  t.same(decide(confirm('SM1', US), stopped), [], 'nothing to confirm to the lead: it did not opt out')
  const claimed = after(stopped, [[NOW, confirm('SM1', GB)]])
  t.match(claimed, [{ type: 'TextReplyClaimed', data: { to: GB } }])
  const withClaim = [...stopped, ...claimed]
  t.same(after(withClaim, [[NOW, text(GB, 'stop', 'SM2')], [NOW, confirm('SM2', GB)]]).map((e) => e.type), ['TextReceived'], 'one confirmation per opt-out, ever')
  const ownStop = after(withClaim, [[NOW, text(US, 'Stop', 'SM3')], [NOW, confirm('SM3', US)]])
  t.same(types(ownStop), ['TextReceived', 'LeadMarkedDoNotCall', 'NumberSuppressed', 'TextReplyClaimed'], "the lead's own STOP flags the lead and is confirmed once")
})

t.test('the operator clears exactly the number named: another number leaves the lead as it is', async (t) => {
  const both = play([[NOW, receive(US)], [NOW, text(GB, 'STOP', 'SM1')], [NOW, text(US, 'STOP', 'SM2')]])
  t.ok(stateOf(both).doNotCall)
  const gb = after(both, [[NOW, { type: 'ClearDoNotCall', phone: GB }]])
  t.same(types(gb), ['NumberSuppressionCleared'])
  t.ok(stateOf([...both, ...gb]).doNotCall, 'clearing +44 does not clear the lead at +1')
  const us = after([...both, ...gb], [[NOW, { type: 'ClearDoNotCall' }]])
  t.same(types(us), ['LeadDoNotCallCleared', 'NumberSuppressionCleared'], "the lead's flag and its own number's opt-out")
  t.same(stateOf([...both, ...gb, ...us]).suppressed, {})
})

t.test('place_call to the suppressed number, and a call to it decided before the STOP, are refused `suppressed`; the lead is still called', async (t) => {
  t.ok(CALL_REFUSALS.has('suppressed'), 'a stable refusal code')
  const lead = play([[NOW, receive(US)]])
  const decided = after(lead, [[NOW, { type: 'DecidePlaceCall', settings: ON, decisionId: 'dec_gb', idempotencyKey: 'k1', to: GB }]])
  t.match(decided, [{ type: 'LeadPhoneConflict' }, { type: 'CallDecided', data: { to: GB } }])
  const stopped = [...lead, ...decided, ...after([...lead, ...decided], [[NOW, text(GB, 'STOP', 'SM1')]])]
  t.match(decide({ type: 'StartCallAttempt', decisionId: 'dec_gb', node: 'n1', settings: ON }, stopped), [{ type: 'CallFailed', data: { failure: 'suppressed' } }], 'not dialed as it goes out')
  refusal(t, () => decide({ type: 'DecidePlaceCall', settings: ON, decisionId: 'dec_gb2', idempotencyKey: 'k2', to: GB }, stopped), 'suppressed', 'place_call')
  t.match(decide({ type: 'DecidePlaceCall', settings: ON, decisionId: 'dec_us', idempotencyKey: 'k3' }, stopped), [{ type: 'CallDecided', data: { to: US } }], 'the lead is another person')
})

t.test("agent-first: the owner's 1 does not dial a number that opted out while the owner's leg rang", async (t) => {
  const lead = play([[NOW, receive(US)]])
  const placed = play([
    [NOW, { type: 'DecidePlaceCall', settings: AGENT, decisionId: 'dec_1', idempotencyKey: 'k1', to: GB }],
    [NOW, { type: 'StartCallAttempt', decisionId: 'dec_1', node: 'n1', settings: AGENT }],
    [NOW, { type: 'RecordCallPlaced', decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio', ownerLeg: 0, to: '+13125550199' }],
    [NOW, text(GB, 'STOP', 'SM1')],
  ], lead)
  const pressed = decide({ type: 'PressAgentKey', settings: AGENT, decisionId: 'dec_1', callId: 'CA1', digit: '1', node: 'n1' }, placed, plus(NOW, 20_000))
  t.notOk(pressed.some((e) => e.type === 'LeadDialStarted'), 'the number is not dialed')
  t.match(pressed, [{ type: 'AgentUnavailable', data: { reason: 'lead_not_allowed', refusal: 'suppressed' } }])
})

/**
 * The lead's own number suppressed while the lead is not flagged: a lead received with a number that
 * is not valid takes the valid one later, and that number had opted out (as another person) meanwhile.
 */
function ownNumberSuppressed(settings: AccountSettings = ON): LeadEvent[] {
  return play([[NOW, receive(NOT_VALID)], [NOW, text(US, 'STOP', 'SM1')], [NOW, receive(US, settings)]])
}

t.test("every path refuses the lead's own number once it is suppressed, beside the lead's flag", async (t) => {
  const events = ownNumberSuppressed()
  const state = stateOf(events)
  t.equal(state.fields?.phone, US)
  t.equal(state.doNotCall, false)
  t.ok(Object.hasOwn(state.suppressed, US))

  t.match(decide(receive(US, ON), []), [{ type: 'LeadReceived' }, { type: 'CallDecided' }], 'speed to lead calls a number nobody suppressed')
  const onlySuppressed = events.filter((e) => e.type === 'NumberSuppressed')
  t.match(decide(receive(US, ON), onlySuppressed), [{ type: 'LeadReceived', data: { speedToLeadSkipped: { reason: 'suppressed' } } }], 'speed to lead: skipped, decided on the log')

  refusal(t, () => decide({ type: 'DecidePlaceCall', settings: ON, decisionId: 'dec_p', idempotencyKey: 'p' }, events), 'suppressed', 'place_call')
  refusal(t, () => decide({ type: 'DecideText', settings: ON, textId: 'txt_1', reason: 'send_sms', body: 'Hi', idempotencyKey: 'k' } as LeadCommand, events), 'suppressed', 'send_sms')
  const payment: LeadCommand = {
    type: 'RequestPayment', requestId: 'req_1', amountCents: 100, currency: 'usd', description: 'Deposit', connectedAccount: null, provider: 'simulated', idempotencyKey: 'pay', providerIdempotencyKey: 'pk', from: CALLER_ID,
  }
  refusal(t, () => decide(payment, events), 'suppressed', 'a pay-link')
  t.match(callbackRefusal(state, ON, plus(NOW, 3_600_000), NOW), /opted out by number/, 'the assistant books no callback to it')
  t.match(mayContact('call', ON, leadCallTarget(state, 'follow_up'), NOW), { reason: 'suppressed' }, 'nor opens a session on a call to it (the same target)')

  const check = mayContact('call', ON, { phone: US, doNotCall: false, suppressed: true }, NOW)
  t.match(check, { allowed: false, reason: 'suppressed', nextAllowedAt: null }, 'never: no time to try again')

  // A follow-up pending for the lead, call step and text step, is stopped, not rescheduled.
  const pending = (textStep?: number): LeadEvent => ({ type: 'FollowUpScheduled', data: { leadId: state.leadId, attempt: 1, dueAt: NOW.toISOString(), afterDecisionId: 'dec_0', ...(textStep === undefined ? {} : { textStep }) } })
  t.match(decide({ type: 'ClaimFollowUp', settings: ON, attempt: 1, decisionId: 'dec_f' }, [...events, pending()]), [{ type: 'FollowUpStopped', data: { reason: 'suppressed' } }], 'follow-up')
  const texting: AccountSettings = { ...ON, followUp: '5m text "Hi {first_name}", 25m' }
  t.match(decide({ type: 'ClaimFollowUp', settings: texting, attempt: 1, decisionId: 'dec_t', textId: 'txt_f' }, [...events, pending(1)]), [{ type: 'FollowUpStopped', data: { reason: 'suppressed' } }], 'a follow-up text step')
})

t.test('a text or a pay-link decided before the opt-out is not sent after it', async (t) => {
  const lead = play([[NOW, receive(NOT_VALID)], [NOW, receive(US)]])
  const decided = after(lead, [[NOW, { type: 'DecideText', settings: ON, textId: 'txt_1', reason: 'send_sms', body: 'Hi', idempotencyKey: 'k' } as LeadCommand]])
  t.match(decided, [{ type: 'TextDecided', data: { to: US } }])
  // The lead's own STOP flags it; the same number opted out as another person's would not, and the suppression still holds.
  const suppressed: LeadEvent = { type: 'NumberSuppressed', data: { leadId: 'ld_1', phone: US, source: 'sms_keyword', at: NOW.toISOString() } }
  const later = [...lead, ...decided, suppressed]
  t.match(decide({ type: 'StartTextAttempt', textId: 'txt_1', node: 'n1', settings: ON }, later), [{ type: 'TextFailed', data: { failure: 'suppressed' } }], 'the texter')
  const requested = after(lead, [
    [NOW, { type: 'RequestPayment', requestId: 'req_1', amountCents: 100, currency: 'usd', description: 'Deposit', connectedAccount: null, provider: 'simulated', idempotencyKey: 'pay', providerIdempotencyKey: 'pk', from: CALLER_ID }],
    [NOW, { type: 'RecordPayLinkCreated', requestId: 'req_1', sessionId: 'cs_1', url: 'https://pay.example/1', expiresAt: plus(NOW, 3_600_000).toISOString(), provider: 'simulated' }],
  ])
  t.match(decide({ type: 'StartPayLinkText', requestId: 'req_1', node: 'n1', body: 'Pay here' }, [...lead, ...requested, suppressed]), [{ type: 'PayLinkTextFailed', data: { failure: 'suppressed' } }], 'the pay-link sender')
})
