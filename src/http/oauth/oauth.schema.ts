/**
 * The OAuth endpoints a client of the tool endpoint uses, as /docs/openapi.json shows them (docs/mcp.md#sign-in-with-oauth).
 * oidc-provider reads and checks their requests itself and answers RFC 6749's `{error, error_description}`; these
 * schemas describe what it takes. The protected-resource metadata is Leadline's own, and its schema is checked.
 */
import { z } from 'zod'
import { SCOPES } from '../../domain/account/account.events.ts'

const oauthError = z.looseObject({
  error: z.string().describe('RFC 6749\'s code: `invalid_request`, `invalid_client`, `invalid_grant`, `invalid_target`, …'),
  error_description: z.string().optional(),
}).describe('An OAuth error (RFC 6749 §5.2)')

const FORM = ['application/x-www-form-urlencoded']

const authorizationRequest = {
  response_type: z.literal('code'),
  client_id: z.string(),
  redirect_uri: z.string().optional().describe('One of the client\'s registered redirect URIs'),
  code_challenge: z.string().describe('PKCE, required'),
  code_challenge_method: z.literal('S256').describe('`plain` is refused'),
  scope: z.string().optional().describe(`Space-separated, of ${SCOPES.map((s) => `\`${s}\``).join(', ')} (and \`offline_access\` for a refresh token); none: the consent page offers all`),
  resource: z.string().optional().describe('`{base_url}/api/mcp`, the only resource (RFC 8707); any other is `invalid_target`'),
  state: z.string().optional(),
}

const metadata = z.looseObject({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  registration_endpoint: z.string(),
  revocation_endpoint: z.string(),
  pushed_authorization_request_endpoint: z.string(),
  jwks_uri: z.string(),
  code_challenge_methods_supported: z.array(z.string()),
  scopes_supported: z.array(z.string()),
}).describe('The authorization server\'s metadata: endpoints, PKCE, scopes, grant types')

const tags = ['oauth']

export const authorizationMetadataSchema = (rfc: string) => ({
  summary: `Authorization-server metadata (${rfc})`,
  tags,
  response: { 200: metadata },
})

export const authorizeSchema = {
  summary: 'Authorization: the owner signs in and consents',
  description: 'Authorization code with PKCE (S256) only; redirects to the console\'s consent page, then back to `redirect_uri` with `code`, `state` and `iss` (RFC 9207). With a pushed request: `client_id` and `request_uri` alone.',
  tags,
  querystring: z.union([
    z.object(authorizationRequest),
    z.object({ client_id: z.string(), request_uri: z.string().describe('From `/oauth/par`') }),
  ]),
  response: { 303: z.null().describe('To the consent page, or back to the client with the code or an error') },
}

export const parSchema = {
  summary: 'Pushed authorization request (RFC 9126)',
  description: 'The authorization request\'s parameters, pushed first; `request_uri` then goes to `/oauth/authorize` with `client_id`.',
  tags,
  consumes: FORM,
  body: z.object({ ...authorizationRequest, client_secret: z.string().optional().describe('A confidential client\'s') }),
  response: {
    201: z.object({ request_uri: z.string(), expires_in: z.number() }),
    400: oauthError,
  },
}

export const tokenSchema = {
  summary: 'Token: a code or a refresh token for an access token',
  description: 'Access tokens are opaque, for `{base_url}/api/mcp` only, and last an hour; refresh tokens are rotated on every use, and one used twice revokes its grant.',
  tags,
  consumes: FORM,
  body: z.union([
    z.object({ grant_type: z.literal('authorization_code'), code: z.string(), code_verifier: z.string(), redirect_uri: z.string().optional(), client_id: z.string(), resource: z.string().optional() }),
    z.object({ grant_type: z.literal('refresh_token'), refresh_token: z.string(), client_id: z.string(), resource: z.string().optional(), scope: z.string().optional() }),
  ]),
  response: {
    200: z.looseObject({ access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number(), refresh_token: z.string().optional(), scope: z.string() }),
    400: oauthError,
    401: oauthError.describe('`invalid_client`'),
  },
}

export const registerSchema = {
  summary: 'Client registration (RFC 7591)',
  description: 'Open: any client may register; only the owner\'s consent gives it anything.',
  tags,
  body: z.looseObject({
    redirect_uris: z.array(z.string()),
    client_name: z.string().optional(),
    token_endpoint_auth_method: z.enum(['none', 'client_secret_basic', 'client_secret_post']).optional().describe('Default `none`: a public client'),
    grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])).optional(),
    response_types: z.array(z.literal('code')).optional(),
    scope: z.string().optional(),
  }),
  response: {
    201: z.looseObject({ client_id: z.string(), client_secret: z.string().optional().describe('Shown once, to a confidential client'), redirect_uris: z.array(z.string()) }),
    400: oauthError,
  },
}

export const revokeSchema = {
  summary: 'Revocation (RFC 7009)',
  description: 'Revoking a refresh token ends the grant.',
  tags,
  consumes: FORM,
  body: z.object({ token: z.string(), token_type_hint: z.enum(['access_token', 'refresh_token']).optional(), client_id: z.string() }),
  response: { 200: z.null().describe('Revoked, or already unknown'), 400: oauthError },
}

export const jwksSchema = {
  summary: 'The authorization server\'s signing keys',
  tags,
  response: { 200: z.object({ keys: z.array(z.looseObject({ kty: z.string(), kid: z.string() })) }) },
}

/** RFC 9728 §2: what a client learns about the tool endpoint before it asks for a token. */
export const protectedResourceMetadataSchema = z.object({
  resource: z.string().describe('`{base_url}/api/mcp`'),
  authorization_servers: z.array(z.string()),
  scopes_supported: z.array(z.enum(SCOPES)),
  bearer_methods_supported: z.array(z.literal('header')),
  resource_name: z.string(),
  resource_documentation: z.string(),
})

export const protectedResourceSchema = {
  summary: 'Protected-resource metadata of the tool endpoint (RFC 9728)',
  description: 'Where a 401 from `/api/mcp` points (`WWW-Authenticate: Bearer resource_metadata=…`), under the tool endpoint\'s path and without it.',
  tags,
  response: { 200: protectedResourceMetadataSchema },
}
