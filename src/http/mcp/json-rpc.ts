/**
 * JSON-RPC 2.0 as the tool endpoint speaks it (spec §4.2, §7.1): the envelope, the error codes, and
 * the one error class every layer throws. Every error carries a stable `data.code`
 * (`insufficient_scope`, `outside_calling_hours`, …) that callers, logs and docs share.
 */
import { DomainError } from '../../domain/shared/decider.ts'
import { StoreUnavailableError } from '../../eventstore/event-store.port.ts'

export const RPC_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  /** Unknown tool, invalid arguments, an idempotency key reused with other arguments. */
  invalidParams: -32602,
  /** The tool ran and failed; `data.code` says why. */
  toolFailed: -32603,
  /** API key missing, invalid or revoked (spec §7.1). */
  unauthorized: -32001,
  /** The key lacks the scope the tool needs (spec §7.1). */
  forbidden: -32003,
  /**
   * Too many requests for this key; `data.retry_after_seconds` says when to try again. -32029 lies in
   * the range protocol 2026-07-28 reserves for the MCP specification: requests of that revision get
   * this code; those of 2025-11-25 and earlier still get `legacyRateLimited` until 0.3.0 (docs/versioning.md).
   */
  rateLimited: -32010,
  legacyRateLimited: -32029,
  /** 2026-07-28: the MCP headers do not match the body, or one it requires is missing (HTTP 400). */
  headerMismatch: -32020,
  /** 2026-07-28: a protocol version this server does not speak; `data.supported` lists those it does (HTTP 400). */
  unsupportedProtocolVersion: -32022,
} as const

export type JsonRpcId = string | number | null

export interface RpcErrorObject {
  readonly code: number
  readonly message: string
  readonly data: { readonly code: string; readonly [member: string]: unknown }
}

export type RpcResponse =
  | { readonly jsonrpc: '2.0'; readonly id: JsonRpcId; readonly result: unknown }
  | { readonly jsonrpc: '2.0'; readonly id: JsonRpcId; readonly error: RpcErrorObject }

/** A JSON-RPC error with its stable `data.code` and any further members of `data` (snake_case). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    readonly dataCode: string,
    message: string,
    readonly extra: Readonly<Record<string, unknown>> = {},
  ) {
    super(message)
    this.name = 'RpcError'
  }

  toObject(): RpcErrorObject {
    return { code: this.code, message: this.message, data: { code: this.dataCode, ...this.extra } }
  }
}

/** Domain refusals that are about the arguments rather than the world: answered -32602, not -32603. */
const ARGUMENT_CODES: ReadonlySet<string> = new Set(['idempotency_key_reused', 'invalid_cursor', 'invalid_since'])

/** Refusals worth retrying as they are, and after how long. */
const RETRY_AFTER_SECONDS: Readonly<Record<string, number>> = { store_unavailable: 5 }

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
}

/** A refusal from the domain (`do_not_call`, `lead_not_found`, …) as JSON-RPC: its details become `data` members. */
export function fromDomainError(error: DomainError): RpcError {
  const extra: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(error.details ?? {})) extra[snakeCase(name)] = value
  const retry = RETRY_AFTER_SECONDS[error.code]
  if (retry !== undefined && extra.retry_after_seconds === undefined) extra.retry_after_seconds = retry
  return new RpcError(ARGUMENT_CODES.has(error.code) ? RPC_CODES.invalidParams : RPC_CODES.toolFailed, error.code, error.message, extra)
}

/** Any error thrown while answering, as the RpcError the caller sees; null for a bug (logged, answered `internal_error`). */
export function toRpcError(error: unknown): RpcError | null {
  if (error instanceof RpcError) return error
  if (error instanceof DomainError) return fromDomainError(error)
  // A raw SQLite fault from a views write on the request path (disk full, read-only) is the same refusal.
  if (error instanceof StoreUnavailableError) {
    return new RpcError(RPC_CODES.toolFailed, 'store_unavailable', 'the log cannot take writes right now; nothing was recorded', { retry_after_seconds: 5 })
  }
  return null
}

export const INTERNAL_ERROR = new RpcError(RPC_CODES.toolFailed, 'internal_error', 'internal error')

/**
 * A successful tools/call result (spec §4.2): the output as JSON text in `content[0].text`, and the
 * same object as `structuredContent`. The output is serialized once; both places use that JSON. A
 * shared read answer is sent many times, so its bytes after the id are encoded once too: sending a
 * Buffer spares every call measuring and encoding tens of kilobytes of text again.
 */
const CONTENT_OPEN = Buffer.from(',"result":{"content":[{"type":"text","text":')
const STRUCTURED_OPEN = Buffer.from('}],"structuredContent":')
const RESULT_CLOSE = Buffer.from('}}')
const REPLAYED_CLOSE = Buffer.from(',"_meta":{"leadline/replayed":true}}}')

/** What a 2026-07-28 result carries besides its content: `resultType` and the server's identity in `_meta`. */
export interface ModernResultFields {
  readonly resultType: 'complete'
  readonly serverInfo: Readonly<Record<string, string>>
}

function modernClose(fields: ModernResultFields, replayed: boolean): Buffer {
  const meta = { 'io.modelcontextprotocol/serverInfo': fields.serverInfo, ...(replayed ? { 'leadline/replayed': true } : {}) }
  return Buffer.from(`,"resultType":${JSON.stringify(fields.resultType)},"_meta":${JSON.stringify(meta)}}}`)
}

export class ToolCallResult {
  private encodedTail: Buffer | undefined
  private modernTail: Buffer | undefined

  constructor(
    /** The tool's output, as JSON. */
    readonly text: string,
    readonly replayed: boolean,
  ) {}

  /** The response's bytes after `{"jsonrpc":"2.0","id":ID`, the same for every caller of this result. */
  get tail(): Buffer {
    // Encoded piece by piece: the output is in the response twice (text, then structuredContent), and
    // one JavaScript string holding both would be a third and fourth copy of it on the heap.
    this.encodedTail ??= Buffer.concat([
      CONTENT_OPEN,
      Buffer.from(JSON.stringify(this.text)),
      STRUCTURED_OPEN,
      Buffer.from(this.text),
      this.replayed ? REPLAYED_CLOSE : RESULT_CLOSE,
    ])
    return this.encodedTail
  }

  /** The same for a 2026-07-28 request: `resultType` and `_meta` after the content. */
  tailFor(modern: ModernResultFields | null): Buffer {
    if (modern === null) return this.tail
    this.modernTail ??= Buffer.concat([
      CONTENT_OPEN,
      Buffer.from(JSON.stringify(this.text)),
      STRUCTURED_OPEN,
      Buffer.from(this.text),
      modernClose(modern, this.replayed),
    ])
    return this.modernTail
  }

  toJSON(): unknown {
    return JSON.parse(serializeResponse(success(null, this))).result
  }
}

/**
 * The response as UTF-8 JSON, in chunks to be sent one after the other: a tool result's tail is the
 * result's own Buffer, shared by every caller and never copied (a copy per call is memory outside the
 * JavaScript heap, and under load V8 answers that pressure with full collections).
 */
export function encodeResponse(response: RpcResponse, modern: ModernResultFields | null = null): Buffer[] {
  if (!('result' in response) || !(response.result instanceof ToolCallResult)) return [Buffer.from(JSON.stringify(response))]
  return [Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(response.id)}`), response.result.tailFor(modern)]
}

/** The response as JSON text. */
export function serializeResponse(response: RpcResponse): string {
  return Buffer.concat(encodeResponse(response)).toString('utf8')
}

export function success(id: JsonRpcId, result: unknown): RpcResponse {
  return { jsonrpc: '2.0', id, result }
}

export function failure(id: JsonRpcId, error: RpcErrorObject): RpcResponse {
  return { jsonrpc: '2.0', id, error }
}
