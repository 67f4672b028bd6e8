/**
 * The tool endpoint's schemas, as /docs/openapi.json shows them. The body is one JSON-RPC 2.0 message or a
 * batch; the endpoint reads it from the raw bytes itself, because a malformed message is a JSON-RPC error with
 * HTTP 200 (spec §7.1), never an HTTP 400. The tools and their arguments are listed by `tools/list` (docs/mcp.md).
 */
import { z } from 'zod'
import { errorBodySchema } from '../errors.ts'
import { PROTOCOL_VERSIONS } from './mcp-endpoint.ts'

const id = z.union([z.string(), z.number()]).describe('The request\'s id; a message without one is a notification, answered 202')

const rpcRequest = z.object({
  jsonrpc: z.literal('2.0'),
  id: id.optional(),
  method: z.string().describe('`initialize`, `tools/list`, `tools/call`, `ping`, …'),
  params: z.record(z.string(), z.unknown()).optional().describe('For `tools/call`: `{"name": <tool>, "arguments": {…}}`'),
})

export const mcpBodySchema = z.union([rpcRequest, z.array(rpcRequest).describe('A batch (protocol 2025-03-26)')]).meta({
  examples: [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_lead', arguments: { phone: '+13125550142' } } }],
})

const rpcError = z.object({
  code: z.number().describe('-32700 parse error, -32600 invalid request, -32601, -32602 invalid params, -32603 tool failed, -32001 unauthorized, -32003 forbidden, …'),
  message: z.string(),
  data: z.looseObject({ code: z.string().describe('The stable error code (docs/errors.md)') }),
})

const rpcResponse = z.union([
  z.object({ jsonrpc: z.literal('2.0'), id: id.nullable(), result: z.unknown() }),
  z.object({ jsonrpc: z.literal('2.0'), id: id.nullable(), error: rpcError }),
])

const refusal = z.object({ jsonrpc: z.literal('2.0'), id: id.nullable(), error: rpcError })

export const mcpHeadersSchema = z.looseObject({
  'mcp-protocol-version': z.enum(PROTOCOL_VERSIONS).optional().describe('Any other version is refused with HTTP 400'),
})

export const mcpResponses = {
  200: z.union([rpcResponse, z.array(rpcResponse)]).describe('Every answer, failures included: a JSON-RPC result or error (docs/errors.md)'),
  202: z.null().describe('Only notifications or client responses: nothing to answer'),
  400: refusal.describe('`MCP-Protocol-Version` names a version this server does not speak (`data.supported` lists those it does)'),
  401: refusal.describe('With OAuth on: no live credential; `WWW-Authenticate` names the resource metadata'),
  403: refusal.describe('A browser `Origin` other than the service\'s own'),
  404: refusal.describe('Protocol 2026-07-28: an unknown method'),
  405: errorBodySchema.describe('GET, DELETE, PUT, PATCH: no event stream, no sessions'),
} as const
