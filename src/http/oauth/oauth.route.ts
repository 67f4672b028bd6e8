/**
 * The authorization server's HTTP face, registered only with LEADLINE_OAUTH=on: oidc-provider answers
 * `/oauth/*` (authorize, token, register, revoke, jwks) and its discovery documents
 * (`/.well-known/openid-configuration`, and the same metadata at RFC 8414's
 * `/.well-known/oauth-authorization-server`); Leadline answers the tool endpoint's protected-resource
 * metadata (RFC 9728) at `/.well-known/oauth-protected-resource` and its path-suffixed form.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, FastifySchema } from 'fastify'
import type { z } from 'zod'
import { SCOPES } from '../../domain/account/account.events.ts'
import { MCP_PATH } from '../mcp/mcp.route.ts'
import { describedOnly } from '../route-schemas.ts'
import { OAUTH_PREFIX, PROTECTED_RESOURCE_METADATA_PATH, type OAuthServer } from './oauth-server.ts'
import {
  authorizationMetadataSchema, authorizeSchema, jwksSchema, parSchema, protectedResourceSchema, registerSchema, revokeSchema, tokenSchema,
  type protectedResourceMetadataSchema,
} from './oauth.schema.ts'

/** RFC 9728 §2: what a client learns about the tool endpoint before it asks for a token. */
export function protectedResourceMetadata(oauth: OAuthServer): z.infer<typeof protectedResourceMetadataSchema> {
  return {
    resource: oauth.resource,
    authorization_servers: [oauth.issuer],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Leadline tool endpoint',
    resource_documentation: `${oauth.issuer}/docs/mcp`,
  }
}

export const oauthRoutes: FastifyPluginAsync<{ oauth: OAuthServer }> = async (fastify, { oauth }) => {
  const callback = oauth.callback
  const publicUrl = new URL(oauth.issuer)

  // The library reads its own bodies (forms and JSON): leave the stream unread for it.
  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined))

  const forward = (request: FastifyRequest, reply: FastifyReply, url?: string) => {
    reply.hijack()
    const raw = request.raw
    if (url !== undefined) raw.url = url
    // Whatever a client claimed, the scheme and host are the public URL's (TLS ends in front of us).
    raw.headers['x-forwarded-proto'] = publicUrl.protocol.replace(':', '')
    raw.headers['x-forwarded-host'] = publicUrl.host
    void callback(raw, reply.raw)
    return reply
  }

  // The endpoints a client uses, each described for /docs/openapi.json; the library reads and checks their requests.
  const library = (method: 'GET' | 'POST', url: string, schema: FastifySchema, path?: string) =>
    fastify.route({ method, url, schema, validatorCompiler: describedOnly, handler: (request, reply) => forward(request, reply, path) })
  library('GET', `${OAUTH_PREFIX}/authorize`, authorizeSchema)
  library('POST', `${OAUTH_PREFIX}/par`, parSchema)
  library('POST', `${OAUTH_PREFIX}/token`, tokenSchema)
  library('POST', `${OAUTH_PREFIX}/register`, registerSchema)
  library('POST', `${OAUTH_PREFIX}/revoke`, revokeSchema)
  library('GET', `${OAUTH_PREFIX}/jwks`, jwksSchema)
  library('GET', '/.well-known/openid-configuration', authorizationMetadataSchema('OpenID Connect Discovery'))
  // RFC 8414 asks for the same metadata under this name; the library serves it under OpenID's.
  library('GET', '/.well-known/oauth-authorization-server', authorizationMetadataSchema('RFC 8414'), '/.well-known/openid-configuration')
  // The library's other requests (the consent's return, other methods): its own, not described.
  const internal = { schema: { hide: true } }
  fastify.all(OAUTH_PREFIX, internal, (request, reply) => forward(request, reply))
  fastify.all(`${OAUTH_PREFIX}/*`, internal, (request, reply) => forward(request, reply))

  const metadata = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.header('access-control-allow-origin', '*').header('cache-control', 'public, max-age=3600').send(protectedResourceMetadata(oauth))
  fastify.get(PROTECTED_RESOURCE_METADATA_PATH, { schema: protectedResourceSchema }, metadata)
  fastify.get(`${PROTECTED_RESOURCE_METADATA_PATH}${MCP_PATH}`, { schema: protectedResourceSchema }, metadata)
}
