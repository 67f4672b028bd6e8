/**
 * The older generation of the protocol (2025-11-25, 2025-06-18, 2025-03-26): batches allowed, and
 * `initialize`, which answers the client's version when it is one of them, else the newest.
 */
import { encodeResponse, failure, RPC_CODES, RpcError, type RpcResponse } from './json-rpc.ts'
import { LATEST_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSIONS, SERVER_INFO } from './protocol-versions.ts'
import { classify, invalidParams, outgoingError, refusal, type McpAnswer, type McpCall, type ProtocolHost, type ToolPrincipal } from './rpc-message.ts'

const OPEN_BATCH = Buffer.from('[')
const COMMA = Buffer.from(',')
const CLOSE_BATCH = Buffer.from(']')

/** Answers a single message or a batch of them. */
export async function answerLegacy(host: ProtocolHost, call: McpCall, messages: readonly unknown[], batch: boolean): Promise<McpAnswer> {
  if (batch && messages.length === 0) return refusal(null, new RpcError(RPC_CODES.invalidRequest, 'invalid_request', 'an empty batch'))
  if (messages.length > host.maxBatch) {
    return refusal(
      null,
      new RpcError(RPC_CODES.invalidRequest, 'batch_too_large', `a batch holds at most ${host.maxBatch} messages`, {
        max_batch: host.maxBatch,
      }),
    )
  }

  const incoming = messages.map(classify)
  let principal: Promise<ToolPrincipal | null> | undefined
  const responses = await Promise.all(
    incoming.map((message) => {
      if (message.kind === 'ignored') return null
      if (message.kind === 'invalid') return failure(message.id, outgoingError(message.error))
      principal ??= host.authenticate(call.apiKey)
      return host.answer(message, principal, call)
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

/** The answer to `initialize`. */
export function initializeResult(params: Record<string, unknown>, instructions: string): unknown {
  if (typeof params.protocolVersion !== 'string') throw invalidParams('initialize needs params.protocolVersion')
  const asked = params.protocolVersion
  return {
    protocolVersion: LEGACY_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION,
    capabilities: { tools: { listChanged: false } },
    serverInfo: SERVER_INFO,
    instructions,
  }
}
