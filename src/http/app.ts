/**
 * The Leadline HTTP application as one fastify plugin: the lead webhook, health checks and the error
 * handling shared by every route. `server.ts` only listens and shuts down.
 */
import type { FastifyError, FastifyInstance, FastifyPluginAsync } from 'fastify'
import swagger from '@fastify/swagger'
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod'
import type { Leadline } from '../leadline.ts'
import { oauthPublicUrlProblem, type RateLimit } from '../config/config.ts'
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
import type { ToolRegistry } from './mcp/tool-registry.ts'
import { rootRoutes } from './root.route.ts'

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
  /** The tool endpoint's tools (`defaultToolRegistry()`), loaded before registration. */
  readonly tools: ToolRegistry
  /** LEADLINE_OAUTH=on: the authorization server of the tool endpoint and its routes (`openOAuth`), opened before registration. */
  readonly oauth?: OAuthParts | null
}

/** What LEADLINE_OAUTH=on adds to the app: the authorization server and its routes. */
export interface OAuthParts {
  readonly server: OAuthServer
  readonly routes: FastifyPluginAsync<{ oauth: OAuthServer }>
}

/** The authorization server over the account's grants and its records on the log, and its routes; its issuer is the public URL. */
export async function openOAuth(leadline: Leadline, publicUrl: string): Promise<OAuthParts> {
  const problem = oauthPublicUrlProblem(publicUrl)
  if (problem !== null) throw new Error(`LEADLINE_OAUTH=${problem}`)
  // Loaded only with OAuth on: the library is large, and a server or command without it never pays for it.
  const [{ OAuthServer }, { oauthRoutes }] = await Promise.all([import('./oauth/oauth-server.ts'), import('./oauth/oauth.route.ts')])
  const records = new OAuthRecords(leadline.store, leadline.clock)
  const server = new OAuthServer({
    publicUrl,
    resource: `${publicUrl}${MCP_PATH}`,
    records,
    secretBox: leadline.secretBox,
    grants: {
      created: ({ accountId, grantId, clientId, clientName, userId, scopes, correlationId }) =>
        leadline.accounts.createOAuthGrant(accountId, { grantId, clientId, clientName, userId, scopes }, { actor: { kind: 'user', id: userId }, correlationId }),
      liveGrant: async (accountId, grantId) => {
        const grant = (await leadline.accounts.get(accountId))?.oauthGrants.get(grantId)
        return grant && grant.revokedAt === null ? { scopes: grant.scopes } : null
      },
      revoked: (accountId, grantId, reason) =>
        leadline.accounts.revokeOAuthGrant(accountId, grantId, reason, { actor: { kind: 'oauth_grant', id: grantId } }),
    },
  })
  return { server, routes: oauthRoutes }
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
  // Nothing slow happens in here: fastify bounds each plugin's registration (the tools and OAuth were loaded before).
  const oauth = options.oauth?.server ?? null
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
  await fastify.register(mcpRoutes, { tools: options.tools, oauth })
  if (options.oauth) await fastify.register(options.oauth.routes, { oauth: options.oauth.server })
  await fastify.register(stripeWebhookRoute)
  await fastify.register(payPageRoutes)
  await fastify.register(docsRoutes)
  await fastify.register(rootRoutes)
  await fastify.register(openApiRoute)
  await fastify.register(consoleRoutes, { prefix: '/app' })
}
