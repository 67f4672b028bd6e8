/**
 * Events of the `numberpurchase-{number}` stream: buying a phone number from the carrier, at most
 * once. An owner's confirmed purchase is a decision on the number's own stream (so two clicks, two
 * owners or two nodes race on one append), the buyer claims it before the carrier is asked, and the
 * carrier's answer is recorded; a purchase whose outcome is unknown is never asked again.
 */
import type { DomainEvent } from '../shared/decider.ts'
import { effectOf, type Effect } from '../shared/effect.ts'
import { printable, type EventSummaries } from '../shared/printable.ts'

/** A monthly price as the carrier says it (a decimal string, in its currency). */
export interface MonthlyPrice {
  readonly amount: string
  readonly currency: string
}

export type NumberPurchaseDecided = DomainEvent<
  'NumberPurchaseDecided',
  {
    purchaseId: string
    number: string
    accountId: string
    /** The carrier it is bought from (`twilio`, `simulated`). */
    carrier: string
    /** The monthly price the owner confirmed, when the carrier said one. */
    monthlyPrice: MonthlyPrice | null
    decidedAt: string
  }
>
/** The claim, appended before the carrier is asked: one buyer performs each decision. */
export type NumberPurchaseStarted = DomainEvent<'NumberPurchaseStarted', { purchaseId: string; number: string; node: string; startedAt: string }>
/** The carrier sold it: the number is the carrier account's (Twilio: an IncomingPhoneNumber, `carrierSid` PN…). */
export type NumberPurchased = DomainEvent<'NumberPurchased', { purchaseId: string; number: string; accountId: string; carrier: string; carrierSid: string; purchasedAt: string }>

/**
 * Why a purchase came to nothing: the carrier refused it (`rejected`: no longer available, no funds),
 * it could not be asked (`unreachable`, `rate_limited` after the retries), the process stopped before
 * it asked (`interrupted`), or a restored backup's decision was never carried out (`restored_from_backup`).
 */
export type NumberPurchaseFailure = 'rejected' | 'unreachable' | 'rate_limited' | 'interrupted' | 'restored_from_backup'

export type NumberPurchaseFailed = DomainEvent<
  'NumberPurchaseFailed',
  { purchaseId: string; number: string; failure: NumberPurchaseFailure; message: string; carrierCode: number | null; at: string }
>
/** The carrier may have sold it (a timeout, a 5xx, a crash after the claim): reported, never asked again. */
export type NumberPurchaseOutcomeUnknown = DomainEvent<'NumberPurchaseOutcomeUnknown', { purchaseId: string; number: string; reason: string; at: string }>

export type NumberPurchaseEvent = NumberPurchaseDecided | NumberPurchaseStarted | NumberPurchased | NumberPurchaseFailed | NumberPurchaseOutcomeUnknown

/** The buyer's effect: the claims read model follows its decisions, claims and outcomes. */
export const NUMBER_PURCHASE_EFFECT: Effect = effectOf<NumberPurchaseEvent>()({
  name: 'number-buyer',
  decision: 'NumberPurchaseDecided',
  decidedAt: 'decidedAt',
  id: 'purchaseId',
  claims: { NumberPurchaseStarted: 'startedAt' },
  outcomes: ['NumberPurchased', 'NumberPurchaseFailed', 'NumberPurchaseOutcomeUnknown'],
})

const PREFIX = 'numberpurchase-'

export function numberPurchaseStream(number: string): string {
  return `${PREFIX}${number}`
}

/** The number a purchase stream is for; null for any other stream. */
export function parseNumberPurchaseStream(stream: string): { number: string } | null {
  return stream.startsWith(PREFIX) ? { number: stream.slice(PREFIX.length) } : null
}

export const NUMBER_PURCHASE_SUMMARIES: EventSummaries<NumberPurchaseEvent> = {
  NumberPurchaseDecided: (d) =>
    `purchase of ${printable(d.number)} from ${printable(d.carrier)} decided for account ${printable(d.accountId)}${d.monthlyPrice === null ? '' : ` at ${printable(d.monthlyPrice.amount)} ${printable(d.monthlyPrice.currency)} a month`}`,
  NumberPurchaseStarted: (d) => `purchase of ${printable(d.number)} started on ${printable(d.node)}`,
  NumberPurchased: (d) => `${printable(d.number)} bought from ${printable(d.carrier)} (${printable(d.carrierSid)}) for account ${printable(d.accountId)}`,
  NumberPurchaseFailed: (d) => `purchase of ${printable(d.number)} failed (${printable(d.failure)}): ${printable(d.message)}`,
  NumberPurchaseOutcomeUnknown: (d) => `purchase of ${printable(d.number)} outcome unknown, never asked again: ${printable(d.reason)}`,
}
