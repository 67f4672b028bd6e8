/** The payments slice's events on the lead's stream: pay-links asked, made, texted, and how each payment settled. */
import type { DomainEvent } from '../../shared/decider.ts'
import { money, printable, quoted, type EventSummaries } from '../../shared/printable.ts'
import { effectOf, type Effect } from '../../shared/effect.ts'

export type PaymentsProviderName = 'stripe' | 'simulated'

/** The decision to ask this person for one payment. Exactly one exists per request id (and per idempotency key). */
export type PaymentRequested = DomainEvent<
  'PaymentRequested',
  {
    leadId: string
    requestId: string
    /** In the currency's smallest unit. */
    amountCents: number
    currency: string
    description: string
    /** The connected account the charge is made on (`acct_…`); null with the simulated provider. */
    connectedAccount: string | null
    provider: PaymentsProviderName
    /** The caller's idempotency key (one request per key and lead). */
    idempotencyKey: string
    /** The key the provider request carries (derived from the account and the caller's key). */
    providerIdempotencyKey: string
    /** The account's number the link is texted from, and the person's. */
    from: string
    to: string
    requestedAt: string
  }
>
export type PayLinkCreated = DomainEvent<
  'PayLinkCreated',
  { requestId: string; sessionId: string; url: string; expiresAt: string; provider: PaymentsProviderName; at: string }
>
/** The provider made no link (stripe_error); nothing is texted for this request. */
export type PayLinkFailed = DomainEvent<'PayLinkFailed', { requestId: string; failure: string; message: string; providerCode: string | null; at: string }>
/** Recorded before the carrier is asked, so a crash leaves "outcome unknown", never a second text. */
export type PayLinkTextAttempted = DomainEvent<'PayLinkTextAttempted', { requestId: string; node: string; from: string; to: string; body: string; at: string }>
export type PayLinkTexted = DomainEvent<'PayLinkTexted', { requestId: string; messageId: string; carrier: string; at: string }>
export type PayLinkTextFailed = DomainEvent<
  'PayLinkTextFailed',
  { requestId: string; failure: string; message: string; carrierCode: number | null; at: string }
>
export type PayLinkTextOutcomeUnknown = DomainEvent<'PayLinkTextOutcomeUnknown', { requestId: string; reason: string; at: string }>
/** Never texted: the log was restored from a backup taken before the pay-link was known to have gone out (`reason`: `restored_from_backup`). */
export type PaymentRequestExpired = DomainEvent<'PaymentRequestExpired', { requestId: string; reason: string; at: string }>
/** The money arrived in the connected account (or, simulated, would have). */
export type PaymentSettled = DomainEvent<
  'PaymentSettled',
  {
    requestId: string
    sessionId: string
    amountCents: number
    currency: string
    paymentIntentId: string | null
    provider: PaymentsProviderName
    providerEventId: string
    at: string
  }
>
export type PaymentFailed = DomainEvent<'PaymentFailed', { requestId: string; sessionId: string; provider: PaymentsProviderName; providerEventId: string; at: string }>
export type PaymentLinkExpired = DomainEvent<'PaymentLinkExpired', { requestId: string; sessionId: string; provider: PaymentsProviderName; providerEventId: string; at: string }>

export type PaymentEvent =
  | PaymentRequested
  | PayLinkCreated
  | PayLinkFailed
  | PayLinkTextAttempted
  | PayLinkTexted
  | PayLinkTextFailed
  | PayLinkTextOutcomeUnknown
  | PaymentRequestExpired
  | PaymentSettled
  | PaymentFailed
  | PaymentLinkExpired

export function isPaymentEvent(event: { readonly type: string }): event is PaymentEvent {
  return Object.hasOwn(PAYMENT_SUMMARIES, event.type)
}

// Every type of the union, once (the compiler refuses a missing or a stray one): also what `is…Event` checks.
export const PAYMENT_SUMMARIES: EventSummaries<PaymentEvent> = {
  PaymentRequested: (d) =>
    `payment requested: ${money(d.amountCents, d.currency)} for ${quoted(d.description)} through ${printable(d.provider)}${d.connectedAccount !== null ? ` on ${printable(d.connectedAccount)}` : ''}, pay-link to be texted ${printable(d.from)} → ${printable(d.to)}`,
  PayLinkCreated: (d) => `pay-link created by ${printable(d.provider)} (session ${printable(d.sessionId)}), expires ${printable(d.expiresAt)}`,
  PayLinkFailed: (d) => `pay-link not created: ${printable(d.failure)}: ${printable(d.message)}${d.providerCode !== null ? ` (provider code ${printable(d.providerCode)})` : ''}`,
  PayLinkTextAttempted: (d) => `pay-link text started on node ${printable(d.node)}, ${printable(d.from)} → ${printable(d.to)}`,
  PayLinkTexted: (d) => `pay-link texted through ${printable(d.carrier)} (message ${printable(d.messageId)})`,
  PayLinkTextFailed: (d) => `pay-link text failed: ${printable(d.failure)}: ${printable(d.message)}${d.carrierCode !== null ? ` (carrier code ${d.carrierCode})` : ''}`,
  PayLinkTextOutcomeUnknown: (d) => `pay-link text outcome unknown: ${printable(d.reason)} (never resent)`,
  PaymentRequestExpired: (d) => `pay-link request expired, never texted: ${printable(d.reason)}`,
  PaymentSettled: (d) => `payment settled: ${money(d.amountCents, d.currency)} through ${printable(d.provider)}${d.paymentIntentId !== null ? ` (payment ${printable(d.paymentIntentId)})` : ''}`,
  PaymentFailed: (d) => `payment failed (${printable(d.provider)} session ${printable(d.sessionId)})`,
  PaymentLinkExpired: (d) => `pay-link expired unpaid (${printable(d.provider)} session ${printable(d.sessionId)})`,
}

/**
 * The pay-link sender's effect: a payment request, whose text is claimed once before the carrier is
 * asked and ended by what the carrier did; a request ends unclaimed when the provider made no link,
 * or when the lead became do-not-call before the text (PayLinkTextFailed with no claim).
 */
export const PAY_LINK_EFFECT = effectOf<PaymentEvent>()({
  name: 'pay-link-sender',
  decision: 'PaymentRequested',
  decidedAt: 'requestedAt',
  id: 'requestId',
  claims: { PayLinkTextAttempted: 'at' },
  outcomes: ['PayLinkFailed', 'PayLinkTexted', 'PayLinkTextFailed', 'PayLinkTextOutcomeUnknown', 'PaymentRequestExpired'],
})

/** The slice's effects: the claims read model follows each (lead.decider.ts gathers every slice's). */
export const PAYMENT_EFFECTS: readonly Effect[] = [PAY_LINK_EFFECT]
