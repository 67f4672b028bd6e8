/**
 * The tool endpoint's JSON-RPC dispatcher (spec §4.2, §7.1; MCP's Streamable HTTP transport answered
 * with `application/json`). Stateless: every POST carries its key, needs no session and no prior
 * `initialize`, so curl users and the CLI call `tools/call` directly.
 *
 * Order of checks for each request: envelope (-32600), key (-32001), rate limit (-32029), method
 * (-32601), tool name (-32602), scope (-32003), arguments (-32602), then the tool under its time
 * limit (-32603 when it fails; list and history reads wait for one of a few slots, or answer `busy`).
 * Every tool result and every error leaves through `withoutRecordings`, as JSON of at most MAX_OUTPUT_BYTES.
 */
import { readFileSync } from 'node:fs'
import type { FastifyBaseLogger } from 'fastify'
import { projectPath } from '../../config/project-root.ts'
import type { ApiKeyPrincipal } from '../../commands/accounts.ts'
import {
  encodeResponse, failure, INTERNAL_ERROR, RPC_CODES, RpcError, success, toRpcError, ToolCallResult,
  type JsonRpcId, type RpcErrorObject, type RpcResponse,
} from './json-rpc.ts'
import { MAX_OUTPUT_BYTES } from './answer-budget.ts'
import { HeavyReads } from './heavy-reads.ts'
import type { ReadCache } from './read-cache.ts'
import { holdsRecordingUrl, withoutRecordings } from '../../domain/recordings-policy.ts'
import { SEALED_PREFIX, withoutSealedSecrets } from '../../domain/sealed-secrets.ts'
import { TokenBuckets } from '../token-buckets.ts'
import type { McpServices, Tool, ToolContext } from './tool.ts'
import type { ToolRegistry } from './tool-registry.ts'
import { serverInstructions } from './instructions.ts'

/**
 * Newest first. 2026-07-28 is stateless: no `initialize`, every request names its version in the
 * `MCP-Protocol-Version` header and in `params._meta` (docs/mcp.md, "Protocol versions"). The others
 * open with `initialize`, which answers the client's version when it is one of them, else the newest.
 */
export const PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'] as const
export const MODERN_PROTOCOL_VERSIONS: ReadonlySet<string> = new Set(['2026-07-28'])
const LEGACY_PROTOCOL_VERSIONS: readonly string[] = PROTOCOL_VERSIONS.filter((v) => !MODERN_PROTOCOL_VERSIONS.has(v))
export const LATEST_PROTOCOL_VERSION = LEGACY_PROTOCOL_VERSIONS[0] as string
const META_VERSION = 'io.modelcontextprotocol/protocolVersion'
/** How long a 2026-07-28 client may cache `tools/list` and `server/discover`: the tools change only with a new release. */
const LIST_TTL_MS = 60 * 60 * 1000

/** Who calls: an API key, or an OAuth grant (then `keyId` is the grant's id, its rate-limit bucket too). */
export type ToolPrincipal = ApiKeyPrincipal & { readonly credential?: 'api_key' | 'oauth_grant' }

export interface McpLimits {
  /** Sustained requests per second per API key. */
  readonly ratePerSecond: number
  /** Requests a key may make at once before the sustained rate applies. */
  readonly burst: number
  readonly bodyLimitBytes: number
  /** How long a tool may run before the call is answered `tool_timeout`. */
  readonly toolTimeoutMs: number
  /** JSON-RPC messages in one batch (2025-03-26 clients may batch). */
  readonly maxBatch: number
  /** Heavy reads (list_leads, get_lead_history) one process runs at once, and how many more may wait (then `busy`). */
  readonly heavyReads: number
  readonly heavyReadsWaiting: number
}

export const DEFAULT_MCP_LIMITS: McpLimits = {
  ratePerSecond: 20,
  burst: 40,
  bodyLimitBytes: 1024 * 1024,
  toolTimeoutMs: 30_000,
  maxBatch: 20,
  heavyReads: 4,
  heavyReadsWaiting: 32,
}

const SERVER_VERSION = (JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version: string }).version
const SERVER_INFO = { name: 'leadline', title: 'Leadline', version: SERVER_VERSION }

/** The protocol version a message names in `params._meta` (2026-07-28), if any. */
function metaVersion(message: unknown): string | undefined {
  const meta = (isObject(message) && isObject(message.params) ? message.params._meta : undefined)
  const version = isObject(meta) ? meta[META_VERSION] : undefined
  return typeof version === 'string' ? version : undefined
}

/** `=?base64?…?=`: how a client sends a header value that is not plain ASCII (2026-07-28 Streamable HTTP). */
function headerValue(value: string): string {
  const encoded = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(value)
  return encoded ? Buffer.from(encoded[1] as string, 'base64').toString('utf8') : value
}

/** Why a 2026-07-28 request's headers and body disagree, or null when they agree. */
function headerMismatch(
  request: { readonly method: string; readonly params: unknown },
  headers: NonNullable<McpCall['headers']>,
): string | null {
  const version = metaVersion({ params: request.params })
  if (version === undefined) return `params._meta["${META_VERSION}"] is required in protocol 2026-07-28`
  if (headers.protocolVersion !== version) return `the MCP-Protocol-Version header (${headers.protocolVersion ?? 'none'}) does not match params._meta (${version})`
  if (headers.method === undefined) return 'the Mcp-Method header is required in protocol 2026-07-28'
  if (headers.method !== request.method) return `the Mcp-Method header (${headers.method}) does not match the body's method (${request.method})`
  if (request.method === 'tools/call') {
    const name = isObject(request.params) ? request.params.name : undefined
    if (headers.name === undefined) return 'the Mcp-Name header is required on tools/call'
    if (headerValue(headers.name) !== name) return `the Mcp-Name header (${headers.name}) does not match params.name`
  }
  return null
}

export interface McpCall {
  /** The raw body. */
  readonly body: Buffer
  /** The Bearer token, if any. */
  readonly apiKey: string | undefined
  /** Ties the events a call appends to this HTTP request. */
  readonly requestId: string
  readonly log: FastifyBaseLogger
  /** The MCP request headers (2026-07-28 checks them against the body). */
  readonly headers?: { readonly protocolVersion?: string; readonly method?: string; readonly name?: string }
}

/**
 * The JSON body to send with 200 (UTF-8, in chunks sent one after the other: see encodeResponse), or
 * `202` with no body when the POST held only notifications or responses.
 */
export type McpAnswer =
  | {
      /** 400 and 404 only for 2026-07-28's header, version and method refusals. */
      readonly status: 200 | 400 | 404
      readonly body: readonly Buffer[]
      /** Some request in it was refused for its credential (none, or not a live one): a 401 with OAuth on. */
      readonly unauthenticated?: boolean
    }
  | { readonly status: 202 }

export interface McpEndpointOptions {
  readonly tools: ToolRegistry
  readonly services: McpServices
  readonly authenticate: (apiKey: string | undefined) => Promise<ToolPrincipal | null>
  readonly limits: McpLimits
  /** Read tools' answers shared while the data and the clock's second stay the same (none: every call computes). */
  readonly readCache?: ReadCache
}

type Incoming =
  | { readonly kind: 'request'; readonly id: string | number; readonly method: string; readonly params: unknown }
  | { readonly kind: 'ignored' }
  | { readonly kind: 'invalid'; readonly id: JsonRpcId; readonly error: RpcError }

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function invalidRequest(id: JsonRpcId, message: string): Incoming {
  return { kind: 'invalid', id, error: new RpcError(RPC_CODES.invalidRequest, 'invalid_request', message) }
}

/** Sorts one JSON-RPC message: a request to answer, a notification or response to accept, or an invalid one. */
function classify(message: unknown): Incoming {
  if (!isObject(message)) return invalidRequest(null, 'a JSON-RPC message must be an object')
  const id = typeof message.id === 'string' || (typeof message.id === 'number' && Number.isFinite(message.id)) ? message.id : null
  if (message.jsonrpc !== '2.0') return invalidRequest(id, 'jsonrpc must be "2.0"')
  if (!('method' in message)) {
    // A client's answer to a server request: we never send any, so there is nothing to do with it.
    return ('result' in message || 'error' in message) && 'id' in message ? { kind: 'ignored' } : invalidRequest(id, 'a request needs a method')
  }
  if (typeof message.method !== 'string') return invalidRequest(id, 'method must be a string')
  if (!('id' in message)) return { kind: 'ignored' } // a notification: nothing is answered (202)
  if (id === null) return invalidRequest(null, 'id must be a string or a number')
  if ('params' in message && !isObject(message.params)) return invalidRequest(id, 'params must be an object')
  return { kind: 'request', id, method: message.method, params: message.params ?? {} }
}

function invalidParams(message: string, extra: Record<string, unknown> = {}): RpcError {
  return new RpcError(RPC_CODES.invalidParams, 'invalid_params', message, extra)
}

/** An error as it leaves: data through the filter, and a message that quoted a recording URL replaced. */
function outgoingError(error: RpcError): RpcErrorObject {
  const object = error.toObject()
  const data = withoutSealedSecrets(withoutRecordings(object.data)) as RpcErrorObject['data']
  return {
    code: object.code,
    message: holdsRecordingUrl(object.message) || object.message.includes(SEALED_PREFIX) ? 'the tool failed (details withheld)' : object.message,
    data: { ...data, code: object.data.code },
  }
}

/** Rejects after `ms`; the work itself goes on (a write still records its outcome for a retry with the same key). */
function withinTimeLimit<T>(work: Promise<T>, ms: number, tool: Tool): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const limit = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const seconds = ms / 1000
      reject(
        new RpcError(
          RPC_CODES.toolFailed,
          'tool_timeout',
          tool.writes
            ? `${tool.name} did not finish within ${seconds} s and may still complete: repeat the call with the same idempotency_key for its outcome`
            : `${tool.name} did not finish within ${seconds} s; try again`,
          { retry_after_seconds: 5, time_limit_seconds: seconds },
        ),
      )
    }, ms)
  })
  work.catch(() => undefined)
  return Promise.race([work, limit]).finally(() => clearTimeout(timer))
}

const OPEN_BATCH = Buffer.from('[')
const COMMA = Buffer.from(',')
const CLOSE_BATCH = Buffer.from(']')

export class McpEndpoint {
  private readonly buckets: TokenBuckets
  private readonly heavyReads: HeavyReads
  private readonly instructions: string

  constructor(private readonly options: McpEndpointOptions) {
    this.instructions = serverInstructions(options.tools)
    this.buckets = new TokenBuckets(options.limits.ratePerSecond, options.limits.burst)
    this.heavyReads = new HeavyReads(options.limits.heavyReads, options.limits.heavyReadsWaiting)
  }

  /** Answers one POST body: a single message, or a batch of them. */
  async handle(call: McpCall): Promise<McpAnswer> {
    let parsed: unknown
    try {
      parsed = JSON.parse(call.body.toString('utf8'))
    } catch {
      return this.single(null, new RpcError(RPC_CODES.parseError, 'parse_error', 'parse error: the body is not valid JSON'))
    }
    const batch = Array.isArray(parsed)
    const messages = batch ? (parsed as unknown[]) : [parsed]
    const declared = messages.map(metaVersion).find((v) => v !== undefined)
    if (MODERN_PROTOCOL_VERSIONS.has(call.headers?.protocolVersion ?? '') || (declared !== undefined && MODERN_PROTOCOL_VERSIONS.has(declared))) {
      return this.handleModern(call, parsed, batch)
    }
    if (batch && messages.length === 0) return this.single(null, new RpcError(RPC_CODES.invalidRequest, 'invalid_request', 'an empty batch'))
    if (messages.length > this.options.limits.maxBatch) {
      return this.single(
        null,
        new RpcError(RPC_CODES.invalidRequest, 'batch_too_large', `a batch holds at most ${this.options.limits.maxBatch} messages`, {
          max_batch: this.options.limits.maxBatch,
        }),
      )
    }

    const incoming = messages.map(classify)
    let principal: Promise<ToolPrincipal | null> | undefined
    const responses = await Promise.all(
      incoming.map((message) => {
        if (message.kind === 'ignored') return null
        if (message.kind === 'invalid') return failure(message.id, outgoingError(message.error))
        principal ??= this.options.authenticate(call.apiKey)
        return this.answer(message, principal, call)
      }),
    )
    const answered = responses.filter((r): r is RpcResponse => r !== null)
    if (answered.length === 0) return { status: 202 }
    const unauthenticated = principal !== undefined && (await principal) === null
    if (!batch) return { status: 200, body: encodeResponse(answered[0] as RpcResponse), unauthenticated }
    const parts: Buffer[] = []
    for (const response of answered) parts.push(parts.length === 0 ? OPEN_BATCH : COMMA, ...encodeResponse(response))
    parts.push(CLOSE_BATCH)
    return { status: 200, body: parts, unauthenticated }
  }

  private single(id: JsonRpcId, error: RpcError, status: 200 | 400 | 404 = 200): McpAnswer {
    return { status, body: encodeResponse(failure(id, outgoingError(error))) }
  }

  /**
   * One 2026-07-28 message (docs/mcp.md, "Protocol versions"): its headers must match its body
   * (`MCP-Protocol-Version` and `_meta`'s version, `Mcp-Method`, `Mcp-Name` for tools/call), else 400
   * HeaderMismatch; `server/discover` needs no credential; results carry `resultType` and `_meta`'s
   * serverInfo, lists their cache hints; an unknown method is 404.
   */
  private async handleModern(call: McpCall, parsed: unknown, batch: boolean): Promise<McpAnswer> {
    if (batch) return this.single(null, new RpcError(RPC_CODES.invalidRequest, 'invalid_request', 'protocol 2026-07-28 takes one JSON-RPC message per POST, never a batch'), 400)
    const message = classify(parsed)
    if (message.kind === 'ignored') return { status: 202 }
    if (message.kind === 'invalid') return this.single(message.id, message.error)
    const mismatch = headerMismatch(message, call.headers ?? {})
    if (mismatch !== null) return this.single(message.id, new RpcError(RPC_CODES.headerMismatch, 'header_mismatch', mismatch), 400)
    const version = metaVersion(parsed) as string
    if (!MODERN_PROTOCOL_VERSIONS.has(version)) {
      return this.single(message.id, new RpcError(RPC_CODES.unsupportedProtocolVersion, 'unsupported_protocol_version', `protocol version ${version} is not supported here`, { supported: [...PROTOCOL_VERSIONS], requested: version }), 400)
    }
    const modern = { resultType: 'complete' as const, serverInfo: SERVER_INFO }
    const meta = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO }
    if (message.method === 'server/discover') {
      return {
        status: 200,
        body: encodeResponse(success(message.id, {
          resultType: 'complete',
          supportedVersions: [...PROTOCOL_VERSIONS],
          capabilities: { tools: { listChanged: false } },
          instructions: this.instructions,
          ttlMs: LIST_TTL_MS,
          cacheScope: 'public',
          _meta: meta,
        })),
      }
    }
    if (message.method !== 'tools/list' && message.method !== 'tools/call') {
      return this.single(message.id, new RpcError(RPC_CODES.methodNotFound, 'method_not_found', `unknown method ${message.method} in protocol 2026-07-28`, { methods: ['server/discover', 'tools/list', 'tools/call'] }), 404)
    }
    const principal = this.options.authenticate(call.apiKey)
    const response = await this.answer(message, principal, call, true)
    const unauthenticated = (await principal) === null
    if ('error' in response) return { status: 200, body: encodeResponse(response), unauthenticated }
    if (response.result instanceof ToolCallResult) return { status: 200, body: encodeResponse(response, modern), unauthenticated }
    const result = { ...(response.result as Record<string, unknown>), resultType: 'complete', ...(message.method === 'tools/list' ? { ttlMs: LIST_TTL_MS, cacheScope: 'public' } : {}), _meta: meta }
    return { status: 200, body: encodeResponse(success(message.id, result)), unauthenticated }
  }

  private async answer(
    request: Extract<Incoming, { kind: 'request' }>,
    authenticated: Promise<ToolPrincipal | null>,
    call: McpCall,
    modern = false,
  ): Promise<RpcResponse> {
    try {
      const principal = await authenticated
      if (!principal) {
        throw call.apiKey === undefined
          ? new RpcError(RPC_CODES.unauthorized, 'api_key_missing', 'API key missing: send the header Authorization: Bearer followed by your API key (ll_live_…)')
          : new RpcError(RPC_CODES.unauthorized, 'api_key_invalid', 'API key invalid or revoked')
      }
      const wait = this.buckets.take(principal.keyId)
      if (wait > 0) {
        throw new RpcError(
          modern ? RPC_CODES.rateLimited : RPC_CODES.legacyRateLimited,
          'rate_limited',
          `rate limit: at most ${this.options.limits.ratePerSecond} requests per second per key (bursts of ${this.options.limits.burst}); retry in ${wait} s`,
          { retry_after_seconds: wait },
        )
      }
      return success(request.id, await this.dispatch(request, principal, call))
    } catch (error) {
      const rpc = toRpcError(error)
      if (!rpc) call.log.error({ err: error, method: request.method }, 'tool endpoint: unexpected error')
      return failure(request.id, outgoingError(rpc ?? INTERNAL_ERROR))
    }
  }

  private async dispatch(request: Extract<Incoming, { kind: 'request' }>, principal: ToolPrincipal, call: McpCall): Promise<unknown> {
    const params = request.params as Record<string, unknown>
    switch (request.method) {
      case 'initialize': {
        if (typeof params.protocolVersion !== 'string') throw invalidParams('initialize needs params.protocolVersion')
        const asked = params.protocolVersion
        return {
          protocolVersion: LEGACY_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION,
          capabilities: { tools: { listChanged: false } },
          serverInfo: SERVER_INFO,
          instructions: this.instructions,
        }
      }
      case 'ping':
        return {}
      case 'tools/list':
        return this.options.tools.list
      case 'tools/call':
        return this.callTool(params, principal, call)
      default:
        throw new RpcError(RPC_CODES.methodNotFound, 'method_not_found', `unknown method ${request.method}`, {
          methods: ['initialize', 'ping', 'tools/list', 'tools/call'],
        })
    }
  }

  private async callTool(params: Record<string, unknown>, principal: ToolPrincipal, call: McpCall): Promise<unknown> {
    const { tools, services, limits } = this.options
    if (typeof params.name !== 'string') throw invalidParams('tools/call needs params.name, the tool name')
    const tool = tools.get(params.name)
    if (!tool) {
      throw new RpcError(RPC_CODES.invalidParams, 'unknown_tool', `unknown tool ${params.name}`, { tool: params.name, tools: tools.names() })
    }
    if (!principal.scopes.includes(tool.scope)) {
      if (principal.credential === 'oauth_grant') {
        throw new RpcError(
          RPC_CODES.forbidden,
          'insufficient_scope',
          `${tool.name} needs the ${tool.scope} scope; the owner granted this client ${principal.scopes.join(', ')}. Ask the owner to sign in again and grant ${tool.scope}`,
          { scope: tool.scope, key_scopes: principal.scopes },
        )
      }
      throw new RpcError(
        RPC_CODES.forbidden,
        'insufficient_scope',
        `${tool.name} needs the ${tool.scope} scope; this key has ${principal.scopes.join(', ')}. Scopes are fixed when a key is created: use a key with ${tool.scope}`,
        { scope: tool.scope, key_scopes: principal.scopes },
      )
    }
    const args = params.arguments ?? {}
    const parsed = isObject(args) ? tool.input.safeParse(args) : null
    if (!parsed?.success) {
      const problems = parsed
        ? parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }))
        : [{ path: '', message: 'arguments must be an object' }]
      throw new RpcError(
        RPC_CODES.invalidParams,
        'invalid_arguments',
        `invalid arguments for ${tool.name}: ${problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; ')}`,
        { problems },
      )
    }
    const context: ToolContext = {
      account: principal.account,
      keyId: principal.keyId,
      services,
      command: { actor: { kind: principal.credential ?? 'api_key', id: principal.keyId }, correlationId: call.requestId },
    }
    const compute = async () => {
      const outcome = await withinTimeLimit(tool.call(parsed.data, context), limits.toolTimeoutMs, tool)
      const text = JSON.stringify(withoutSealedSecrets(withoutRecordings(outcome.output)) ?? {})
      // Tools page and bound their own answers; this is the guarantee should one ever not.
      if (Buffer.byteLength(text, 'utf8') > MAX_OUTPUT_BYTES) {
        call.log.error({ tool: tool.name, bytes: Buffer.byteLength(text, 'utf8') }, 'tool endpoint: an answer over the output bound')
        throw new RpcError(RPC_CODES.toolFailed, 'answer_too_large', `the answer of ${tool.name} is over ${MAX_OUTPUT_BYTES} bytes; ask for less (a smaller limit)`, {
          limit_bytes: MAX_OUTPUT_BYTES,
        })
      }
      return new ToolCallResult(text, outcome.replayed)
    }
    const run = () => (tool.heavy ? this.heavyReads.run(compute) : compute())
    const { readCache } = this.options
    const shared = readCache !== undefined && !tool.writes && tool.annotations.readOnlyHint
    return shared ? readCache.answer(principal.account, tool.name, parsed.data, run) : run()
  }
}
