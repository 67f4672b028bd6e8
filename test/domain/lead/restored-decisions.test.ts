/**
 * Decisions a restore brought back (docs/deployment.md#back-up-and-restore), as given/when/then: a
 * call, text or pay-link decided or claimed and not known as carried out expires
 * (`restored_from_backup`) and is never claimed after; one with an outcome stays as it was; an
 * expired call takes its follow-up step, so follow-up goes on from the next.
 */
import t from 'tap'
import { DEFAULT_SETTINGS, type AccountSettings } from '../../../src/domain/account/account-settings.ts'
import { leadDecider, type LeadCommand } from '../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../src/domain/lead/lead.events.ts'
import { RESTORED_FROM_BACKUP } from '../../../src/domain/restore/log-restore.ts'
import { deciderSpec } from '../../helpers/decider-spec.ts'

const NOW = new Date('2026-03-10T15:00:00Z')
const AT = NOW.toISOString()
const spec = deciderSpec(leadDecider, NOW)
const SETTINGS: AccountSettings = { ...DEFAULT_SETTINGS, speedToLead: true, callerId: '+13125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, followUp: '1h, 1h' }
const FIELDS = { phone: '+13125550142', phoneLast10: '3125550142', phoneRaw: '312-555-0142', fullName: 'Jane Doe', industryFields: {}, extraFields: [] }
const received = { type: 'ReceiveLead', accountId: 'acc_1', newLeadId: 'ld_1', fields: FIELDS, speedToLead: { settings: SETTINGS, decisionId: 'dec_1' } } as LeadCommand

function play(commands: readonly LeadCommand[]): LeadEvent[] {
  const events: LeadEvent[] = []
  for (const command of commands) {
    const state = events.reduce((s, e) => leadDecider.evolve(s, e), leadDecider.initialState())
    events.push(...leadDecider.decide(command, state, NOW))
  }
  return events
}

const expireCall: LeadCommand = { type: 'ExpireCall', decisionId: 'dec_1', reason: RESTORED_FROM_BACKUP, settings: SETTINGS }
const claimCall: LeadCommand = { type: 'StartCallAttempt', decisionId: 'dec_1', node: 'n1' }

t.test('a call decided or claimed and not known as placed expires, takes its step, and follow-up goes on from the next', async (t) => {
  const expiredThenNext = (events: readonly LeadEvent[]) => {
    t.match(events, [
      { type: 'CallExpired', data: { decisionId: 'dec_1', reason: 'restored_from_backup', at: AT } },
      { type: 'FollowUpScheduled', data: { attempt: 2, afterDecisionId: 'dec_1', dueAt: '2026-03-10T16:00:00.000Z' } },
    ])
    t.equal(events.length, 2)
  }
  spec(play([received])).when(expireCall).then(t, expiredThenNext)
  spec(play([received, claimCall])).when(expireCall).then(t, expiredThenNext)
  spec(play([received, expireCall])).when(claimCall).then(t, [])
  spec(play([received, expireCall])).when(expireCall).then(t, [])
  spec(play([received, claimCall, { type: 'RecordCallPlaced', decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio' }])).when(expireCall).then(t, [])
  // Without the account's settings it only expires.
  spec(play([received])).when({ type: 'ExpireCall', decisionId: 'dec_1', reason: RESTORED_FROM_BACKUP }).then(t, (events) => t.same(events.map((e) => e.type), ['CallExpired']))
})

t.test('a text decided or claimed and not known as sent expires and is never claimed', async (t) => {
  const decide: LeadCommand = { type: 'DecideText', settings: SETTINGS, textId: 'txt_1', reason: 'send_sms', body: 'Hi', idempotencyKey: null }
  const claim: LeadCommand = { type: 'StartTextAttempt', textId: 'txt_1', node: 'n1' }
  const expire: LeadCommand = { type: 'ExpireText', textId: 'txt_1', reason: RESTORED_FROM_BACKUP }
  const expired: LeadEvent[] = [{ type: 'TextExpired', data: { textId: 'txt_1', reason: 'restored_from_backup', at: AT } }]
  spec(play([received, decide])).when(expire).then(t, expired)
  spec(play([received, decide, claim])).when(expire).then(t, expired)
  spec(play([received, decide, expire])).when(claim).then(t, [])
  spec(play([received, decide, claim, { type: 'RecordTextSent', textId: 'txt_1', messageId: 'SM1', carrier: 'twilio' }])).when(expire).then(t, [])
})

t.test('a pay-link request not known as texted expires and is never claimed; a texted one stays as it was', async (t) => {
  const request: LeadCommand = {
    type: 'RequestPayment', requestId: 'pay_1', amountCents: 12500, currency: 'usd', description: 'Deposit', connectedAccount: null,
    provider: 'stripe', idempotencyKey: 'k-1', providerIdempotencyKey: 'leadline-pay-abc', from: '+13125550100',
  }
  const linked: LeadCommand = { type: 'RecordPayLinkCreated', requestId: 'pay_1', sessionId: 'cs_1', url: 'https://checkout.stripe.com/c/pay/cs_1', expiresAt: '2026-03-11T15:00:00.000Z', provider: 'stripe' }
  const claim: LeadCommand = { type: 'StartPayLinkText', requestId: 'pay_1', node: 'n1', body: 'Pay here' }
  const expire: LeadCommand = { type: 'ExpirePaymentRequest', requestId: 'pay_1', reason: RESTORED_FROM_BACKUP }
  const expired: LeadEvent[] = [{ type: 'PaymentRequestExpired', data: { requestId: 'pay_1', reason: 'restored_from_backup', at: AT } }]
  spec(play([received, request])).when(expire).then(t, expired)
  spec(play([received, request, linked])).when(expire).then(t, expired)
  spec(play([received, request, linked, claim])).when(expire).then(t, expired)
  spec(play([received, request, linked, expire])).when(claim).then(t, [])
  spec(play([received, request, linked, claim, { type: 'RecordPayLinkTexted', requestId: 'pay_1', messageId: 'SM1', carrier: 'twilio' }])).when(expire).then(t, [])
})
