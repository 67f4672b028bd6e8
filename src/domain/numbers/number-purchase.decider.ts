/**
 * Buying a number, at most once: one decision open per number at a time; a second request of the
 * same account while one is open changes nothing (it waits for that one's outcome), another
 * account's is refused; a bought number is not bought again, and a purchase whose outcome is
 * unknown is never decided again by itself (the owner checks the carrier's list first).
 */
import { DomainError, type Decider } from '../shared/decider.ts'
import type { MonthlyPrice, NumberPurchaseEvent, NumberPurchaseFailure } from './number-purchase.events.ts'

export type NumberPurchaseCommand =
  | { type: 'DecidePurchase'; purchaseId: string; number: string; accountId: string; carrier: string; monthlyPrice: MonthlyPrice | null }
  | { type: 'StartPurchase'; purchaseId: string; node: string }
  | { type: 'RecordPurchased'; purchaseId: string; carrierSid: string }
  | { type: 'RecordPurchaseFailed'; purchaseId: string; failure: NumberPurchaseFailure; message: string; carrierCode: number | null }
  | { type: 'RecordPurchaseUnknown'; purchaseId: string; reason: string }

export type PurchaseStage = 'decided' | 'claimed' | 'bought' | 'failed' | 'unknown'

export interface NumberPurchase {
  readonly purchaseId: string
  readonly number: string
  readonly accountId: string
  readonly carrier: string
  readonly monthlyPrice: MonthlyPrice | null
  readonly stage: PurchaseStage
  readonly decidedAt: string
  readonly carrierSid: string | null
  readonly failure: NumberPurchaseFailure | null
  readonly message: string | null
}

export interface NumberPurchaseState {
  /** The latest purchase of the number; null when none was ever decided. */
  readonly current: NumberPurchase | null
}

const E164 = /^\+[1-9]\d{6,14}$/

/** Whether a purchase of this stage is still going: decided and not yet answered. */
export function purchaseOpen(purchase: NumberPurchase | null): boolean {
  return purchase !== null && (purchase.stage === 'decided' || purchase.stage === 'claimed')
}

function ended(state: NumberPurchaseState, purchaseId: string, stages: readonly PurchaseStage[]): NumberPurchase | null {
  const current = state.current
  return current !== null && current.purchaseId === purchaseId && stages.includes(current.stage) ? current : null
}

export const numberPurchaseDecider: Decider<NumberPurchaseCommand, NumberPurchaseEvent, NumberPurchaseState> = {
  initialState: () => ({ current: null }),

  evolve(state, event) {
    const current = state.current
    switch (event.type) {
      case 'NumberPurchaseDecided': {
        const { purchaseId, number, accountId, carrier, monthlyPrice, decidedAt } = event.data
        return { current: { purchaseId, number, accountId, carrier, monthlyPrice, stage: 'decided', decidedAt, carrierSid: null, failure: null, message: null } }
      }
      case 'NumberPurchaseStarted':
        return current === null ? state : { current: { ...current, stage: 'claimed' } }
      case 'NumberPurchased':
        return current === null ? state : { current: { ...current, stage: 'bought', carrierSid: event.data.carrierSid } }
      case 'NumberPurchaseFailed':
        return current === null ? state : { current: { ...current, stage: 'failed', failure: event.data.failure, message: event.data.message } }
      case 'NumberPurchaseOutcomeUnknown':
        return current === null ? state : { current: { ...current, stage: 'unknown', message: event.data.reason } }
    }
  },

  decide(command, state, now) {
    const at = now.toISOString()
    switch (command.type) {
      case 'DecidePurchase': {
        if (!E164.test(command.number)) throw new DomainError('invalid_number', `invalid number ${JSON.stringify(command.number.slice(0, 40))}: an E.164 number such as +13125550100`)
        const current = state.current
        if (current !== null && current.stage !== 'failed') {
          const mine = current.accountId === command.accountId
          if (purchaseOpen(current)) {
            if (mine) return [] // a second click: it joins the purchase going on
            throw new DomainError('number_purchase_in_progress', `${command.number} is being bought by another account`)
          }
          if (current.stage === 'bought') {
            if (mine) return []
            throw new DomainError('number_in_use', `the number ${command.number} was bought by another account: a number belongs to one account`)
          }
          throw new DomainError(
            'number_purchase_unknown',
            `an earlier purchase of ${command.number} has no known outcome (${current.message ?? 'no answer came'}): it is never asked again by itself; look for the number in the carrier account's list (leadline number list) and use it from there if it was bought`,
          )
        }
        const { purchaseId, number, accountId, carrier, monthlyPrice } = command
        return [{ type: 'NumberPurchaseDecided', data: { purchaseId, number, accountId, carrier, monthlyPrice, decidedAt: at } }]
      }
      case 'StartPurchase': {
        const open = ended(state, command.purchaseId, ['decided'])
        return open === null ? [] : [{ type: 'NumberPurchaseStarted', data: { purchaseId: open.purchaseId, number: open.number, node: command.node, startedAt: at } }]
      }
      case 'RecordPurchased': {
        const open = ended(state, command.purchaseId, ['claimed'])
        if (open === null) return []
        return [{ type: 'NumberPurchased', data: { purchaseId: open.purchaseId, number: open.number, accountId: open.accountId, carrier: open.carrier, carrierSid: command.carrierSid, purchasedAt: at } }]
      }
      case 'RecordPurchaseFailed': {
        const open = ended(state, command.purchaseId, ['decided', 'claimed'])
        if (open === null) return []
        return [{ type: 'NumberPurchaseFailed', data: { purchaseId: open.purchaseId, number: open.number, failure: command.failure, message: command.message.slice(0, 500), carrierCode: command.carrierCode, at } }]
      }
      case 'RecordPurchaseUnknown': {
        const open = ended(state, command.purchaseId, ['claimed'])
        return open === null ? [] : [{ type: 'NumberPurchaseOutcomeUnknown', data: { purchaseId: open.purchaseId, number: open.number, reason: command.reason.slice(0, 500), at } }]
      }
    }
  },
}
