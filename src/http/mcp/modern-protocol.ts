/**
 * The 2026-07-28 generation of the protocol (docs/mcp.md, "Protocol versions"): stateless, one
 * message per POST, its headers checked against its body.
 */
import { encodeResponse, RPC_CODES, RpcError, success, ToolCallResult } from './json-rpc.ts'
import { META_VERSION, MODERN_PROTOCOL_VERSIONS, PROTOCOL_VERSIONS, SERVER_INFO, metaVersion } from './protocol-versions.ts'
import { classify, isObject, refusal, type McpAnswer, type McpCall, type ProtocolHost } from './rpc-message.ts'

/** How long a 2026-07-28 client may cache `tools/list` and `server/discover`: the tools change only with a new release. */
const LIST_TTL_MS = 60 * 60 * 1000

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

/**
 * One 2026-07-28 message (docs/mcp.md, "Protocol versions"): its headers must match its body
 * (`MCP-Protocol-Version` and `_meta`'s version, `Mcp-Method`, `Mcp-Name` for tools/call), else 400
 * HeaderMismatch; `server/discover` needs no credential; results carry `resultType` and `_meta`'s
 * serverInfo, lists their cache hints; an unknown method is 404.
 */
export async function answerModern(host: ProtocolHost, call: McpCall, parsed: unknown, batch: boolean): Promise<McpAnswer> {
  if (batch) return refusal(null, new RpcError(RPC_CODES.invalidRequest, 'invalid_request', 'protocol 2026-07-28 takes one JSON-RPC message per POST, never a batch'), 400)
  const message = classify(parsed)
  if (message.kind === 'ignored') return { status: 202 }
  if (message.kind === 'invalid') return refusal(message.id, message.error)
  const mismatch = headerMismatch(message, call.headers ?? {})
  if (mismatch !== null) return refusal(message.id, new RpcError(RPC_CODES.headerMismatch, 'header_mismatch', mismatch), 400)
  const version = metaVersion(parsed) as string
  if (!MODERN_PROTOCOL_VERSIONS.has(version)) {
    return refusal(message.id, new RpcError(RPC_CODES.unsupportedProtocolVersion, 'unsupported_protocol_version', `protocol version ${version} is not supported here`, { supported: [...PROTOCOL_VERSIONS], requested: version }), 400)
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
        instructions: host.instructions,
        ttlMs: LIST_TTL_MS,
        cacheScope: 'public',
        _meta: meta,
      })),
    }
  }
  if (message.method !== 'tools/list' && message.method !== 'tools/call') {
    return refusal(message.id, new RpcError(RPC_CODES.methodNotFound, 'method_not_found', `unknown method ${message.method} in protocol 2026-07-28`, { methods: ['server/discover', 'tools/list', 'tools/call'] }), 404)
  }
  const principal = host.authenticate(call.apiKey)
  const response = await host.answer(message, principal, call, true)
  const unauthenticated = (await principal) === null
  if ('error' in response) return { status: 200, body: encodeResponse(response), unauthenticated }
  if (response.result instanceof ToolCallResult) return { status: 200, body: encodeResponse(response, modern), unauthenticated }
  const result = { ...(response.result as Record<string, unknown>), resultType: 'complete', ...(message.method === 'tools/list' ? { ttlMs: LIST_TTL_MS, cacheScope: 'public' } : {}), _meta: meta }
  return { status: 200, body: encodeResponse(success(message.id, result)), unauthenticated }
}
