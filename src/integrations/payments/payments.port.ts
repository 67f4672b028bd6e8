/**
 * The payments port: how Leadline makes a card pay-link that settles into an account's own
 * connected payment account. Adapters: Stripe (official SDK, Checkout Sessions as direct charges on
 * the connected account) and the simulated provider (embedded default: nothing is ever charged).
 * Every request carries an idempotency key derived from the payment decision, so sending it again
 * (a retry, a second node, a restart) returns the same link instead of making another.
 */

export type PaymentsProviderName = 'stripe' | 'simulated'

export interface CreatePayLinkRequest {
  /** Leadline's payment request id (`pay_…`): the decision this link performs. */
  readonly requestId: string
  /** In the currency's smallest unit (cents for usd). */
  readonly amountCents: number
  /** ISO 4217, lower case (`usd`). */
  readonly currency: string
  /** What the customer pays for: shown on the payment page. */
  readonly description: string
  /** The account's connected payment account (`acct_…`); the charge is made on it. Null only for the simulated provider. */
  readonly connectedAccount: string | null
  /** Derived from the decision; the same key always yields the same link. */
  readonly idempotencyKey: string
  /** Ties the link back to its lead and request (Stripe: Checkout Session and PaymentIntent metadata). */
  readonly metadata: Readonly<Record<string, string>>
  /** Where the payment page sends the customer after paying. */
  readonly successUrl: string
  /** The business name, for the payment page (simulated provider). */
  readonly businessName: string
}

export interface PayLink {
  /** The provider's id for the payment page (Stripe: Checkout Session id `cs_…`). */
  readonly sessionId: string
  /** The link the customer is texted. */
  readonly url: string
  /** ISO UTC: after this the link no longer takes a payment. */
  readonly expiresAt: string
  readonly provider: PaymentsProviderName
}

/**
 * How a failed request may be treated (branch on `failure`, never on the message):
 * - `rejected`: the provider refused it (bad parameters, bad key, no access to the connected account); the same request will not succeed.
 * - `rate_limited`: refused for now; nothing was created. Safe to send again (same idempotency key).
 * - `unreachable`: the request never reached the provider. Safe to send again.
 * - `unknown_outcome`: the provider may have created the link (timeout, 5xx). Safe to send again only because of the idempotency key.
 */
export type PaymentsFailure = 'rejected' | 'rate_limited' | 'unreachable' | 'unknown_outcome'

export interface PaymentsErrorDetails {
  /** HTTP status of the provider's answer, when there was one. */
  readonly status?: number
  /** The provider's own error code (Stripe: `parameter_invalid_integer`, `account_invalid`, …). */
  readonly providerCode?: string
  /** The provider's request id (Stripe: `req_…`), for its support. */
  readonly providerRequestId?: string
}

export class PaymentsError extends Error {
  readonly type = 'payments_error'

  constructor(
    readonly failure: PaymentsFailure,
    message: string,
    readonly details: PaymentsErrorDetails = {},
    options: { cause?: unknown } = {},
  ) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined)
    this.name = 'PaymentsError'
  }
}

export interface PaymentsProvider {
  readonly name: PaymentsProviderName
  createPayLink(request: CreatePayLinkRequest): Promise<PayLink>
  close?(): Promise<void>
}

/**
 * What a provider says happened to a pay-link, in the port's words: the Stripe webhook and the
 * simulated pay page both produce one, and both go through the same settlement code.
 */
export interface SettlementNotice {
  readonly provider: PaymentsProviderName
  /** The provider's event id (Stripe `evt_…`), recorded so duplicates can be recognised. */
  readonly eventId: string
  readonly outcome: 'settled' | 'failed' | 'expired'
  /** The connected account the event came from (Stripe's `account`); null for the simulated provider. */
  readonly connectedAccount: string | null
  readonly sessionId: string
  /** From the link's metadata. */
  readonly leadStream: string | null
  readonly requestId: string | null
  readonly amountCents: number | null
  readonly currency: string | null
  /** Stripe's PaymentIntent id (`pi_…`), when there is one. */
  readonly paymentIntentId: string | null
  /** ISO UTC time the provider says it happened. */
  readonly at: string
}

/** Metadata keys Leadline puts on every link. */
export const METADATA = {
  leadStream: 'leadline_lead_stream',
  requestId: 'leadline_request_id',
  accountId: 'leadline_account_id',
  leadId: 'leadline_lead_id',
} as const

/** True when sending the same request again cannot create a second link (and may succeed). */
export function isRetryablePaymentsFailure(error: unknown): boolean {
  return error instanceof PaymentsError && error.failure !== 'rejected'
}
