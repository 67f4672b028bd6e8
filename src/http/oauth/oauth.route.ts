/**
 * The authorization server's HTTP face, registered only with LEADLINE_OAUTH=on: oidc-provider answers
 * `/oauth/*` (authorize, token, register, revoke, jwks) and its discovery documents
 * (`/.well-known/openid-configuration`, and the same metadata at RFC 8414's
 * `/.well-known/oauth-authorization-server`); Leadline answers the tool endpoint's protected-resource
 * metadata (RFC 9728) at `/.well-known/oauth-protected-resource` and its path-suffixed form.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { SCOPES } from '../../domain/account/account.events.ts'
import { MCP_PATH } from '../mcp/mcp.route.ts'
import { OAUTH_PREFIX, PROTECTED_RESOURCE_METADATA_PATH, type OAuthServer } from './oauth-server.ts'

/** RFC 9728 §2: what a client learns about the tool endpoint before it asks for a token. */
export function protectedResourceMetadata(oauth: OAuthServer): Record<string, unknown> {
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

  fastify.all(OAUTH_PREFIX, (request, reply) => forward(request, reply))
  fastify.all(`${OAUTH_PREFIX}/*`, (request, reply) => forward(request, reply))
  fastify.get('/.well-known/openid-configuration', (request, reply) => forward(request, reply))
  // RFC 8414 asks for the same metadata under this name; the library serves it under OpenID's.
  fastify.get('/.well-known/oauth-authorization-server', (request, reply) => forward(request, reply, '/.well-known/openid-configuration'))

  const metadata = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.header('access-control-allow-origin', '*').header('cache-control', 'public, max-age=3600').send(protectedResourceMetadata(oauth))
  fastify.get(PROTECTED_RESOURCE_METADATA_PATH, metadata)
  fastify.get(`${PROTECTED_RESOURCE_METADATA_PATH}${MCP_PATH}`, metadata)
}
