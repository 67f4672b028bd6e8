/**
 * The CLI's side of the tool endpoint: the MCP SDK's Client over Streamable HTTP, pointed at the
 * server serverUrl() finds (LEADLINE_URL, else PORT, …) with LEADLINE_API_KEY, and JSON-RPC errors turned into one-line messages with their
 * own exit codes (docs/cli.md#exit-codes).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpError, type ListToolsResult } from '@modelcontextprotocol/sdk/types.js'
import { EXIT, type Io } from '../cli-io.ts'
import { serverUrl } from '../../config/server-address.ts'
import { EXIT_BY_RPC_CODE, REMOTE_EXIT, RemoteError } from './remote-error.ts'

export interface ToolResult {
  readonly output: Record<string, unknown>
  /** True when the server answered with the recorded result of an earlier call with the same idempotency key. */
  readonly replayed: boolean
}

export interface Remote {
  listTools(): Promise<ListToolsResult>
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>
}

function describeData(data: Record<string, unknown>): string {
  const parts = [String(data.code)]
  if (typeof data.rule === 'string') parts.push(`rule ${data.rule}`)
  if (typeof data.next_allowed_at === 'string') parts.push(`next allowed at ${data.next_allowed_at}`)
  if (typeof data.retry_after_seconds === 'number') parts.push(`retry in ${data.retry_after_seconds} s`)
  if (typeof data.scope === 'string') parts.push(`needs scope ${data.scope}`)
  return parts.join('; ')
}

/** How the server's address was found, for messages that must say which server answered. */
function foundBy(from: string): string {
  return from === 'LEADLINE_URL' ? 'from LEADLINE_URL' : `from ${from}; set LEADLINE_URL to name another`
}

/**
 * Any failure of a remote call as a RemoteError: our JSON-RPC errors by their code, the rest as
 * "failed" (1). Connection and authentication failures name the server's URL and how it was found.
 */
export function remoteError(error: unknown, url: string, from = 'LEADLINE_URL'): RemoteError {
  if (error instanceof RemoteError) return error
  if (error instanceof McpError) {
    const data = typeof error.data === 'object' && error.data !== null ? (error.data as Record<string, unknown>) : {}
    const message = error.message.replace(/^MCP error -?\d+: /, '')
    // Only the server's errors carry data.code; the SDK's own (a timeout reuses -32001) do not.
    if (typeof data.code !== 'string') return new RemoteError(message, EXIT.failed)
    const exitCode = EXIT_BY_RPC_CODE[error.code] ?? EXIT.failed
    const where = exitCode === REMOTE_EXIT.auth ? ` at ${url} (${foundBy(from)})` : ''
    return new RemoteError(`${message} (${describeData(data)})${where}`, exitCode, {
      code: error.code,
      message,
      data,
    })
  }
  if (error instanceof StreamableHTTPError) {
    const said = error.message.replace(/^Streamable HTTP error: (Error POSTing to endpoint: )?/, '')
    return new RemoteError(`the tool endpoint at ${url} (${foundBy(from)}) answered HTTP ${String(error.code)}: ${said}: is that the service's base URL?`, EXIT.failed)
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  const why = cause?.code ?? cause?.message
  return new RemoteError(`cannot reach the tool endpoint at ${url}${why ? ` (${why})` : ''}: is the server running? (the address is ${foundBy(from)})`, EXIT.failed)
}

/** Connects (initialize), runs `use`, and always disconnects. */
export async function withRemote<T>(io: Io, use: (remote: Remote) => Promise<T>): Promise<T> {
  const { url: base, from } = serverUrl(io.env)
  let endpoint: URL
  try {
    endpoint = new URL('api/mcp', `${base}/`)
  } catch {
    throw new RemoteError(`${from} does not make a URL: ${base}`, EXIT.usage)
  }
  const apiKey = io.env.LEADLINE_API_KEY?.trim()
  if (!apiKey) throw new RemoteError(`LEADLINE_API_KEY is not set (for the server at ${base}, ${foundBy(from)}): create a key with \`leadline key create\` and export it`, REMOTE_EXIT.auth)
  const client = new Client({ name: 'leadline-cli', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } })
  const url = endpoint.href
  try {
    await client.connect(transport)
    return await use({
      listTools: () => client.listTools(),
      async call(name, args) {
        const result = await client.callTool({ name, arguments: args })
        return {
          output: (result.structuredContent ?? JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? '{}')) as Record<string, unknown>,
          replayed: (result._meta as Record<string, unknown> | undefined)?.['leadline/replayed'] === true,
        }
      },
    })
  } catch (error) {
    throw remoteError(error, url, from)
  } finally {
    await client.close().catch(() => undefined)
  }
}
