/** Inbound texts on the lead (issue #27): keywords, once per message id, one opt-out confirmation per opt-out. */
import t from 'tap'
import { leadDecider, type LeadCommand, type LeadState } from '../../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../../src/domain/lead/lead.events.ts'
import { textKeyword } from '../../../../src/domain/lead/intake/text-keywords.ts'

const NOW = new Date('2026-03-10T15:00:00Z')
const PHONE = '+13125550142'
const FIELDS = { phone: PHONE, phoneLast10: '3125550142', phoneRaw: PHONE, industryFields: {}, extraFields: [] }

function text(body: string, messageId: string): LeadCommand {
  return { type: 'ReceiveText', accountId: 'acc_1', newLeadId: 'ld_1', fields: FIELDS, messageId, from: PHONE, to: '+13125550100', body, carrier: 'twilio' }
}
function confirm(replyTo: string): LeadCommand {
  return { type: 'ClaimTextReply', replyTo, kind: 'opt_out_confirmation', from: '+13125550100', to: PHONE, body: 'b', node: 'n1' }
}

/** Decides each command on the state the ones before left, as the command handler does. */
function play(commands: readonly LeadCommand[], events: LeadEvent[] = []): { all: LeadEvent[]; last: LeadEvent[]; state: LeadState } {
  let last: LeadEvent[] = []
  for (const command of commands) {
    const state = events.reduce((s, e) => leadDecider.evolve(s, e), leadDecider.initialState())
    last = leadDecider.decide(command, state, NOW)
    events = [...events, ...last]
  }
  return { all: events, last, state: events.reduce((s, e) => leadDecider.evolve(s, e), leadDecider.initialState()) }
}

t.test('keywords in any spelling and plain-language opt-outs, as the consent classifier reads them', async (t) => {
  for (const body of ['stop', ' Stop. ', 'OPT OUT', 'opt-out', 'STOPALL', 'unsubscribe!', 'Cancel', 'end', 'QUIT', 'revoke', 'OptOut', `STOP${'!'.repeat(40)}`, 'please stop', 'stop calling me']) {
    t.equal(textKeyword(body), 'opt_out', body)
  }
  for (const body of ['help', 'INFO?']) t.equal(textKeyword(body), 'help', body)
  for (const body of ['START', 'unstop']) t.equal(textKeyword(body), 'opt_in', body)
  for (const body of ["don't stop", '', 'STOPP', 'Yes', 'can you stop by at 5?']) t.equal(textKeyword(body), null, JSON.stringify(body))
})

t.test('a plain-language opt-out is an opt-out: do-not-call in the same append, no reply', async (t) => {
  const { last, state } = play([text('Please stop texting me', 'SM1')])
  t.same(last.map((e) => e.type), ['LeadReceived', 'TextReceived', 'LeadMarkedDoNotCall', 'NumberSuppressed'])
  t.match(last[1], { data: { keyword: 'opt_out' } })
  t.ok(state.doNotCall)
})

t.test('a STOP from a new number: a lead not listed, the text, do-not-call; the same message id again changes nothing', async (t) => {
  const first = play([text('Stop', 'SM1')])
  t.same(first.last.map((e) => e.type), ['LeadReceived', 'TextReceived', 'LeadMarkedDoNotCall', 'NumberSuppressed'])
  t.notOk('list' in (first.last[0] as LeadEvent).data, 'not in Inbound Leads')
  t.match(first.last[2], { data: { source: 'sms_keyword' } })
  t.ok(first.state.doNotCall)
  t.same(play([text('Stop', 'SM1')], first.all).last, [], 'a repeated webhook')
  t.same(play([text('STOP', 'SM2')], first.all).last.map((e) => e.type), ['TextReceived'], 'a second STOP: recorded, already do-not-call')
})

t.test('one opt-out confirmation per opt-out, and one reply per text', async (t) => {
  const { all } = play([text('Stop', 'SM1'), confirm('SM1')])
  t.same(play([confirm('SM1')], all).last, [], 'the same text again')
  t.same(play([text('quit', 'SM2'), confirm('SM2')], all).last, [], 'a second opt-out is not confirmed again')
  const cleared = play([{ type: 'ClearDoNotCall' }, text('end', 'SM3'), confirm('SM3')], all)
  t.same(cleared.last.map((e) => e.type), ['TextReplyClaimed'], 'an opt-out after the operator cleared it is confirmed once')
  t.same(play([text('hello', 'SM4'), confirm('SM4')], play([text('hi', 'SM0')]).all).last, [], 'no confirmation for a lead who did not opt out')
  const replied = play([{ type: 'RecordTextReply', replyTo: 'SM1', outcome: { sent: true, messageId: 'SMx', carrier: 'twilio' } }], all)
  t.same(replied.last.map((e) => e.type), ['TextReplySent'])
  t.same(play([{ type: 'RecordTextReply', replyTo: 'SM1', outcome: { sent: false, failure: 'rejected', message: 'm' } }], replied.all).last, [], 'one outcome per reply')
})

t.test('a STOP stops the pending follow-up in the same append', async (t) => {
  const { all } = play([text('hello', 'SM1')])
  const scheduled: LeadEvent = { type: 'FollowUpScheduled', data: { leadId: 'ld_1', attempt: 2, dueAt: '2026-03-10T16:00:00.000Z', afterDecisionId: 'dec_1' } }
  const stopped = play([text('STOP', 'SM2')], [...all, scheduled])
  t.same(stopped.last.map((e) => e.type), ['TextReceived', 'LeadMarkedDoNotCall', 'NumberSuppressed', 'FollowUpStopped'])
  t.match(stopped.last[3], { data: { reason: 'do_not_call' } })
  t.notOk(stopped.state.dialing.pendingFollowUp, 'no follow-up left')
})
