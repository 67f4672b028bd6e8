/**
 * The Leadline HTTP application as one fastify plugin: the lead webhook, health checks and the error
 * handling shared by every route. `server.ts` only listens and shuts down.
 */
import type { FastifyError, FastifyInstance, FastifyPluginAsync } from 'fastify'
import swagger from '@fastify/swagger'
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod'
import type { Leadline } from '../leadline.ts'
import type { RateLimit } from '../config/config.ts'
import { DomainError } from '../domain/shared/decider.ts'
import { StoreUnavailableError } from '../eventstore/event-store.port.ts'
import { isHttpErrorCode, sendError, type HttpErrorCode } from './errors.ts'
import { healthRoutes } from './health.route.ts'
import { ingestLeadRoute } from './webhook/ingest-lead.route.ts'
import { facebookWebhookRoute } from './sources/facebook.route.ts'
import { carrierCallbackRoutes } from './carrier/carrier.route.ts'
import { conversationRelayRoutes } from './carrier/conversation-relay.route.ts'
import { docsRoutes } from './docs/docs.route.ts'
import { openApiOptions, openApiRoute } from './docs/openapi.route.ts'
import { MCP_PATH, mcpRoutes } from './mcp/mcp.route.ts'
import { stripeWebhookRoute } from './payments/stripe-webhook.route.ts'
import { payPageRoutes } from './payments/pay-page.route.ts'
import { consoleRoutes } from './console/console.route.ts'
import { PrometheusMetrics } from './operator/prometheus-metrics.ts'
import { awaitUnreadBody } from './unread-body.ts'
import { OAuthRecords } from '../commands/oauth-records.ts'
import type { OAuthServer } from './oauth/oauth-server.ts'

declare module 'fastify' {
  interface FastifyInstance {
    leadline: Leadline
    /** Base URL used in links, docs and carrier callbacks (LEADLINE_PUBLIC_URL). */
    publicUrl: string
    /** The tool endpoint's authorization server; null unless LEADLINE_OAUTH=on. */
    oauth: OAuthServer | null
  }
}

export interface AppOptions {
  readonly leadline: Leadline
  readonly publicUrl: string
  /** The webhook's per-token rate limit; null turns it off, undefined is the documented default. */
  readonly webhookRateLimit?: RateLimit | null
  /** How long an event may wait for the read models before /readyz answers 503 (default DEFAULT_READY_LAG_MS). */
  readonly readyLagMs?: number
  /** SHA-256 hashes of the operator tokens that open /metrics and /readyz's details (LEADLINE_OPERATOR_TOKEN_HASH). */
  readonly operatorTokenHashes?: readonly string[]
  /** LEADLINE_OAUTH=on: Leadline is the OAuth 2.1 authorization server of its tool endpoint (needs an https public URL). */
  readonly oauth?: boolean
}

/** The authorization server over the account's grants and its records on the log; its issuer is the public URL. */
export async function openOAuthServer(leadline: Leadline, publicUrl: string): Promise<OAuthServer> {
  if (new URL(publicUrl).protocol !== 'https:') {
    throw new Error(`LEADLINE_OAUTH=on needs an https LEADLINE_PUBLIC_URL (OAuth 2.1 issues tokens over TLS only); it is ${publicUrl}`)
  }
  // Loaded only with OAuth on: the library is large, and a server or command without it never pays for it.
  const { OAuthServer } = await import('./oauth/oauth-server.ts')
  const records = new OAuthRecords(leadline.store, leadline.clock)
  return new OAuthServer({
    publicUrl,
    resource: `${publicUrl}${MCP_PATH}`,
    records,
    secretBox: leadline.secretBox,
    grants: {
      liveGrant: async (accountId, grantId) => {
        const grant = (await leadline.accounts.get(accountId))?.oauthGrants.get(grantId)
        return grant && grant.revokedAt === null ? { scopes: grant.scopes } : null
      },
      revoked: (accountId, grantId, reason) =>
        leadline.accounts.revokeOAuthGrant(accountId, grantId, reason, { actor: { kind: 'oauth_grant', id: grantId } }),
    },
  })
}

/** Maps fastify's own errors (body parsing, limits) onto our stable codes. */
function frameworkErrorCode(error: FastifyError): HttpErrorCode | null {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'unsupported_media_type'
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return 'payload_too_large'
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'invalid_json'
    case 'FST_PROTO_VIOLATION':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'invalid_request'
  }
  if (error instanceof SyntaxError) return 'invalid_json'
  if (error.statusCode === 413) return 'payload_too_large'
  if (error.statusCode === 415) return 'unsupported_media_type'
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) return 'invalid_request'
  return null
}

export const app: FastifyPluginAsync<AppOptions> = async (fastify: FastifyInstance, options: AppOptions) => {
  fastify.decorate('leadline', options.leadline)
  fastify.decorate('publicUrl', options.publicUrl.replace(/\/+$/, ''))
  const oauth = options.oauth === true ? await openOAuthServer(options.leadline, fastify.publicUrl) : null
  fastify.decorate('oauth', oauth)
  // Every route's early answer (a 413 above all) reaches clients still sending the body.
  awaitUnreadBody(fastify)

  fastify.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof DomainError && isHttpErrorCode(error.code)) return sendError(reply, error.code, error.message)
    // The log or the read models cannot take writes (disk full, read-only): the adapters say so with this one error.
    if (error instanceof StoreUnavailableError) {
      request.log.error({ err: error }, 'store unavailable')
      return sendError(reply.header('retry-after', '5'), 'store_unavailable', 'the log cannot take writes right now; nothing was recorded')
    }
    const code = frameworkErrorCode(error)
    if (code) return sendError(reply, code, error.message)
    request.log.error({ err: error }, 'unhandled error')
    return sendError(reply, 'internal_error')
  })

  fastify.setNotFoundHandler((_request, reply) => sendError(reply, 'not_found'))
  // Routes declare their schemas with zod: one schema validates, types the handler and describes the route.
  fastify.setValidatorCompiler(validatorCompiler)
  fastify.setSerializerCompiler(serializerCompiler)
  await fastify.register(swagger, openApiOptions(fastify.publicUrl))

  const metrics = new PrometheusMetrics(options.leadline)
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(request, reply)
    done()
  })
  fastify.addHook('onClose', (_instance, done) => {
    metrics.close()
    done()
  })
  await fastify.register(healthRoutes, {
    metrics,
    ...(options.readyLagMs === undefined ? {} : { readyLagMs: options.readyLagMs }),
    ...(options.operatorTokenHashes === undefined ? {} : { operatorTokenHashes: options.operatorTokenHashes }),
  })
  await fastify.register(ingestLeadRoute, options.webhookRateLimit === undefined ? {} : { rateLimit: options.webhookRateLimit })
  await fastify.register(facebookWebhookRoute)
  await fastify.register(carrierCallbackRoutes)
  await fastify.register(conversationRelayRoutes)
  await fastify.register(mcpRoutes, { oauth })
  if (oauth) await fastify.register((await import('./oauth/oauth.route.ts')).oauthRoutes, { oauth })
  await fastify.register(stripeWebhookRoute)
  await fastify.register(payPageRoutes)
  await fastify.register(docsRoutes)
  await fastify.register(openApiRoute)
  await fastify.register(consoleRoutes, { prefix: '/app' })
}
