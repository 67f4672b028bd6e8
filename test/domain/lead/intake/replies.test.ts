/**
 * Replies on the lead (issue #27): a text that is no keyword records LeadReplied with its
 * TextReceived and stops the pending follow-up (`replied`); keywords are no reply; a reply ends the
 * cadence for good, as an answer does, while a callback the lead asks for is still made. Histories
 * are made by running the decider itself.
 */
import t from 'tap'
import { DEFAULT_SETTINGS, type AccountSettings } from '../../../../src/domain/account/account-settings.ts'
import { leadDecider, type LeadCommand, type LeadState } from '../../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../../src/domain/lead/lead.events.ts'

const NOW = new Date('2026-03-10T15:00:00Z')
const LATER = new Date('2026-03-10T15:05:00Z')
const PHONE = '+13125550142'
const FIELDS = { phone: PHONE, phoneLast10: '3125550142', phoneRaw: PHONE, fullName: 'Jane Doe', industryFields: {}, extraFields: [] }
const ON: AccountSettings = { ...DEFAULT_SETTINGS, speedToLead: true, callerId: '+13125550100', leadTimeGuard: false, callingHours: 'mon-sun 00:00-24:00' }

function text(body: string, messageId: string): LeadCommand {
  return { type: 'ReceiveText', accountId: 'acc_1', newLeadId: 'ld_2', fields: FIELDS, messageId, from: PHONE, to: '+13125550100', body, carrier: 'twilio' }
}

function stateOf(events: readonly LeadEvent[]): LeadState {
  return events.reduce((s, e) => leadDecider.evolve(s, e), leadDecider.initialState())
}

/** Decides each step on the state the ones before left, as the command handler does. */
function play(steps: ReadonlyArray<readonly [Date, LeadCommand]>, start: readonly LeadEvent[] = []): { all: LeadEvent[]; last: LeadEvent[] } {
  const all = [...start]
  let last: LeadEvent[] = []
  for (const [when, command] of steps) {
    last = leadDecider.decide(command, stateOf(all), when)
    all.push(...last)
  }
  return { all, last }
}

const status = (callId: string, s: string): LeadCommand => ({ type: 'RecordCallStatus', settings: ON, update: { callId, status: s as 'no-answer', timestamp: '', carrier: 'twilio' } })

/** A lead whose speed-to-lead call rang out: a follow-up is pending. */
function followUpPending(): LeadEvent[] {
  return play([
    [NOW, { type: 'ReceiveLead', accountId: 'acc_1', newLeadId: 'ld_1', fields: FIELDS, speedToLead: { settings: ON, decisionId: 'dec_1' } }],
    [NOW, { type: 'StartCallAttempt', decisionId: 'dec_1', node: 'n1' }],
    [NOW, { type: 'RecordCallPlaced', decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio' }],
    [NOW, status('CA1', 'no-answer')],
  ]).all
}

t.test('a reply: TextReceived, LeadReplied (when and the message id) and the pending follow-up stopped, in one decision', async (t) => {
  const pending = followUpPending()
  t.ok(stateOf(pending).dialing.pendingFollowUp, 'a follow-up is pending')
  const { all, last } = play([[LATER, text('Call me after 5', 'SM1')]], pending)
  t.same(last.map((e) => e.type), ['TextReceived', 'LeadReplied', 'FollowUpStopped'])
  t.same(last[1]?.data, { leadId: 'ld_1', messageId: 'SM1', repliedAt: LATER.toISOString() }, 'never the text')
  t.same(last[2]?.data, { reason: 'replied', message: 'the lead replied by text', at: LATER.toISOString() })
  const state = stateOf(all)
  t.equal(state.dialing.pendingFollowUp, null)
  t.equal(state.dialing.followUpStopped, 'replied')
  t.equal(state.replies, 1)
  t.equal(state.lastReplyAt, LATER.toISOString())
  t.same(play([[LATER, text('Call me after 5', 'SM1')]], all).last, [], 'the same message id again: nothing')
  const second = play([[new Date('2026-03-10T15:07:00Z'), text('thanks', 'SM2')]], all)
  t.same(second.last.map((e) => e.type), ['TextReceived', 'LeadReplied'], 'no follow-up left to stop')
  t.equal(stateOf(second.all).replies, 2)
})

t.test('keywords are no reply: HELP, INFO, START, UNSTOP leave the follow-up pending', async (t) => {
  const pending = followUpPending()
  let all = pending
  for (const [i, body] of ['HELP', 'info?', 'START', 'unstop'].entries()) {
    const step = play([[LATER, text(body, `SM${i}`)]], all)
    t.same(step.last.map((e) => e.type), ['TextReceived'], body)
    all = step.all
  }
  t.ok(stateOf(all).dialing.pendingFollowUp, 'still pending')
  t.equal(stateOf(all).replies, 0)
})

t.test('a reply ends the cadence for good: a later unanswered call schedules nothing; a callback asked for is still made', async (t) => {
  const replied = play([[LATER, text('yes', 'SM1')]], followUpPending()).all
  const called = play([
    [LATER, { type: 'DecidePlaceCall', settings: ON, decisionId: 'dec_2', idempotencyKey: 'k2' }],
    [LATER, { type: 'StartCallAttempt', decisionId: 'dec_2', node: 'n1' }],
    [LATER, { type: 'RecordCallPlaced', decisionId: 'dec_2', callId: 'CA2', carrier: 'twilio' }],
  ], replied).all
  const rang = play([[LATER, status('CA2', 'no-answer')]], called)
  t.same(rang.last.map((e) => e.type), ['CallNotAnswered', 'FollowUpStopped'])
  t.match(rang.last[1], { data: { reason: 'replied' } })
  t.equal(stateOf(rang.all).dialing.pendingFollowUp, null)

  // Answered, the lead presses 2: the callback they asked for is scheduled, reply or not.
  const asked = play([[LATER, { type: 'PressMenuKey', settings: ON, decisionId: 'dec_2', digit: '2', ownerNumber: null }]], called)
  t.ok(asked.last.some((e) => e.type === 'FollowUpScheduled'), 'the callback is scheduled')
})

t.test('a person first met by a text that is a reply: a lead not listed, the text and the reply', async (t) => {
  const { last } = play([[NOW, text('Is this the roofer?', 'SM1')]])
  t.same(last.map((e) => e.type), ['LeadReceived', 'TextReceived', 'LeadReplied'])
  t.notOk('list' in (last[0] as LeadEvent).data)
})
