/** The MCP protocol versions the tool endpoint speaks, and the server it names in its answers. */
import { readFileSync } from 'node:fs'
import { projectPath } from '../../config/project-root.ts'
import { isObject } from './rpc-message.ts'

/**
 * Newest first. 2026-07-28 is stateless: no `initialize`, every request names its version in the
 * `MCP-Protocol-Version` header and in `params._meta` (docs/mcp.md, "Protocol versions"). The others
 * open with `initialize`, which answers the client's version when it is one of them, else the newest.
 */
export const PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'] as const
export const MODERN_PROTOCOL_VERSIONS: ReadonlySet<string> = new Set(['2026-07-28'])
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = PROTOCOL_VERSIONS.filter((v) => !MODERN_PROTOCOL_VERSIONS.has(v))
export const LATEST_PROTOCOL_VERSION = LEGACY_PROTOCOL_VERSIONS[0] as string
export const META_VERSION = 'io.modelcontextprotocol/protocolVersion'

const SERVER_VERSION = (JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version: string }).version
export const SERVER_INFO = { name: 'leadline', title: 'Leadline', version: SERVER_VERSION }

/** The protocol version a message names in `params._meta` (2026-07-28), if any. */
export function metaVersion(message: unknown): string | undefined {
  const meta = (isObject(message) && isObject(message.params) ? message.params._meta : undefined)
  const version = isObject(meta) ? meta[META_VERSION] : undefined
  return typeof version === 'string' ? version : undefined
}
