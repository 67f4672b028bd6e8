/**
 * `GET/POST /api/ingest/facebook`: Facebook Lead Ads' app-level webhook (docs/facebook-lead-ads.md).
 * GET answers the subscription check (`hub.mode=subscribe`) with `hub.challenge` when
 * `hub.verify_token` is the operator's FACEBOOK_VERIFY_TOKEN. POST checks `X-Hub-Signature-256` (an
 * HMAC-SHA256 of the raw body with FACEBOOK_APP_SECRET) before the body is even parsed: a bad or
 * missing one is a 403 and nothing is recorded. Each `leadgen` change is recorded on the log, once
 * per leadgen id, and answered 200 at once; the lead is fetched after the answer, from the log
 * (src/processes/facebook-lead-fetcher/). A page no account connected is logged and answered 200
 * too: Facebook retries anything else for days, and a retry would not change the answer. Without
 * Facebook configured, 404.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { readLeadgenNotification } from '../../domain/facebook-lead-ads/leadgen-notification.ts'
import { errorBodySchema, sendError } from '../errors.ts'
import { answersAsWritten, signedBodyValidator } from '../route-schemas.ts'
import { wellFormedInput } from '../well-formed-input.ts'

export const FACEBOOK_WEBHOOK_PATH = '/api/ingest/facebook'
/** Facebook batches changes into one delivery; a batch of leadgen changes is far below this. */
export const FACEBOOK_WEBHOOK_BODY_LIMIT = 1024 * 1024
const MAX_DEPTH = 16
/** Facebook's challenge is a number; anything echoed back is kept to plain characters. */
const CHALLENGE = /^[A-Za-z0-9._~-]{1,256}$/

/** Constant time over the SHA-256 of both sides, so neither length nor content leaks through timing. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHmac('sha256', 'leadline-compare').update(text).digest()
  return timingSafeEqual(digest(given), digest(expected))
}

/** `sha256=<hex>` as Facebook signs the raw body with the app secret; false when missing or wrong. */
export function validSignature(raw: Buffer, header: string | string[] | undefined, appSecret: string): boolean {
  const value = Array.isArray(header) ? header[0] : header
  const match = /^sha256=([0-9a-f]{64})$/i.exec(value?.trim() ?? '')
  if (match === null) return false
  const expected = createHmac('sha256', appSecret).update(raw).digest()
  return timingSafeEqual(Buffer.from((match[1] as string).toLowerCase(), 'hex'), expected)
}

export const facebookWebhookRoute: FastifyPluginAsync = async (fastify) => {
  // This plugin's scope only: the body stays the exact bytes Facebook signed, whatever its content type.
  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: FACEBOOK_WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body))

  type Configured = NonNullable<typeof fastify.leadline.facebook>
  // Before the query is validated or the body read: without Facebook configured there is nothing here.
  const configured = async (_request: FastifyRequest, reply: FastifyReply) => {
    if (fastify.leadline.facebook === null) return sendError(reply, 'not_found', 'Facebook Lead Ads is not configured on this server (FACEBOOK_APP_SECRET, FACEBOOK_VERIFY_TOKEN)')
  }

  fastify.withTypeProvider<ZodTypeProvider>().get(FACEBOOK_WEBHOOK_PATH, {
    schema: {
      summary: 'Facebook\'s subscription check',
      description: 'Facebook asks once, when the app\'s webhook is set up (docs/facebook-lead-ads.md): answered with `hub.challenge` when `hub.verify_token` is FACEBOOK_VERIFY_TOKEN.',
      tags: ['callbacks'],
      response: {
        200: { description: '`hub.challenge`, as sent', content: { 'text/plain': { schema: z.string() } } },
        400: errorBodySchema.describe('`invalid request`: not a subscription check'),
        403: errorBodySchema.describe('`invalid verify token`'),
        404: errorBodySchema.describe('`not found`: Facebook Lead Ads is not configured on this server'),
      },
      querystring: z.looseObject({
        'hub.mode': z.literal('subscribe'),
        'hub.challenge': z.string().regex(CHALLENGE),
        // Checked against the secret below, so a missing one is the same 403 as a wrong one.
        'hub.verify_token': z.string().optional(),
      }),
    },
    onRequest: configured,
    errorHandler: (error, _request, reply) => {
      if (error.validationContext === 'querystring') {
        return sendError(reply, 'invalid_request', 'expected hub.mode=subscribe with hub.challenge and hub.verify_token (Facebook\'s subscription check)')
      }
      throw error
    },
  }, async (request, reply) => {
    const facebook = fastify.leadline.facebook as Configured // `configured` answered otherwise
    const { 'hub.verify_token': token, 'hub.challenge': challenge } = request.query
    if (token === undefined || !sameSecret(token, facebook.config.verifyToken)) {
      request.log.warn('refused a Facebook subscription check: hub.verify_token is not FACEBOOK_VERIFY_TOKEN')
      return sendError(reply, 'invalid_verify_token', 'hub.verify_token is not the verify token this server was given (FACEBOOK_VERIFY_TOKEN)')
    }
    request.log.info('Facebook subscription check answered')
    return reply.code(200).type('text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send(challenge)
  })

  fastify.post(FACEBOOK_WEBHOOK_PATH, {
    schema: {
      summary: 'Facebook Lead Ads\' notifications',
      description: 'The app\'s `leadgen` notifications (docs/facebook-lead-ads.md). `X-Hub-Signature-256` is checked over the raw body with FACEBOOK_APP_SECRET before it is read; each leadgen id is recorded once, and the lead is fetched from Facebook after the answer. Changes other than `leadgen` are answered and not used.',
      tags: ['callbacks'],
      headers: z.looseObject({ 'x-hub-signature-256': z.string().optional().describe('`sha256=<hex>`; a missing one is the same 403 as a wrong one') }),
      body: z.looseObject({
        object: z.string().describe('`page`'),
        entry: z.array(z.looseObject({ changes: z.array(z.looseObject({ field: z.string().describe('`leadgen`'), value: z.looseObject({ leadgen_id: z.string(), page_id: z.string(), form_id: z.string().optional() }) })).optional() })),
      }).describe('Facebook\'s delivery, read loosely: what is not a leadgen change is skipped'),
      response: {
        200: z.object({ received: z.number(), recorded: z.number(), duplicates: z.number(), unknown_pages: z.number() }).describe('Taken (also for pages no account connected, which Facebook would retry for days)'),
        400: errorBodySchema.describe('`invalid json` or `invalid request`: signed, but not readable'),
        403: errorBodySchema.describe('`invalid signature`'),
        404: errorBodySchema.describe('`not found`: Facebook Lead Ads is not configured on this server'),
        413: errorBodySchema.describe('`payload too large`'),
      },
    },
    // The schema describes the body; the signature is checked over its bytes first, and the domain reads it loosely.
    validatorCompiler: signedBodyValidator,
    serializerCompiler: answersAsWritten,
    onRequest: configured,
  }, async (request, reply) => {
    const facebook = fastify.leadline.facebook as Configured // `configured` answered otherwise
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
    if (!validSignature(raw, request.headers['x-hub-signature-256'], facebook.config.appSecret)) {
      request.log.warn({ signed: request.headers['x-hub-signature-256'] !== undefined }, 'refused a Facebook webhook: X-Hub-Signature-256 is missing or does not match FACEBOOK_APP_SECRET')
      return sendError(reply, 'invalid_signature', 'X-Hub-Signature-256 is missing or is not the HMAC-SHA256 of the body with FACEBOOK_APP_SECRET')
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(raw.toString('utf8'))
    } catch {
      return sendError(reply, 'invalid_json', 'a signed Facebook webhook whose body is not JSON')
    }
    const body = wellFormedInput(parsed, MAX_DEPTH)
    if (!body.ok) return sendError(reply, 'invalid_request', `the body nests more than ${MAX_DEPTH} levels deep`)
    const notification = readLeadgenNotification(body.value)
    if (notification.skipped > 0) request.log.info({ object: notification.object, skipped: notification.skipped }, 'Facebook webhook changes that are not leadgen notifications: not used')
    const outcome = await facebook.ads.recordNotifications(notification.notices, { actor: { kind: 'lead_source', id: 'facebook' }, correlationId: request.id })
    return reply.code(200).send({ received: notification.notices.length, recorded: outcome.recorded, duplicates: outcome.duplicates, unknown_pages: outcome.unknownPages })
  })

  fastify.route({
    method: ['PUT', 'DELETE', 'PATCH'],
    url: FACEBOOK_WEBHOOK_PATH,
    handler: (_request, reply) => sendError(reply.header('allow', 'GET, POST'), 'method_not_allowed', 'GET (the subscription check) or POST (notifications)'),
  })
}
