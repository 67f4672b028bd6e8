/**
 * Where to go from the server's root (issue #41): `GET /` sends a browser to the console and gives
 * an agent (Accept: application/json or text/markdown, and curl's any-type default) a short index of the
 * service's URLs. The same list is the start-up line on standard error.
 */
import type { FastifyPluginAsync } from 'fastify'
import Negotiator from 'negotiator'
import { CONSOLE_PREFIX } from './console/layout.ts'
import { MCP_PATH } from './mcp/mcp.route.ts'
import { PAGE_FOR_PEOPLE } from './route-schemas.ts'

/** The service's front doors under its public URL. */
export function serviceUrls(baseUrl: string) {
  const base = baseUrl.replace(/\/+$/, '')
  return {
    console: `${base}${CONSOLE_PREFIX}`,
    docs: `${base}/docs`,
    llms_txt: `${base}/llms.txt`,
    webhook: `${base}/api/ingest/lead`,
    tool_endpoint: `${base}${MCP_PATH}`,
    health: `${base}/healthz`,
  }
}

/** The one human line a server prints when it is ready. */
export function startupLine(baseUrl: string): string {
  const urls = serviceUrls(baseUrl)
  return `leadline: serving on ${baseUrl} | console ${urls.console} | docs ${urls.docs} | webhook ${urls.webhook} | tool endpoint ${urls.tool_endpoint}`
}

function markdownIndex(baseUrl: string): string {
  const urls = serviceUrls(baseUrl)
  return `# Leadline

Lead intake and speed to lead: a lead webhook, an append-only lead log, and a tool endpoint for agents.

- [Console](${urls.console}): the account owner's screens (sign in).
- [Documentation](${urls.docs}), every page also as markdown (add \`.md\`); an index for agents: [llms.txt](${urls.llms_txt}).
- Lead webhook: \`POST ${urls.webhook}\` with the account's \`x-service-token\`.
- Tool endpoint (MCP, Streamable HTTP): \`POST ${urls.tool_endpoint}\` with \`Authorization: Bearer <API key or OAuth token>\`; see [${urls.docs}/mcp](${urls.docs}/mcp).
- Health: \`GET ${urls.health}\`.
`
}

const OFFERED = ['text/markdown', 'text/html', 'application/json', 'text/plain']

export const rootRoutes: FastifyPluginAsync = async (fastify) => {
  const base = fastify.publicUrl
  const markdown = markdownIndex(base)
  const json = { name: 'Leadline', ...serviceUrls(base) }
  fastify.get('/', { schema: PAGE_FOR_PEOPLE }, (request, reply) => {
    reply.header('vary', 'accept').header('cache-control', 'no-store')
    const chosen = new Negotiator(request.raw).mediaType(OFFERED)
    if (chosen === 'text/html') return reply.redirect(CONSOLE_PREFIX, 303)
    if (chosen === 'application/json') return reply.send(json)
    if (chosen === undefined) return reply.code(406).send({ error: 'not_acceptable', detail: `GET / answers ${OFFERED.join(', ')}` })
    return reply.type(`${chosen === 'text/plain' ? 'text/plain' : 'text/markdown'}; charset=utf-8`).send(markdown)
  })
}
