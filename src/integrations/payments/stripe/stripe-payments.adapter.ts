/**
 * Stripe payments adapter, over the official `stripe` SDK. A pay-link is a Checkout Session in
 * payment mode, made as a direct charge on the account's connected account (the SDK's
 * `stripeAccount` option: the `Stripe-Account` header), with the amount and description as
 * `price_data`, metadata that ties it to the lead and the request, and an `Idempotency-Key` derived
 * from the decision. Because of that key, every retry (the SDK's own on connection errors, 409 and
 * 5xx, and ours on 429) returns the same session: one decision, one Checkout Session.
 *
 * `apiUrl` (STRIPE_API_URL) is mapped onto the SDK's `host`/`port`/`protocol` options, for
 * stripe-mock and the test fake; requests otherwise go to api.stripe.com.
 */
import http from 'node:http'
import https from 'node:https'
import Stripe from 'stripe'
import {
  METADATA,
  PaymentsError,
  type CreatePayLinkRequest,
  type PayLink,
  type PaymentsErrorDetails,
  type PaymentsProvider,
  type SettlementNotice,
} from '../payments.port.ts'

export const STRIPE_API_URL = 'https://api.stripe.com'
export const DEFAULT_STRIPE_TIMEOUT_MS = 10_000
/** The SDK retries connection errors, 409 and 5xx this many times, with the same Idempotency-Key. */
export const DEFAULT_STRIPE_NETWORK_RETRIES = 2

export interface StripePaymentsOptions {
  secretKey: string
  /** Replaces https://api.stripe.com (host, port and protocol; a path is not supported by the SDK). */
  apiUrl?: string
  timeoutMs?: number
  maxNetworkRetries?: number
}

export interface StripePayments extends PaymentsProvider {
  readonly name: 'stripe'
  close(): Promise<void>
}

/** The SDK's `host`, `port` and `protocol` for an API URL such as `http://127.0.0.1:12111`. */
export function stripeConnection(apiUrl: string): { host: string; port: number; protocol: 'http' | 'https' } {
  const url = new URL(apiUrl)
  const protocol = url.protocol === 'http:' ? 'http' : 'https'
  const port = url.port === '' ? (protocol === 'http' ? 80 : 443) : Number(url.port)
  // new URL keeps IPv6 hosts in brackets; http.request wants them bare.
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port, protocol }
}

export function createStripePayments(options: StripePaymentsOptions): StripePayments {
  const connection = stripeConnection(options.apiUrl ?? STRIPE_API_URL)
  // Our own agent, so close() can drop its sockets; keep-alive is safe here: every POST carries its key.
  const agent = connection.protocol === 'http' ? new http.Agent({ keepAlive: true }) : new https.Agent({ keepAlive: true })
  const stripe = new Stripe(options.secretKey, {
    ...connection,
    httpAgent: agent,
    timeout: options.timeoutMs ?? DEFAULT_STRIPE_TIMEOUT_MS,
    maxNetworkRetries: options.maxNetworkRetries ?? DEFAULT_STRIPE_NETWORK_RETRIES,
    telemetry: false,
    appInfo: { name: 'Leadline' },
  })
  let closed = false

  return {
    name: 'stripe',

    async createPayLink(request: CreatePayLinkRequest): Promise<PayLink> {
      if (closed) throw new PaymentsError('rejected', 'the stripe provider is closed; no link was made')
      if (request.connectedAccount === null) throw new PaymentsError('rejected', 'a Stripe pay-link needs a connected account (acct_…)')
      let session: Stripe.Checkout.Session
      try {
        session = await stripe.checkout.sessions.create(
          {
            mode: 'payment',
            line_items: [
              { quantity: 1, price_data: { currency: request.currency, unit_amount: request.amountCents, product_data: { name: request.description } } },
            ],
            payment_intent_data: { description: request.description, metadata: { ...request.metadata } },
            metadata: { ...request.metadata },
            client_reference_id: request.requestId,
            success_url: request.successUrl,
          },
          { stripeAccount: request.connectedAccount, idempotencyKey: request.idempotencyKey },
        )
      } catch (error) {
        throw toPaymentsError(error)
      }
      if (typeof session.url !== 'string' || session.url === '') {
        throw new PaymentsError('unknown_outcome', `stripe made Checkout Session ${session.id} without a url`)
      }
      return { sessionId: session.id, url: session.url, expiresAt: new Date(session.expires_at * 1000).toISOString(), provider: 'stripe' }
    },

    async close(): Promise<void> {
      closed = true
      agent.destroy()
    },
  }
}

/** Network errors raised before the request was written: Stripe cannot have acted on it. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL'])

function details(error: InstanceType<typeof Stripe.errors.StripeError>): PaymentsErrorDetails {
  return {
    ...(error.statusCode !== undefined ? { status: error.statusCode } : {}),
    ...(error.code !== undefined ? { providerCode: error.code } : {}),
    ...(error.requestId !== undefined ? { providerRequestId: error.requestId } : {}),
  }
}

/** The SDK's error classes mapped onto the port's failures (after the SDK's own retries). */
export function toPaymentsError(error: unknown): PaymentsError {
  if (error instanceof PaymentsError) return error
  const cause = { cause: error }
  const E = Stripe.errors
  if (!(error instanceof E.StripeError)) {
    return new PaymentsError('unknown_outcome', `stripe request failed: ${error instanceof Error ? error.message : String(error)}`, {}, cause)
  }
  const said = error.message
  if (error instanceof E.StripeRateLimitError) return new PaymentsError('rate_limited', `stripe rate-limited the request: ${said}`, details(error), cause)
  if (error instanceof E.StripeConnectionError) {
    const code = (error.detail as { code?: unknown } | undefined)?.code
    if (typeof code === 'string' && NOT_SENT_CODES.has(code)) {
      return new PaymentsError('unreachable', `stripe is unreachable (${code}); nothing was created`, details(error), cause)
    }
    return new PaymentsError('unknown_outcome', `no complete answer from stripe: ${said}`, details(error), cause)
  }
  if (error instanceof E.StripeAPIError || (error.statusCode !== undefined && error.statusCode >= 500)) {
    return new PaymentsError('unknown_outcome', `stripe failed on the request: ${said}`, details(error), cause)
  }
  // Card, invalid request, authentication, permission, idempotency errors: sending it again will not help.
  return new PaymentsError('rejected', `stripe refused the request: ${said}`, details(error), cause)
}

/** How far a signature's timestamp may be from now, either way (the SDK's default, 5 minutes). */
export const STRIPE_SIGNATURE_TOLERANCE_SECONDS = 300

/**
 * Verifies `Stripe-Signature` over the raw body with the SDK (a constant-time comparison of the
 * HMAC, and a timestamp at most 5 minutes old, so a captured delivery cannot be replayed later);
 * throws Stripe's signature error when it does not match. The SDK only bounds the age: a timestamp
 * more than 5 minutes in the future is refused here too (found by the fuzzer).
 */
export function verifyStripeWebhook(rawBody: Buffer | string, signature: string | undefined, secret: string, now: number = Date.now()): Stripe.Event {
  const event = Stripe.webhooks.constructEvent(rawBody, signature ?? '', secret, STRIPE_SIGNATURE_TOLERANCE_SECONDS, undefined, now)
  // Read the timestamp as the SDK does (the last `t=`, parseInt), so both checks judge the same value.
  let stamped = Number.NaN
  for (const item of (signature ?? '').split(',')) {
    const [name, value] = item.split('=')
    if (name === 't') stamped = Number.parseInt(value ?? '', 10)
  }
  if (!(stamped - now / 1000 <= STRIPE_SIGNATURE_TOLERANCE_SECONDS)) {
    throw new Stripe.errors.StripeSignatureVerificationError(signature ?? '', rawBody, { message: 'Timestamp is in the future, outside the tolerance zone' })
  }
  return event
}

/** The Checkout Session events Leadline settles on. */
export const SETTLEMENT_EVENT_TYPES = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'checkout.session.expired',
] as const

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null
}

/**
 * A verified Stripe event in the port's words; null for an event that settles nothing (another
 * type, or a completed session whose asynchronous payment is still pending).
 */
export function settlementFromStripeEvent(event: { id: string; type: string; created: number; account?: string | null; data: { object: unknown } }): SettlementNotice | null {
  const outcome =
    event.type === 'checkout.session.async_payment_succeeded'
      ? 'settled'
      : event.type === 'checkout.session.async_payment_failed'
        ? 'failed'
        : event.type === 'checkout.session.expired'
          ? 'expired'
          : event.type === 'checkout.session.completed'
            ? 'completed'
            : null
  if (outcome === null) return null
  const session = event.data.object as Partial<Stripe.Checkout.Session>
  if (typeof session !== 'object' || session === null || typeof session.id !== 'string') return null
  // Completed with a delayed payment method (bank debits): the money is not there yet; async_payment_* follows.
  if (outcome === 'completed' && session.payment_status !== 'paid' && session.payment_status !== 'no_payment_required') return null
  const metadata = (session.metadata ?? {}) as Record<string, unknown>
  const intent = session.payment_intent
  return {
    provider: 'stripe',
    eventId: event.id,
    outcome: outcome === 'completed' ? 'settled' : outcome,
    connectedAccount: text(event.account),
    sessionId: session.id,
    leadStream: text(metadata[METADATA.leadStream]),
    requestId: text(metadata[METADATA.requestId]),
    amountCents: typeof session.amount_total === 'number' ? session.amount_total : null,
    currency: text(session.currency),
    paymentIntentId: typeof intent === 'string' ? intent : text((intent as { id?: unknown } | null | undefined)?.id),
    // Past the range of a Date (±8.64e12 s) toISOString throws: such a time is no time at all.
    at: new Date((Number.isFinite(event.created) && Math.abs(event.created) < 8.64e12 ? event.created : 0) * 1000).toISOString(),
  }
}
