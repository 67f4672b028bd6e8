/**
 * `POST /api/mcp` (spec §4.2): the tool endpoint over MCP's Streamable HTTP transport, always
 * answered with `application/json` (no SSE stream, no session). GET and DELETE are 405, as the
 * transport allows a server without a stream or sessions to answer.
 *
 * Two refusals happen before JSON-RPC, as the transport requires: a browser `Origin` other than the
 * service's own public origin (DNS-rebinding protection; a loopback public URL's loopback aliases are
 * its own) is 403, and an unsupported
 * `MCP-Protocol-Version` header is 400. Everything else is HTTP 200 with a JSON-RPC body (§7.1),
 * but for one case: with OAuth on (LEADLINE_OAUTH=on), a request refused for its credential is HTTP
 * 401 with `WWW-Authenticate: Bearer resource_metadata=…` over the same body, so MCP clients find
 * the sign-in (MCP authorization, RFC 9728 §5.1).
 */
import type { FastifyError, FastifyPluginAsync, FastifyReply } from 'fastify'
import { sendError } from '../errors.ts'
import { failure, RPC_CODES, type RpcErrorObject } from './json-rpc.ts'
import { DEFAULT_MCP_LIMITS, McpEndpoint, PROTOCOL_VERSIONS, type McpLimits } from './mcp-endpoint.ts'
import { ReadCache } from './read-cache.ts'
import type { ToolRegistry } from './tool-registry.ts'
import { bearerToken } from '../bearer-token.ts'
import { API_KEY_PREFIX } from '../../domain/shared/ids.ts'
import { SCOPES } from '../../domain/account/account.events.ts'
import type { OAuthServer } from '../oauth/oauth-server.ts'
import { mcpBodySchema, mcpHeadersSchema, mcpResponses } from './mcp.schema.ts'
import { answersAsWritten, describedOnly } from '../route-schemas.ts'

export const MCP_PATH = '/api/mcp'

export interface McpRouteOptions {
  /** The tools to serve: `defaultToolRegistry()` (every `tools/*.tool.ts`), loaded before registration, or a test's own. */
  readonly tools: ToolRegistry
  readonly limits?: Partial<McpLimits>
  /** Browser origins allowed besides the service's own public origin. */
  readonly allowedOrigins?: readonly string[]
  /** The authorization server whose access tokens the endpoint takes beside API keys (LEADLINE_OAUTH=on). */
  readonly oauth?: OAuthServer | null
}

const JSON_TYPE = 'application/json; charset=utf-8'

/** The names a browser on the same machine gives a loopback server: one machine, one origin for DNS-rebinding purposes. */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]'])

/**
 * The browser origins that are the service's own: its public URL's, and when that URL names a
 * loopback host, the same scheme and port under the other loopback names (a page served from
 * http://localhost:3000 talks to http://127.0.0.1:3000). A rebinding attacker's page carries its own
 * host name, never one of these.
 */
function ownOrigins(publicUrl: string): string[] {
  const url = new URL(publicUrl)
  if (!LOOPBACK_HOSTS.has(url.hostname)) return [url.origin]
  const port = url.port === '' ? '' : `:${url.port}`
  return [url.origin, ...[...LOOPBACK_HOSTS].map((host) => `${url.protocol}//${host}${port}`)]
}

/** An Origin header as a browser would serialise it (lower-case host, default port dropped), or null when it is not a URL. */
function normalisedOrigin(origin: string): string | null {
  try {
    return new URL(origin).origin
  } catch {
    return null
  }
}

function headerOf<K extends string>(value: string | string[] | undefined, key: K): Partial<Record<K, string>> {
  return typeof value === 'string' ? ({ [key]: value } as Record<K, string>) : {}
}

function refuse(reply: FastifyReply, status: number, error: RpcErrorObject): FastifyReply {
  return reply.code(status).type(JSON_TYPE).header('cache-control', 'no-store').send(failure(null, error))
}

export const mcpRoutes: FastifyPluginAsync<McpRouteOptions> = async (fastify, options) => {
  const limits: McpLimits = { ...DEFAULT_MCP_LIMITS, ...options.limits }
  const tools = options.tools
  const leadline = fastify.leadline
  const oauth = options.oauth ?? null
  const endpoint = new McpEndpoint({
    tools,
    services: leadline,
    authenticate: async (apiKey) => {
      if (oauth && apiKey !== undefined && !apiKey.startsWith(API_KEY_PREFIX)) {
        const granted = await oauth.authenticate(apiKey)
        const account = granted ? await leadline.accounts.get(granted.accountId) : null
        if (!granted || !account) return null
        leadline.apiKeyUsage.used(account.accountId, granted.grantId)
        return { account, keyId: granted.grantId, scopes: granted.scopes, credential: 'oauth_grant' }
      }
      const principal = await leadline.accounts.authenticateApiKey(apiKey)
      // "Last used" on the console's key list; written at most once a minute per key.
      if (principal) leadline.apiKeyUsage.used(principal.account.accountId, principal.keyId)
      return principal
    },
    limits,
    readCache: new ReadCache(async () => ({
      head: await leadline.store.headPosition(),
      views: leadline.runner.appliedPosition,
      second: Math.floor(leadline.clock().getTime() / 1000),
    })),
  })
  const allowedOrigins = new Set([...ownOrigins(fastify.publicUrl), ...(options.allowedOrigins ?? [])])

  // The body is read as bytes and parsed by the endpoint, so bad JSON is a JSON-RPC parse error (-32700), not an HTTP 400.
  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: limits.bodyLimitBytes }, (_request, body, done) => done(null, body))

  fastify.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413) {
      return refuse(reply, 200, {
        code: RPC_CODES.invalidRequest,
        message: `the request body is limited to ${limits.bodyLimitBytes} bytes`,
        data: { code: 'payload_too_large', limit_bytes: limits.bodyLimitBytes },
      })
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return refuse(reply, 200, { code: RPC_CODES.invalidRequest, message: 'invalid request', data: { code: 'invalid_request' } })
    }
    // The endpoint answers every failure inside a request itself; only a fault in the HTTP layer gets here.
    /* c8 ignore next 2 */
    request.log.error({ err: error }, 'tool endpoint: unexpected error')
    return refuse(reply, 200, { code: RPC_CODES.toolFailed, message: 'internal error', data: { code: 'internal_error' } })
  })

  // Not typed by the schema: the handler gets the raw bytes, which the endpoint parses.
  fastify.route({
    method: 'POST',
    url: MCP_PATH,
    bodyLimit: limits.bodyLimitBytes,
    schema: {
      summary: 'The tool endpoint: MCP over JSON-RPC 2.0',
      description: 'MCP\'s Streamable HTTP transport, always answered with application/json (docs/mcp.md). The tools and their arguments: `tools/list`.',
      tags: ['tools'],
      security: [{ bearer: [] }],
      headers: mcpHeadersSchema,
      body: mcpBodySchema,
      response: mcpResponses,
    },
    // The schemas describe; the endpoint validates. The body stays the bytes sent, so a malformed message is a
    // JSON-RPC error with HTTP 200 (§7.1), and the Origin and MCP-Protocol-Version checks answer before the body
    // is read. Answers are the endpoint's own bytes, written as before.
    validatorCompiler: describedOnly,
    serializerCompiler: answersAsWritten,
    onRequest: async (request, reply) => {
      const origin = request.headers.origin
      if (origin !== undefined && !allowedOrigins.has(origin) && !allowedOrigins.has(normalisedOrigin(origin) ?? '')) {
        return refuse(reply, 403, {
          code: RPC_CODES.invalidRequest,
          message: `origin ${origin} is not allowed`,
          data: { code: 'origin_not_allowed' },
        })
      }
      const version = request.headers['mcp-protocol-version']
      if (version !== undefined && !(PROTOCOL_VERSIONS as readonly string[]).includes(String(version))) {
        // 2026-07-28's UnsupportedProtocolVersionError: a client of that revision retries with one of `supported`.
        return refuse(reply, 400, {
          code: RPC_CODES.unsupportedProtocolVersion,
          message: `unsupported MCP-Protocol-Version ${String(version)} (supported: ${PROTOCOL_VERSIONS.join(', ')})`,
          data: { code: 'unsupported_protocol_version', supported: [...PROTOCOL_VERSIONS], requested: String(version) },
        })
      }
    },
    handler: async (request, reply) => {
      const apiKey = bearerToken(request)
      const answer = await endpoint.handle({
        body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
        apiKey,
        requestId: request.id,
        log: request.log,
        headers: {
          ...headerOf(request.headers['mcp-protocol-version'], 'protocolVersion'),
          ...headerOf(request.headers['mcp-method'], 'method'),
          ...headerOf(request.headers['mcp-name'], 'name'),
        },
      })
      if (answer.status === 202) return reply.code(202).send()
      const [first, ...rest] = answer.body as [Buffer, ...Buffer[]]
      if (oauth && answer.unauthenticated) {
        const challenge = [`resource_metadata="${oauth.resourceMetadataUrl}"`, `scope="${SCOPES.join(' ')}"`]
        if (apiKey !== undefined) challenge.unshift('error="invalid_token"')
        return reply.code(401).type(JSON_TYPE).header('cache-control', 'no-store').header('www-authenticate', `Bearer ${challenge.join(', ')}`).send(Buffer.concat(answer.body))
      }
      if (rest.length === 0) return reply.code(answer.status).type(JSON_TYPE).header('cache-control', 'no-store').send(first)
      // A tool result: its tail is the result's own Buffer (shared by every caller of a read answer),
      // written as it is after the few bytes that carry the id, rather than copied into one body.
      reply.hijack()
      const raw = reply.raw
      raw.writeHead(answer.status, { 'content-type': JSON_TYPE, 'cache-control': 'no-store', 'content-length': answer.body.reduce((n, chunk) => n + chunk.length, 0) })
      raw.cork()
      for (const chunk of answer.body) raw.write(chunk)
      raw.end()
      raw.uncork()
      return reply
    },
  })

  fastify.route({
    method: ['GET', 'DELETE', 'PUT', 'PATCH'],
    url: MCP_PATH,
    handler: (_request, reply) =>
      sendError(reply.header('allow', 'POST'), 'method_not_allowed', 'the tool endpoint takes POST only: no event stream, no sessions'),
  })
}
