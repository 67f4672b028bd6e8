/**
 * What the edges (the request_payment tool, the CLI through it) may ask of payments. Implemented by
 * src/services/payments.service.ts.
 */
import type { AccountState } from '../domain/account/account.decider.ts'
import type { CommandContext } from '../eventstore/command-handler.ts'
import type { CarrierName } from '../integrations/carrier/carrier.port.ts'
import type { PaymentsProviderName } from '../integrations/payments/payments.port.ts'

/** Largest amount one pay-link may ask for, in the currency's smallest unit: 2,500,000 (USD 25,000.00). */
export const MAX_AMOUNT_CENTS = 2_500_000
export const MAX_DESCRIPTION = 250

export interface RequestPaymentInput {
  /** The customer: exactly one of the phone (any formatting) and the lead id. */
  readonly phone?: string | undefined
  readonly leadId?: string | undefined
  /** In the currency's smallest unit; 1 to MAX_AMOUNT_CENTS. */
  readonly amountCents: number
  readonly description: string
  /** The caller's key: ties the request (and its provider idempotency key) to it. */
  readonly idempotencyKey: string
  readonly dryRun: boolean
}

export interface RequestPaymentResult {
  /** `pay_…`; null for a dry run. */
  readonly requestId: string | null
  /** `texted` once the carrier accepted the text; `would_text` for a dry run. */
  readonly status: 'texted' | 'would_text'
  /** The pay-link; null for a dry run. */
  readonly url: string | null
  readonly amountCents: number
  readonly currency: string
  /** The amount as the customer reads it ("$125.00"). */
  readonly amount: string
  readonly description: string
  /** ISO UTC: the link takes no payment after this; null for a dry run. */
  readonly expiresAt: string | null
  /** The customer's number (E.164). */
  readonly textedTo: string
  /** The account's number the text goes out from (E.164). */
  readonly from: string
  /** The text as sent (for a dry run, with `<link>` where the link will be). */
  readonly message: string
  readonly messageId: string | null
  readonly leadId: string
  readonly connectedAccount: string | null
  readonly carrier: CarrierName
  readonly provider: PaymentsProviderName
  readonly dryRun: boolean
}

export interface PaymentsApi {
  /**
   * Texts the customer a card pay-link that settles into the account's connected account (or, for a
   * dry run, reports what would be sent). Refusals throw DomainError with codes
   * payments_not_configured, no_connected_account, customer_not_found, do_not_contact, stripe_error,
   * carrier_error.
   */
  requestPayment(account: AccountState, input: RequestPaymentInput, context: CommandContext): Promise<RequestPaymentResult>
}
