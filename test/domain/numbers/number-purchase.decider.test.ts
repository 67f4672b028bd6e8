/** Buying a number at most once: the purchase decider, given/when/then. */
import t from 'tap'
import { deciderSpec } from '../../helpers/decider-spec.ts'
import { numberPurchaseDecider } from '../../../src/domain/numbers/number-purchase.decider.ts'
import type { NumberPurchaseEvent } from '../../../src/domain/numbers/number-purchase.events.ts'

const NOW = '2026-03-10T15:00:00.000Z'
const given = deciderSpec(numberPurchaseDecider)
const N = '+13125550181'
const decide = (accountId: string, purchaseId = 'npu_1') => ({ type: 'DecidePurchase' as const, purchaseId, number: N, accountId, carrier: 'twilio', monthlyPrice: { amount: '1.15', currency: 'USD' } })
const decided: NumberPurchaseEvent = { type: 'NumberPurchaseDecided', data: { purchaseId: 'npu_1', number: N, accountId: 'acc_A', carrier: 'twilio', monthlyPrice: { amount: '1.15', currency: 'USD' }, decidedAt: NOW } }
const started: NumberPurchaseEvent = { type: 'NumberPurchaseStarted', data: { purchaseId: 'npu_1', number: N, node: 'node-1', startedAt: NOW } }
const bought: NumberPurchaseEvent = { type: 'NumberPurchased', data: { purchaseId: 'npu_1', number: N, accountId: 'acc_A', carrier: 'twilio', carrierSid: `PN${'1'.repeat(32)}`, purchasedAt: NOW } }

t.test('decided once: a second decision of the same account while one is open changes nothing; another account is refused', async (t) => {
  given().when(decide('acc_A')).then(t, [decided])
  given([decided]).when(decide('acc_A', 'npu_2')).then(t, [])
  given([decided, started]).when(decide('acc_A', 'npu_2')).then(t, [])
  given([decided]).when(decide('acc_B', 'npu_2')).thenThrows(t, 'number_purchase_in_progress')
  given().when({ ...decide('acc_A'), number: '3125550181' }).thenThrows(t, 'invalid_number')
})

t.test('claimed once; the outcome is recorded once, only for the claimed purchase', async (t) => {
  given([decided]).when({ type: 'StartPurchase', purchaseId: 'npu_1', node: 'node-1' }).then(t, [started])
  given([decided, started]).when({ type: 'StartPurchase', purchaseId: 'npu_1', node: 'node-2' }).then(t, [])
  given([decided]).when({ type: 'StartPurchase', purchaseId: 'npu_other', node: 'node-1' }).then(t, [])
  given([decided]).when({ type: 'RecordPurchased', purchaseId: 'npu_1', carrierSid: 'PN1' }).then(t, [])
  given([decided, started]).when({ type: 'RecordPurchased', purchaseId: 'npu_1', carrierSid: `PN${'1'.repeat(32)}` }).then(t, [bought])
  given([decided, started, bought]).when({ type: 'RecordPurchaseUnknown', purchaseId: 'npu_1', reason: 'late' }).then(t, [])
  given([decided]).when({ type: 'RecordPurchaseUnknown', purchaseId: 'npu_1', reason: 'x' }).then(t, [])
})

t.test('after the outcome: bought is not bought again, unknown is never decided again by itself, failed may be bought again', async (t) => {
  given([decided, started, bought]).when(decide('acc_A', 'npu_2')).then(t, [])
  given([decided, started, bought]).when(decide('acc_B', 'npu_2')).thenThrows(t, 'number_in_use')
  const unknown: NumberPurchaseEvent = { type: 'NumberPurchaseOutcomeUnknown', data: { purchaseId: 'npu_1', number: N, reason: 'timeout', at: NOW } }
  given([decided, started, unknown]).when(decide('acc_A', 'npu_2')).thenThrows(t, 'number_purchase_unknown')
  const failed: NumberPurchaseEvent = { type: 'NumberPurchaseFailed', data: { purchaseId: 'npu_1', number: N, failure: 'rejected', message: 'not available', carrierCode: 21422, at: NOW } }
  given([decided, started, failed]).when(decide('acc_B', 'npu_2')).then(t, (events) => t.match(events, [{ type: 'NumberPurchaseDecided', data: { purchaseId: 'npu_2', accountId: 'acc_B' } }]))
})
