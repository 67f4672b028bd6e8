/**
 * The simulated payments provider, used when no Stripe key is set (the embedded default). It makes
 * links the way Stripe would (the same idempotency key returns the same link, links expire after 24
 * hours), but each one points at Leadline's own page `{publicUrl}/pay/{sessionId}`, which says in
 * large type that no card will be charged and settles the request through the same settlement code
 * as Stripe's webhook. Nothing is ever charged: every link and result says `simulated`.
 */
import { randomBytes } from 'node:crypto'
import { PaymentsError, type CreatePayLinkRequest, type PayLink, type PaymentsProvider } from '../payments.port.ts'

/** How long a link takes payment: Stripe's default for Checkout Sessions. */
export const SIMULATED_LINK_TTL_MS = 24 * 60 * 60 * 1000
/** Simulated session ids: `cs_sim_` and 32 random base-16 characters (128 bits: the link is unguessable). */
export const SIMULATED_SESSION_ID = /^cs_sim_[0-9a-f]{32}$/

export interface SimulatedPaymentsOptions {
  /** LEADLINE_PUBLIC_URL: the links point at its `/pay/…` page. */
  readonly publicUrl: string
  readonly clock?: () => Date
}

export interface SimulatedLinkRecord {
  readonly request: CreatePayLinkRequest
  readonly link: PayLink
}

export interface SimulatedPayments extends PaymentsProvider {
  readonly name: 'simulated'
  /** Every link made, in order (a repeat with the same idempotency key is not a second link). */
  links(): SimulatedLinkRecord[]
  close(): Promise<void>
}

export function createSimulatedPayments(options: SimulatedPaymentsOptions): SimulatedPayments {
  const clock = options.clock ?? (() => new Date())
  const base = options.publicUrl.replace(/\/+$/, '')
  const byKey = new Map<string, SimulatedLinkRecord>()
  let closed = false

  return {
    name: 'simulated',

    async createPayLink(request: CreatePayLinkRequest): Promise<PayLink> {
      if (closed) throw new PaymentsError('rejected', 'the simulated payments provider is closed; no link was made')
      if (!Number.isInteger(request.amountCents) || request.amountCents <= 0) {
        throw new PaymentsError('rejected', `simulated: invalid amount ${request.amountCents}`, { status: 400, providerCode: 'parameter_invalid_integer' })
      }
      const seen = byKey.get(request.idempotencyKey)
      if (seen) {
        // Stripe's rule: the same key with other parameters is an error, never a second link.
        if (seen.request.amountCents !== request.amountCents || seen.request.currency !== request.currency || seen.request.description !== request.description) {
          throw new PaymentsError('rejected', 'simulated: idempotency key reused with other parameters', { status: 400, providerCode: 'idempotency_key_in_use' })
        }
        return seen.link
      }
      const sessionId = `cs_sim_${randomBytes(16).toString('hex')}`
      const link: PayLink = {
        sessionId,
        url: `${base}/pay/${sessionId}`,
        expiresAt: new Date(clock().getTime() + SIMULATED_LINK_TTL_MS).toISOString(),
        provider: 'simulated',
      }
      byKey.set(request.idempotencyKey, { request: { ...request, metadata: { ...request.metadata } }, link })
      return link
    },

    links: () => [...byKey.values()],

    async close(): Promise<void> {
      closed = true
    },
  }
}
