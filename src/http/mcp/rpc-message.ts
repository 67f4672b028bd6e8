/** What the two protocol generations share: the call and its answer, sorting a JSON-RPC message, and an error as it leaves. */
import type { FastifyBaseLogger } from 'fastify'
import type { ApiKeyPrincipal } from '../../commands/accounts.ts'
import { holdsRecordingUrl, withoutRecordings } from '../../domain/recordings-policy.ts'
import { SEALED_PREFIX, withoutSealedSecrets } from '../../domain/sealed-secrets.ts'
import { encodeResponse, failure, RPC_CODES, RpcError, type JsonRpcId, type RpcErrorObject, type RpcResponse } from './json-rpc.ts'

/** Who calls: an API key, or an OAuth grant (then `keyId` is the grant's id, its rate-limit bucket too). */
export type ToolPrincipal = ApiKeyPrincipal & { readonly credential?: 'api_key' | 'oauth_grant' }

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

export type Incoming =
  | { readonly kind: 'request'; readonly id: string | number; readonly method: string; readonly params: unknown }
  | { readonly kind: 'ignored' }
  | { readonly kind: 'invalid'; readonly id: JsonRpcId; readonly error: RpcError }

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function invalidRequest(id: JsonRpcId, message: string): Incoming {
  return { kind: 'invalid', id, error: new RpcError(RPC_CODES.invalidRequest, 'invalid_request', message) }
}

/** Sorts one JSON-RPC message: a request to answer, a notification or response to accept, or an invalid one. */
export function classify(message: unknown): Incoming {
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

export function invalidParams(message: string, extra: Record<string, unknown> = {}): RpcError {
  return new RpcError(RPC_CODES.invalidParams, 'invalid_params', message, extra)
}

/** An error as it leaves: data through the filter, and a message that quoted a recording URL replaced. */
export function outgoingError(error: RpcError): RpcErrorObject {
  const object = error.toObject()
  const data = withoutSealedSecrets(withoutRecordings(object.data)) as RpcErrorObject['data']
  return {
    code: object.code,
    message: holdsRecordingUrl(object.message) || object.message.includes(SEALED_PREFIX) ? 'the tool failed (details withheld)' : object.message,
    data: { ...data, code: object.data.code },
  }
}

/** One error as the whole answer. */
export function refusal(id: JsonRpcId, error: RpcError, status: 200 | 400 | 404 = 200): McpAnswer {
  return { status, body: encodeResponse(failure(id, outgoingError(error))) }
}

/** What each protocol generation needs of the endpoint: its instructions, authentication, and the answer to one request. */
export interface ProtocolHost {
  readonly instructions: string
  readonly maxBatch: number
  authenticate(apiKey: string | undefined): Promise<ToolPrincipal | null>
  answer(request: Extract<Incoming, { kind: 'request' }>, principal: Promise<ToolPrincipal | null>, call: McpCall, modern?: boolean): Promise<RpcResponse>
}
