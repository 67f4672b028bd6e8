/**
 * OAuth that every client completes, over plain HTTP on loopback (issue #41): the TypeScript SDK's
 * OAuth client with and without `scope`, a refresh after the access token expires, a denial that
 * says why and records no grant, pushed authorization (PAR) at the advertised URL, and metadata
 * that advertises only endpoints that answer.
 */
import t from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { discoverOAuthServerInfo, exchangeAuthorization, registerClient, startAuthorization } from '@modelcontextprotocol/sdk/client/auth.js'
import { CALLBACK, MemoryOAuthProvider, pkce } from './oauth-helpers.ts'
import { consentOver, loopbackOAuthApp, redirectOf, type LoopbackFixture } from './oauth-loopback-helpers.ts'

const NO_SCOPE_CLIENT = { client_name: 'Scopeless Agent', redirect_uris: [CALLBACK], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }

async function grantsOf(fixture: LoopbackFixture) {
  return [...(await fixture.app.leadline.accounts.require(fixture.accountId)).oauthGrants.values()]
}

function connect(fixture: LoopbackFixture, provider: MemoryOAuthProvider) {
  return new StreamableHTTPClientTransport(new URL(fixture.resource), { authProvider: provider })
}

t.test('the SDK signs in over plain http on 127.0.0.1 and refreshes after the access token expires', async (t) => {
  const fixture = await loopbackOAuthApp(t)
  const metadata = await (await fetch(`${fixture.origin}/.well-known/oauth-authorization-server`)).json() as Record<string, string>
  t.equal(metadata.issuer, fixture.origin, 'the issuer is the loopback public URL')
  t.equal(metadata.token_endpoint, `${fixture.origin}/oauth/token`)

  const provider = new MemoryOAuthProvider('Laptop Agent')
  const first = connect(fixture, provider)
  await t.rejects(new Client({ name: 'laptop', version: '1.0.0' }).connect(first), /Unauthorized/)
  t.ok(provider.authorizationUrl, 'sent to the consent page')
  const { callback } = await consentOver(fixture, provider.authorizationUrl!, ['read', 'write'])
  await first.finishAuth(callback.searchParams.get('code')!)
  t.equal(provider.saved?.scope, 'read write')

  const client = new Client({ name: 'laptop', version: '1.0.0' })
  await client.connect(connect(fixture, provider))
  t.teardown(() => client.close())
  t.match((await client.callTool({ name: 'list_leads', arguments: {} })).structuredContent, { leads: [] })

  const expired = provider.saved!.access_token
  fixture.advance(60 * 60 + 5)
  const refused = await fetch(fixture.resource, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${expired}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })
  t.equal(refused.status, 401)
  t.match(refused.headers.get('www-authenticate'), /^Bearer error="invalid_token"/, 'an expired token says invalid_token, so the client refreshes')
  t.match((await client.callTool({ name: 'list_leads', arguments: {} })).structuredContent, { leads: [] }, 'the SDK refreshed and went on')
  t.not(provider.saved!.access_token, expired, 'a new access token')
  t.equal((await grantsOf(fixture)).length, 1, 'one grant, refreshed, not a second sign-in')
})

t.test('a client that sends no scope: all three are offered, the owner unticks one, the token has the rest', async (t) => {
  const fixture = await loopbackOAuthApp(t)
  const info = await discoverOAuthServerInfo(fixture.resource)
  const metadata = info.authorizationServerMetadata!
  const client = await registerClient(info.authorizationServerUrl, { metadata, clientMetadata: NO_SCOPE_CLIENT })
  const { authorizationUrl, codeVerifier } = await startAuthorization(info.authorizationServerUrl, { metadata, clientInformation: client, redirectUrl: CALLBACK, resource: new URL(fixture.resource) })
  t.notOk(authorizationUrl.searchParams.has('scope'), 'no scope asked for')

  const { callback, page } = await consentOver(fixture, authorizationUrl, ['read', 'write'])
  for (const scope of ['read', 'write', 'dial']) t.match(page, new RegExp(`name="scopes" value="${scope}" checked`), `${scope} offered`)
  const code = callback.searchParams.get('code')
  t.ok(code, `a code, not ${callback.searchParams.get('error')}: ${callback.searchParams.get('error_description')}`)
  const tokens = await exchangeAuthorization(info.authorizationServerUrl, { metadata, clientInformation: client, authorizationCode: code!, codeVerifier, redirectUri: CALLBACK, resource: new URL(fixture.resource) })
  t.equal(tokens.scope, 'read write', 'what the owner approved')

  const provider = new MemoryOAuthProvider('Scopeless Agent')
  provider.client = client
  provider.saved = tokens
  const mcp = new Client({ name: 'scopeless', version: '1.0.0' })
  await mcp.connect(connect(fixture, provider))
  t.teardown(() => mcp.close())
  t.match((await mcp.callTool({ name: 'list_leads', arguments: {} })).structuredContent, { leads: [] })
  t.match(await grantsOf(fixture), [{ clientName: 'Scopeless Agent', scopes: ['read', 'write'], revokedAt: null }])
})

t.test('a denial, or an allow with nothing ticked, says why; a flow that ends without a code records no grant', async (t) => {
  const fixture = await loopbackOAuthApp(t)
  const info = await discoverOAuthServerInfo(fixture.resource)
  const metadata = info.authorizationServerMetadata!
  const client = await registerClient(info.authorizationServerUrl, { metadata, clientMetadata: NO_SCOPE_CLIENT })
  for (const [scopes, decision, description] of [[['read'], 'deny', /denied/], [[], 'allow', /no scope/]] as const) {
    const { authorizationUrl } = await startAuthorization(info.authorizationServerUrl, { metadata, clientInformation: client, redirectUrl: CALLBACK, resource: new URL(fixture.resource), state: 'st' })
    const { callback } = await consentOver(fixture, authorizationUrl, scopes, decision)
    t.equal(callback.searchParams.get('error'), 'access_denied', decision)
    t.match(callback.searchParams.get('error_description'), description)
    t.equal(callback.searchParams.get('state'), 'st')
  }
  t.same(await grantsOf(fixture), [], 'nothing granted, nothing listed in the console')

  // Allowed, but the browser never came back to finish: no code was issued, so no grant either.
  const { authorizationUrl } = await startAuthorization(info.authorizationServerUrl, { metadata, clientInformation: client, redirectUrl: CALLBACK, resource: new URL(fixture.resource) })
  const toConsent = redirectOf(await fixture.browser.get(`${authorizationUrl.pathname}${authorizationUrl.search}`), fixture.origin)
  await fixture.browser.get(toConsent)
  t.equal((await fixture.browser.post(toConsent, { scopes: ['read'], decision: 'allow' })).statusCode, 303)
  t.same(await grantsOf(fixture), [], 'a flow that did not end in a code leaves no grant')
})

t.test('the metadata advertises only endpoints that answer; PAR works at its advertised URL', async (t) => {
  const fixture = await loopbackOAuthApp(t)
  const metadata = await (await fetch(`${fixture.origin}/.well-known/oauth-authorization-server`)).json() as Record<string, unknown>
  for (const [name, value] of Object.entries(metadata)) {
    if (!name.endsWith('_endpoint') && name !== 'jwks_uri') continue
    t.match(value, new RegExp(`^${fixture.origin}/oauth/`), `${name} under /oauth/`)
    const answer = await fetch(String(value), { method: name === 'jwks_uri' || name === 'authorization_endpoint' ? 'GET' : 'POST', redirect: 'manual' })
    t.not(answer.status, 404, `${name} answers`)
  }
  t.ok(metadata.pushed_authorization_request_endpoint, 'PAR is advertised')

  const registered = await (await fetch(`${fixture.origin}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(NO_SCOPE_CLIENT) })).json() as { client_id: string }
  const { verifier, challenge } = pkce()
  const pushed = await fetch(String(metadata.pushed_authorization_request_endpoint), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: registered.client_id, response_type: 'code', redirect_uri: CALLBACK, code_challenge: challenge, code_challenge_method: 'S256', scope: 'read', resource: fixture.resource, state: 'par' }),
  })
  t.equal(pushed.status, 201)
  const { request_uri: requestUri } = await pushed.json() as { request_uri: string }
  const authorize = new URL(String(metadata.authorization_endpoint))
  authorize.search = new URLSearchParams({ client_id: registered.client_id, request_uri: requestUri }).toString()
  const { callback } = await consentOver(fixture, authorize, ['read'])
  t.equal(callback.searchParams.get('state'), 'par')
  const token = await fetch(String(metadata.token_endpoint), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: callback.searchParams.get('code') ?? '', code_verifier: verifier, client_id: registered.client_id, redirect_uri: CALLBACK, resource: fixture.resource }),
  })
  t.equal(token.status, 200)
  t.match(await token.json(), { access_token: String, scope: 'read' })
})
