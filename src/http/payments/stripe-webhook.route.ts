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
import { z } from 'zod'
import { recordSettlement } from '../../commands/record-settlement.command.ts'
import type { verifyStripeWebhook } from '../../integrations/payments/stripe/index.ts'
import { errorBodySchema, sendError } from '../errors.ts'
import { answersAsWritten, signedBodyValidator } from '../route-schemas.ts'
import { wellFormedInput } from '../well-formed-input.ts'

export const STRIPE_WEBHOOK_PATH = '/api/payments/stripe/webhook'
/** Checkout Session events are a few KiB; Stripe's own limit for event payloads is far below this. */
export const STRIPE_WEBHOOK_BODY_LIMIT = 512 * 1024
/** Stripe's objects nest a handful of levels; deeper is not an event. */
const STRIPE_EVENT_MAX_DEPTH = 64

/** What the route reads of an event, checked once its signature is: the rest is Stripe's (docs/payments.md). */
export const stripeEventSchema = z.looseObject({
  id: z.string().describe('`evt_…`: an event is recorded once'),
  type: z.string().describe('`checkout.session.completed`, `checkout.session.async_payment_succeeded`, `…_failed`, `checkout.session.expired` are used; others are answered 200 and ignored'),
  created: z.number(),
  account: z.string().nullish().describe('The connected account the pay-link was made on'),
  data: z.looseObject({ object: z.unknown().describe('The Checkout Session') }).refine((data) => Object.hasOwn(data, 'object'), 'data.object is missing'),
}).describe('A Stripe event (Connect), signed with the endpoint\'s secret')

const receivedSchema = z.object({
  received: z.literal(true),
  handled: z.boolean().describe('`false`: verified, but not about a pay-link of this account (a type not used, another connected account, an unknown session)'),
  duplicate: z.boolean().optional().describe('The request was already settled: nothing new recorded'),
  reason: z.string().optional().describe('Why it was ignored: `connected_account_mismatch`, `unknown_session`, …'),
})

export const stripeWebhookRoute: FastifyPluginAsync = async (fastify) => {
  // This plugin's scope only: every body stays the exact bytes Stripe signed.
  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: STRIPE_WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body))

  fastify.post(STRIPE_WEBHOOK_PATH, {
    schema: {
      summary: 'Stripe\'s events about pay-links',
      description: 'Set up in Stripe as a Connect webhook endpoint (docs/payments.md). The `Stripe-Signature` header is checked over the raw body with STRIPE_WEBHOOK_SECRET before the body is read.',
      tags: ['callbacks'],
      headers: z.looseObject({ 'stripe-signature': z.string().optional().describe('Stripe\'s signature of the body; a missing one is the same 400 as a wrong one') }),
      body: stripeEventSchema,
      response: {
        200: receivedSchema.describe('Verified; recorded, or ignored when it is not about one of Leadline\'s pay-links (so Stripe stops retrying)'),
        400: errorBodySchema.describe('`invalid signature`, or `invalid request`: signed, but not a Stripe event'),
        404: errorBodySchema.describe('`not found`: Stripe is not configured on this server'),
        503: errorBodySchema.describe('`store unavailable`: nothing was recorded; Stripe retries'),
      },
    },
    validatorCompiler: signedBodyValidator,
    // A recorded event must never be answered 500 (Stripe would retry it for days).
    serializerCompiler: answersAsWritten,
  }, async (request, reply) => {
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
    if (!readable.ok || !stripeEventSchema.safeParse(readable.value).success) {
      request.log.warn('rejected a signed Stripe webhook that is not a readable event')
      return sendError(reply, 'invalid_request', 'the body is not a Stripe event (an object with id, type, created and data.object)')
    }
    event = readable.value as typeof event
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
