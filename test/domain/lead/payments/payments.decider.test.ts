/**
 * Pay-links on the lead aggregate, as given/when/then: the decision (once per idempotency key,
 * refused for someone who is not a lead or is do-not-call), the link, the claim before the text
 * (at most once per request), the text's outcome, and settlement (duplicates and late events change
 * nothing). Histories are built by running the decider itself.
 */
import t from 'tap'
import { leadDecider, type LeadCommand } from '../../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../../src/domain/lead/lead.events.ts'
import { REQUEST_KEY_RETENTION_MS, type PaymentCommand } from '../../../../src/domain/lead/payments/payments.decider.ts'
import { deciderSpec } from '../../../helpers/decider-spec.ts'

const NOW = new Date('2026-03-10T15:00:00Z')
const AT = NOW.toISOString()
const spec = deciderSpec(leadDecider, NOW)

const received: LeadEvent = {
  type: 'LeadReceived',
  data: { leadId: 'ld_1', accountId: 'acc_1', fields: { phone: '+13125550142', phoneLast10: '3125550142', phoneRaw: '312-555-0142', fullName: 'Jane Doe', industryFields: {}, extraFields: [] }, receivedAt: AT },
}

const request: PaymentCommand = {
  type: 'RequestPayment', requestId: 'pay_1', amountCents: 12500, currency: 'usd', description: 'Deposit', connectedAccount: 'acct_1Conn000',
  provider: 'stripe', idempotencyKey: 'k-1', providerIdempotencyKey: 'leadline-pay-abc', from: '+13125550100',
}

function play(commands: readonly LeadCommand[], start: readonly LeadEvent[] = [received], now = NOW): LeadEvent[] {
  const events = [...start]
  for (const command of commands) {
    const state = events.reduce((s, e) => leadDecider.evolve(s, e), leadDecider.initialState())
    events.push(...leadDecider.decide(command, state, now))
  }
  return events
}

const linked: PaymentCommand = { type: 'RecordPayLinkCreated', requestId: 'pay_1', sessionId: 'cs_1', url: 'https://checkout.stripe.com/c/pay/cs_1', expiresAt: '2026-03-11T15:00:00.000Z', provider: 'stripe' }
const claim: PaymentCommand = { type: 'StartPayLinkText', requestId: 'pay_1', node: 'n1', body: 'Pay here: https://checkout.stripe.com/c/pay/cs_1' }
const settle = (outcome: 'settled' | 'failed' | 'expired', eventId = 'evt_1', sessionId = 'cs_1'): PaymentCommand => ({
  type: 'RecordSettlement', outcome, requestId: 'pay_1', sessionId, amountCents: 12500, currency: 'usd', paymentIntentId: 'pi_1', provider: 'stripe', providerEventId: eventId, at: AT,
})

t.test('the decision: once per idempotency key, to the lead\'s own number', async (t) => {
  spec([received]).when(request).then(t, [
    {
      type: 'PaymentRequested',
      data: {
        leadId: 'ld_1', requestId: 'pay_1', amountCents: 12500, currency: 'usd', description: 'Deposit', connectedAccount: 'acct_1Conn000', provider: 'stripe',
        idempotencyKey: 'k-1', providerIdempotencyKey: 'leadline-pay-abc', from: '+13125550100', to: '+13125550142', requestedAt: AT,
      },
    },
  ])
  const decided = play([request])
  spec(decided).when({ ...request, requestId: 'pay_2' }).then(t, [])
  spec(decided).when({ ...request, requestId: 'pay_2', idempotencyKey: 'k-2' }).then(t, (events) => t.equal(events[0]?.type, 'PaymentRequested', 'another key is another request'))
  // Once the key has expired at the tool endpoint, it names a new request.
  deciderSpec(leadDecider, new Date(NOW.getTime() + REQUEST_KEY_RETENTION_MS + 1))(decided).when({ ...request, requestId: 'pay_3' }).then(t, (events) => t.equal(events.length, 1))
})

t.test('refused: not a lead of the account, or do-not-call', async (t) => {
  spec([]).when(request).thenThrows(t, 'customer_not_found')
  spec([received, { type: 'LeadMarkedDoNotCall', data: { leadId: 'ld_1', markedAt: AT } }]).when(request).thenThrows(t, 'do_not_call')
})

t.test('the link is recorded once; a failed link is final', async (t) => {
  const decided = play([request])
  spec(decided).when(linked).then(t, [{ type: 'PayLinkCreated', data: { requestId: 'pay_1', sessionId: 'cs_1', url: linked.type === 'RecordPayLinkCreated' ? linked.url : '', expiresAt: '2026-03-11T15:00:00.000Z', provider: 'stripe', at: AT } }])
  spec(play([linked], decided)).when({ ...linked, sessionId: 'cs_2' } as PaymentCommand).then(t, [])
  const failed = play([{ type: 'RecordPayLinkFailed', requestId: 'pay_1', failure: 'rejected', message: 'amount_too_small', providerCode: 'amount_too_small' }], decided)
  spec(failed).when(linked).then(t, [])
  spec(failed).when(claim).then(t, [])
  spec([received]).when(linked).thenThrows(t, 'payment_request_not_found')
})

t.test('the text is claimed at most once, before the carrier is asked', async (t) => {
  const ready = play([request, linked])
  spec(play([request])).when(claim).then(t, [])
  spec(ready).when(claim).then(t, [{ type: 'PayLinkTextAttempted', data: { requestId: 'pay_1', node: 'n1', from: '+13125550100', to: '+13125550142', body: claim.type === 'StartPayLinkText' ? claim.body : '', at: AT } }])
  const claimed = play([claim], ready)
  spec(claimed).when({ ...claim, node: 'n2' } as PaymentCommand).then(t, [])
  spec(claimed).when({ type: 'RecordPayLinkTexted', requestId: 'pay_1', messageId: 'SM1', carrier: 'twilio' }).then(t, (events, state) => {
    t.same(events, [{ type: 'PayLinkTexted', data: { requestId: 'pay_1', messageId: 'SM1', carrier: 'twilio', at: AT } }])
    t.match(state.payments.requests.pay_1, { stage: 'texted', messageId: 'SM1', textedAt: AT })
  })
  const unknown = play([{ type: 'RecordPayLinkTextUnknown', requestId: 'pay_1', reason: 'timeout' }], claimed)
  t.equal(unknown.at(-1)?.type, 'PayLinkTextOutcomeUnknown')
  spec(unknown).when(claim).then(t, [])
  spec(unknown).when({ type: 'RecordPayLinkTexted', requestId: 'pay_1', messageId: 'SM1', carrier: 'twilio' }).then(t, [])
  // The lead said stop between the decision and the text: no text, and why.
  spec([...ready, { type: 'LeadMarkedDoNotCall', data: { leadId: 'ld_1', markedAt: AT } }]).when(claim).then(t, (events) => t.match(events, [{ type: 'PayLinkTextFailed', data: { failure: 'do_not_contact' } }]))
})

t.test('settlement: once; duplicates, late failures and expiries after payment change nothing', async (t) => {
  const texted = play([request, linked, claim, { type: 'RecordPayLinkTexted', requestId: 'pay_1', messageId: 'SM1', carrier: 'twilio' }])
  spec(texted).when(settle('settled')).then(t, (events, state) => {
    t.same(events, [{ type: 'PaymentSettled', data: { requestId: 'pay_1', sessionId: 'cs_1', provider: 'stripe', providerEventId: 'evt_1', at: AT, amountCents: 12500, currency: 'usd', paymentIntentId: 'pi_1' } }])
    t.match(state.payments.requests.pay_1, { status: 'settled', settledAt: AT, paymentIntentId: 'pi_1' })
  })
  const paid = play([settle('settled')], texted)
  spec(paid).when(settle('settled', 'evt_2')).then(t, [])
  spec(paid).when(settle('expired', 'evt_3')).then(t, [])
  spec(paid).when(settle('failed', 'evt_4')).then(t, [])
  spec(texted).when(settle('settled', 'evt_5', 'cs_other')).thenThrows(t, 'payment_session_mismatch')

  const expired = play([settle('expired')], texted)
  t.equal(expired.at(-1)?.type, 'PaymentLinkExpired')
  spec(expired).when(settle('expired', 'evt_6')).then(t, [])
  const failed = play([settle('failed')], texted)
  t.equal(failed.at(-1)?.type, 'PaymentFailed')
  spec(failed).when(settle('failed', 'evt_7')).then(t, [])
})
