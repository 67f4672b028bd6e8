/**
 * `POST /api/payments/stripe/webhook`: Stripe's Connect events about pay-links. The signature is
 * checked with the SDK over the raw body (so this plugin keeps the body as bytes: parsed JSON could
 * not be verified), then Checkout Session events become settlement events on the lead through the
 * same code as the simulated pay page. Answers: 400 for a bad signature; 200 for everything that
 * verifies, also events Leadline ignores (other types, other connected accounts), so Stripe stops
 * retrying them; 5xx only when the log cannot take the write, so Stripe retries. Without Stripe
 * configured, 404.
 */
import type { FastifyPluginAsync } from 'fastify'
import { recordSettlement } from '../../commands/record-settlement.command.ts'
import type { verifyStripeWebhook } from '../../integrations/payments/stripe/index.ts'
import { sendError } from '../errors.ts'
import { wellFormedInput } from '../well-formed-input.ts'

export const STRIPE_WEBHOOK_PATH = '/api/payments/stripe/webhook'
/** Checkout Session events are a few KiB; Stripe's own limit for event payloads is far below this. */
export const STRIPE_WEBHOOK_BODY_LIMIT = 512 * 1024
/** Stripe's objects nest a handful of levels; deeper is not an event. */
const STRIPE_EVENT_MAX_DEPTH = 64

function isStripeEvent(value: unknown): value is ReturnType<typeof verifyStripeWebhook> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const event = value as Record<string, unknown>
  const data = event.data as Record<string, unknown> | null | undefined
  return typeof event.id === 'string' && typeof event.type === 'string' && typeof event.created === 'number' && typeof data === 'object' && data !== null && 'object' in data
}

export const stripeWebhookRoute: FastifyPluginAsync = async (fastify) => {
  // This plugin's scope only: every body stays the exact bytes Stripe signed.
  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: STRIPE_WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body))

  fastify.post(STRIPE_WEBHOOK_PATH, async (request, reply) => {
    const { leadline } = fastify
    const secret = leadline.stripeWebhookSecret
    if (secret === null) return sendError(reply, 'not_found', 'Stripe is not configured on this server (payments are simulated)')
    // Loaded on Stripe's first event: a server with simulated payments never loads the Stripe SDK.
    const { settlementFromStripeEvent, verifyStripeWebhook } = await import('../../integrations/payments/stripe/index.ts')
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
    const header = request.headers['stripe-signature']
    let event: ReturnType<typeof verifyStripeWebhook>
    try {
      event = verifyStripeWebhook(raw, Array.isArray(header) ? header[0] : header, secret)
    } catch (error) {
      request.log.warn({ err: { message: (error as Error).message } }, 'rejected a Stripe webhook with a bad signature')
      return sendError(reply, 'invalid_stripe_signature', 'the Stripe-Signature header does not match the body for STRIPE_WEBHOOK_SECRET')
    }
    // Signed is not the same as well formed: only an event object we can read goes on (a signed `null`
    // or a lone surrogate in an id was a 500, and Stripe retries those for days; found by the fuzzer).
    const readable = wellFormedInput(event, STRIPE_EVENT_MAX_DEPTH)
    if (!readable.ok || !isStripeEvent(readable.value)) {
      request.log.warn('rejected a signed Stripe webhook that is not a readable event')
      return sendError(reply, 'invalid_request', 'the body is not a Stripe event (an object with id, type, created and data.object)')
    }
    event = readable.value
    const notice = settlementFromStripeEvent(event)
    if (notice === null) {
      request.log.info({ eventId: event.id, type: event.type }, 'Stripe event not used by Leadline')
      return reply.code(200).send({ received: true, handled: false })
    }
    const result = await recordSettlement(leadline, notice)
    if (result.kind === 'ignored') {
      request.log.warn(
        { eventId: event.id, type: event.type, account: notice.connectedAccount, sessionId: notice.sessionId, reason: result.reason },
        'Stripe event ignored: not a pay-link of a Leadline account on this connected account',
      )
      return reply.code(200).send({ received: true, handled: false, reason: result.reason })
    }
    return reply.code(200).send({ received: true, handled: true, duplicate: result.kind === 'duplicate' })
  })
}
