/**
 * `POST /api/ingest/lead` (spec §4.1): the token authenticates before the body is read; the body may
 * be JSON, form-encoded, multipart fields or a lead-ads payload. 201 for a new lead, 200 for an update.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import formbody from '@fastify/formbody'
import multipart from '@fastify/multipart'
import { DEFAULT_WEBHOOK_RATE_LIMIT, type RateLimit } from '../../config/config.ts'
import type { WebhookPrincipal } from '../../commands/accounts.ts'
import { receiveLead } from '../../commands/receive-lead.command.ts'
import { sendError } from '../errors.ts'
import { TokenBuckets } from '../token-buckets.ts'
import { wellFormedInput } from '../well-formed-input.ts'
import { parseFormBody } from './form-body.ts'
import { parseXmlBody } from './xml-body.ts'
import { bearerToken } from '../bearer-token.ts'
import { UNREAD_BODY_BOUNDS } from '../unread-body.ts'
import { webhookBodySchema, webhookQuerySchema, webhookResponses } from './ingest-lead.schema.ts'
import { answersAsWritten } from '../route-schemas.ts'

export const WEBHOOK_BODY_LIMIT = 64 * 1024
/** No lead form nests this deep (lead ads: 3 levels); deeper bodies are refused before anything is recorded. */
export const WEBHOOK_MAX_DEPTH = 32
const PATH = '/api/ingest/lead'

/**
 * The answer to a browser's preflight: any origin may POST with the headers a lead needs. No
 * credentials (cookies) are involved: the webhook token is the only one, and the page sends it itself.
 */
const PREFLIGHT_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST',
  'access-control-allow-headers': 'content-type, x-service-token, authorization',
  'access-control-max-age': '600',
} as const

declare module 'fastify' {
  interface FastifyRequest {
    webhookPrincipal?: WebhookPrincipal
  }
}

/**
 * The webhook token: the `x-service-token` header (spec §4.1), else `Authorization: Bearer` (what
 * automation tools with a "bearer token" setting send), else the `token` query parameter.
 */
function tokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-service-token']
  if (typeof header === 'string' && header !== '') return header.trim()
  const bearer = bearerToken(request)
  if (bearer !== undefined) return bearer
  const query = (request.query as Record<string, unknown> | undefined)?.token
  if (typeof query === 'string' && query !== '') return query.trim()
  return undefined
}

export interface IngestLeadRouteOptions {
  /** Per webhook token; null turns the limit off. Default: DEFAULT_WEBHOOK_RATE_LIMIT. */
  readonly rateLimit?: RateLimit | null
}

export const ingestLeadRoute: FastifyPluginAsync<IngestLeadRouteOptions> = async (fastify, options) => {
  const rateLimit = options.rateLimit === undefined ? DEFAULT_WEBHOOK_RATE_LIMIT : options.rateLimit
  // Keyed by the verified token's id, after authentication: a wrong token cannot drain a real one's
  // bucket, and a rotated token starts afresh. One Map lookup per request (the route is benchmarked).
  const buckets = rateLimit ? new TokenBuckets(rateLimit.ratePerSecond, rateLimit.burst) : null
  // Every lead that arrives is counted: outbound events yield to a flood of them.
  const { intake } = fastify.leadline
  fastify.addHook('onRequest', (_request, _reply, done) => {
    intake.arrived()
    done()
  })
  // Only JSON, form-encoded, multipart and XML bodies are leads; anything else is a 415.
  fastify.removeContentTypeParser(['text/plain'])
  fastify.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'string', bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) => {
    try {
      done(null, parseXmlBody(body as string, WEBHOOK_MAX_DEPTH))
    } catch (error) {
      done(error as Error, undefined)
    }
  })
  await fastify.register(formbody, { bodyLimit: WEBHOOK_BODY_LIMIT, parser: parseFormBody })
  await fastify.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fieldSize: WEBHOOK_BODY_LIMIT, fields: 200, files: 20, fileSize: WEBHOOK_BODY_LIMIT, parts: 220 },
    // Fields only: uploaded files are read and dropped, never stored.
    async onFile(part) {
      for await (const _chunk of part.file) {
        // discard
      }
    },
  })

  // Requests whose handler has started: a failure before it is in reading the body, not in intake.
  const handling = new WeakSet<FastifyRequest>()
  // Multipart bodies sent without content-length that ran past the limit (the multipart parser reads
  // the raw request itself, past fastify's bodyLimit): refused once read, whatever their fields.
  const overLimit = new WeakSet<FastifyRequest>()
  const tooLarge = `the body is limited to ${WEBHOOK_BODY_LIMIT} bytes`

  fastify.withTypeProvider<ZodTypeProvider>().route({
    method: 'POST',
    url: PATH,
    bodyLimit: WEBHOOK_BODY_LIMIT,
    schema: {
      summary: 'Send a lead',
      description: 'One lead per request, from any form, lead-ads source or automation tool (docs/webhook.md). The token is checked before the body is read.',
      tags: ['webhook'],
      consumes: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data', 'application/xml', 'text/xml'],
      security: [{ webhookTokenHeader: [] }, { bearer: [] }, { webhookTokenQuery: [] }],
      querystring: webhookQuerySchema,
      body: webhookBodySchema,
      response: webhookResponses,
    },
    // The answer is written as before the schemas: the response schemas describe it, the route is on the hot path.
    serializerCompiler: answersAsWritten,
    // The console's "last deliveries" (src/read-models/webhook-deliveries.ts): noted for every
    // authenticated request, accepted or refused, and written to the views database in batches;
    // never an event on the log.
    onSend(request, reply, payload, done) {
      // A page on any site may post leads (with its account's token); its script may read the answer.
      if (request.headers.origin !== undefined) reply.header('access-control-allow-origin', '*')
      const principal = request.webhookPrincipal
      if (principal && typeof payload === 'string') {
        const ok = reply.statusCode < 300
        fastify.leadline.webhookDeliveries.record(
          principal.account.accountId, fastify.leadline.clock(), reply.statusCode,
          ok ? (/"leadId":"([^"]{1,64})"/.exec(payload)?.[1] ?? null) : null,
          ok ? null : (/"error":"([^"]{1,100})"/.exec(payload)?.[1] ?? null),
          request.headers['x-service-token'] === undefined && request.headers.authorization === undefined ? 'query' : 'header', request.headers['user-agent'],
        )
      }
      done(null, payload)
    },
    preParsing(request, reply, payload, done) {
      // (isMultipart() is not yet known here: the multipart parser sets it after this hook.)
      if (request.headers['content-length'] === undefined && /^\s*multipart\//i.test(request.headers['content-type'] ?? '')) {
        let received = 0
        // Paused first, so counting does not start the stream before the multipart parser is piped to it.
        payload.pause()
        payload.on('data', (chunk: Buffer) => {
          received += chunk.length
          if (received > WEBHOOK_BODY_LIMIT) overLimit.add(request)
          // Read to its end to answer the 413, within the bound of any refused body (src/http/unread-body.ts).
          if (received > WEBHOOK_BODY_LIMIT + UNREAD_BODY_BOUNDS.maxBytes) request.raw.socket.destroy()
        })
      }
      done(null, payload)
    },
    errorHandler(error, request, reply) {
      // The body schema takes any object of fields: a JSON array, string or number is not one.
      if (error.validationContext === 'body') return sendError(reply, 'body_not_object', 'body must be a JSON object or form fields')
      // A body without content-length that ran past the limit: the same answer as one that declared it.
      if ((error as { code?: unknown }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendError(reply, 'payload_too_large', tooLarge)
      // Busboy reports a broken multipart body (no closing boundary, a bad part header) with a bare
      // Error and no status: the sender's fault, a 400, not a 500 (found by the fuzzer).
      const status = (error as { statusCode?: unknown }).statusCode
      if (!handling.has(request) && status === undefined && request.isMultipart()) {
        return sendError(reply, 'invalid_request', `malformed multipart body: ${error.message}`)
      }
      throw error
    },
    async onRequest(request, reply) {
      const length = Number(request.headers['content-length'])
      const principal = await fastify.leadline.accounts.authenticateWebhookToken(tokenOf(request))
      if (!principal) return sendError(reply, 'invalid_token')
      const wait = buckets?.take(principal.tokenId) ?? 0
      if (wait > 0 && rateLimit) {
        return sendError(
          reply.header('retry-after', String(wait)),
          'rate_limited',
          `at most ${rateLimit.ratePerSecond} leads per second per webhook token (bursts of ${rateLimit.burst}); retry in ${wait} s`,
        )
      }
      if (length > WEBHOOK_BODY_LIMIT) return sendError(reply, 'payload_too_large', tooLarge)
      // A compressed body would be read as if it were the JSON or form it encodes: refuse it (RFC 9110 §15.5.16).
      const encoding = request.headers['content-encoding']?.trim().toLowerCase()
      if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
        return sendError(reply, 'unsupported_media_type', `content-encoding ${JSON.stringify(encoding.slice(0, 40))} is not supported: send the body uncompressed`)
      }
      request.webhookPrincipal = principal
    },
    async handler(request, reply) {
      handling.add(request)
      if (overLimit.has(request)) return sendError(reply, 'payload_too_large', tooLarge)
      const principal = request.webhookPrincipal as WebhookPrincipal
      // fastify hands the schema a missing body as null: without a content type nothing was sent, and no body
      // carries no phone field (400 phone required); a JSON null is no object of fields (400 body must be an object).
      const sent = request.body === null && request.headers['content-type'] === undefined ? {} : request.body
      const body = wellFormedInput(sent, WEBHOOK_MAX_DEPTH)
      if (!body.ok) return sendError(reply, 'invalid_request', `the body nests objects and arrays more than ${WEBHOOK_MAX_DEPTH} levels deep`)
      // `?source=vendor-x` names the lead source, whose field map (if it has one) reads the body.
      const result = await receiveLead(fastify.leadline, principal.account, body.value, {
        actor: { kind: 'webhook_token', id: principal.tokenId },
        correlationId: request.id,
      }, { source: request.query.source })
      return reply.code(result.created ? 201 : 200).send({
        leadId: result.leadId,
        created: result.created,
        phone: result.phone,
        lists: result.lists,
        warnings: result.warnings,
      })
    },
  })

  fastify.route({
    method: ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
    url: PATH,
    exposeHeadRoute: false,
    handler: (request, reply) => {
      // A browser's CORS preflight for a form's fetch() POST (JSON, or the token in a header): allowed,
      // or the lead never leaves the page. Any other use of these methods is a 405.
      if (request.method === 'OPTIONS' && request.headers.origin !== undefined && request.headers['access-control-request-method'] === 'POST') {
        return reply.code(204).headers(PREFLIGHT_HEADERS).send()
      }
      return sendError(reply.header('allow', 'POST'), 'method_not_allowed', 'use POST')
    },
  })
}
