/**
 * `GET /docs/openapi.json`: the HTTP API as OpenAPI 3.1, built by `@fastify/swagger` from the zod schemas the
 * routes validate with, so the description cannot drift from what is served. Every route declares a schema: the
 * webhook, the tool endpoint and its OAuth endpoints, the health checks and metrics, and the vendors' callbacks are
 * in it; pages for people (the console, the docs, the pay page), the relay socket and the OAuth library's other
 * requests are hidden (docs/webhook.md#machine-readable-description). Only the 405 answers declare none.
 */
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger'
import type { FastifyPluginAsync } from 'fastify'
import { jsonSchemaTransform } from 'fastify-type-provider-zod'
import { z } from 'zod'

export const OPENAPI_PATH = '/docs/openapi.json'
const API_VERSION = '0.1.0'

/** The security schemes routes name in `schema.security`. */
export const SECURITY = {
  webhookTokenHeader: { type: 'apiKey', in: 'header', name: 'x-service-token', description: 'The account\'s webhook token (docs/webhook.md#the-token-header-or-query)' },
  webhookTokenQuery: { type: 'apiKey', in: 'query', name: 'token', description: 'The webhook token in the URL, for tools that cannot set headers' },
  bearer: { type: 'http', scheme: 'bearer', description: 'The webhook token (on the webhook) or an API key `ll_live_…` or OAuth access token (on the tool endpoint)' },
  operatorToken: { type: 'http', scheme: 'bearer', description: 'An operator token `llop_…` (`leadline operator-token`): /readyz\'s details' },
} as const

export type SecurityScheme = keyof typeof SECURITY

/** `@fastify/swagger`'s options: registered by app.ts before any route, so it sees every one. */
export function openApiOptions(publicUrl: string): FastifyDynamicSwaggerOptions {
  return {
    mode: 'dynamic',
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Leadline',
        version: API_VERSION,
        description: 'Lead intake and speed-to-lead. The lead webhook (docs/webhook.md) takes any form\'s fields; the tool endpoint (docs/mcp.md) is MCP over JSON-RPC.',
      },
      servers: [{ url: publicUrl }],
      components: { securitySchemes: { ...SECURITY } },
    },
    // Undeclared routes (the 405 answers) stay out: see the comment at the top of this file.
    transform: (input) => (input.schema === undefined || input.schema === null ? { schema: { hide: true }, url: input.url } : jsonSchemaTransform(input)),
  }
}

export const openApiRoute: FastifyPluginAsync = async (fastify) => {
  // Built once, on the first request: every route is registered by then, and the text never changes.
  let document: string | null = null
  fastify.get(OPENAPI_PATH, {
    schema: {
      summary: 'This description of the HTTP API',
      tags: ['docs'],
      response: { 200: z.looseObject({ openapi: z.literal('3.1.0') }).describe('An OpenAPI 3.1 document') },
    },
  }, async (_request, reply) => reply.type('application/json; charset=utf-8').header('cache-control', 'public, max-age=300').send(document ??= JSON.stringify(fastify.swagger())))
}
