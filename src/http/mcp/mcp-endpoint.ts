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
import {
  failure, INTERNAL_ERROR, RPC_CODES, RpcError, success, toRpcError, ToolCallResult, type RpcResponse,
} from './json-rpc.ts'
import { MAX_OUTPUT_BYTES } from './answer-budget.ts'
import { HeavyReads } from './heavy-reads.ts'
import type { ReadCache } from './read-cache.ts'
import { withoutRecordings } from '../../domain/recordings-policy.ts'
import { withoutSealedSecrets } from '../../domain/sealed-secrets.ts'
import { TokenBuckets } from '../token-buckets.ts'
import type { McpServices, Tool, ToolContext } from './tool.ts'
import type { ToolRegistry } from './tool-registry.ts'
import { serverInstructions } from './instructions.ts'
import { answerLegacy, initializeResult } from './legacy-protocol.ts'
import { answerModern } from './modern-protocol.ts'
import { MODERN_PROTOCOL_VERSIONS, metaVersion } from './protocol-versions.ts'
import {
  invalidParams, isObject, outgoingError, refusal, type Incoming, type McpAnswer, type McpCall, type ProtocolHost, type ToolPrincipal,
} from './rpc-message.ts'

// The two protocol generations live in their own files (modern-protocol.ts, legacy-protocol.ts); what others import stays here.
export { LATEST_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSIONS, PROTOCOL_VERSIONS } from './protocol-versions.ts'
export type { McpAnswer, McpCall, ToolPrincipal } from './rpc-message.ts'

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

export interface McpEndpointOptions {
  readonly tools: ToolRegistry
  readonly services: McpServices
  readonly authenticate: (apiKey: string | undefined) => Promise<ToolPrincipal | null>
  readonly limits: McpLimits
  /** Read tools' answers shared while the data and the clock's second stay the same (none: every call computes). */
  readonly readCache?: ReadCache
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

export class McpEndpoint {
  private readonly buckets: TokenBuckets
  private readonly heavyReads: HeavyReads
  private readonly instructions: string
  /** What the protocol generations use of this endpoint. */
  private readonly host: ProtocolHost

  constructor(private readonly options: McpEndpointOptions) {
    this.instructions = serverInstructions(options.tools)
    this.buckets = new TokenBuckets(options.limits.ratePerSecond, options.limits.burst)
    this.heavyReads = new HeavyReads(options.limits.heavyReads, options.limits.heavyReadsWaiting)
    this.host = {
      instructions: this.instructions,
      maxBatch: options.limits.maxBatch,
      authenticate: (apiKey) => options.authenticate(apiKey),
      answer: (request, principal, call, modern) => this.answer(request, principal, call, modern),
    }
  }

  /** Answers one POST body: a single message, or a batch of them. */
  async handle(call: McpCall): Promise<McpAnswer> {
    let parsed: unknown
    try {
      parsed = JSON.parse(call.body.toString('utf8'))
    } catch {
      return refusal(null, new RpcError(RPC_CODES.parseError, 'parse_error', 'parse error: the body is not valid JSON'))
    }
    const batch = Array.isArray(parsed)
    const messages = batch ? (parsed as unknown[]) : [parsed]
    const declared = messages.map(metaVersion).find((v) => v !== undefined)
    if (MODERN_PROTOCOL_VERSIONS.has(call.headers?.protocolVersion ?? '') || (declared !== undefined && MODERN_PROTOCOL_VERSIONS.has(declared))) {
      return answerModern(this.host, call, parsed, batch)
    }
    return answerLegacy(this.host, call, messages, batch)
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
      case 'initialize':
        return initializeResult(params, this.instructions)
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
    // A tool that reads the world outside the log (list_open_slots asks the owner's calendar) is asked every time:
    // the cache's stamp cannot see an event the owner just put in their calendar.
    const shared = readCache !== undefined && !tool.writes && tool.annotations.readOnlyHint && !tool.annotations.openWorldHint
    return shared ? readCache.answer(principal.account, tool.name, parsed.data, run) : run()
  }
}
