/**
 * What the authorization server and the tool endpoint refuse (issue #30): PKCE without S256, a
 * resource other than the tool endpoint, a code used twice; a grant the owner revoked in the console
 * stops its tokens at once; the 401 and its WWW-Authenticate only with OAuth on; the metadata.
 */
import t from 'tap'
import { buildApp } from '../../helpers/build-app.ts'
import { TEST_ENV } from '../console/console-helpers.ts'
import {
  accessToken, authorizationUrl, CALLBACK, codeFor, consent, location, oauthApp, pkce, PUBLIC, register, RESOURCE, tokenRequest,
} from './oauth-helpers.ts'
import { mcpApp } from './mcp-helpers.ts'

const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_leads', arguments: {} } }

function mcpPost(fixture: Awaited<ReturnType<typeof oauthApp>>, token: string | undefined) {
  return fixture.app.app.inject({
    method: 'POST',
    url: '/api/mcp',
    headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    payload: JSON.stringify(LIST),
  })
}

t.test('metadata: RFC 9728 for the tool endpoint, RFC 8414 for the authorization server', async (t) => {
  const fixture = await oauthApp(t)
  for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp']) {
    const response = await fixture.app.app.inject({ method: 'GET', url: path })
    t.equal(response.statusCode, 200, path)
    t.same(response.json(), {
      resource: RESOURCE,
      authorization_servers: [PUBLIC],
      scopes_supported: ['read', 'write', 'dial'],
      bearer_methods_supported: ['header'],
      resource_name: 'Leadline tool endpoint',
      resource_documentation: `${PUBLIC}/docs/mcp`,
    })
  }
  const as = (await fixture.app.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json()
  t.match(as, {
    issuer: PUBLIC,
    authorization_endpoint: `${PUBLIC}/oauth/authorize`,
    token_endpoint: `${PUBLIC}/oauth/token`,
    registration_endpoint: `${PUBLIC}/oauth/register`,
    revocation_endpoint: `${PUBLIC}/oauth/revoke`,
    code_challenge_methods_supported: ['S256'],
    response_types_supported: ['code'],
  })
  t.notOk(as.grant_types_supported.includes('implicit'))
})

t.test('without a credential: 401 and WWW-Authenticate with OAuth on; 200 and -32001 with it off', async (t) => {
  const fixture = await oauthApp(t)
  const missing = await mcpPost(fixture, undefined)
  t.equal(missing.statusCode, 401)
  t.equal(missing.headers['www-authenticate'], `Bearer resource_metadata="${PUBLIC}/.well-known/oauth-protected-resource/api/mcp", scope="read write dial"`)
  t.match(missing.json(), { jsonrpc: '2.0', id: 1, error: { code: -32001, data: { code: 'api_key_missing' } } })
  const bad = await mcpPost(fixture, 'not-a-token')
  t.equal(bad.statusCode, 401)
  t.match(bad.headers['www-authenticate'], /^Bearer error="invalid_token", resource_metadata=/)
  t.match(bad.json(), { error: { code: -32001, data: { code: 'api_key_invalid' } } })
  const badKey = await mcpPost(fixture, 'll_live_nothing')
  t.equal(badKey.statusCode, 401, 'a wrong API key is refused the same way')

  const off = await mcpApp(t)
  const plain = await off.post(LIST)
  t.equal(plain.status, 200, 'OAuth off: as the interface says')
  t.equal(plain.headers['www-authenticate'], undefined)
  t.match(plain.body, { error: { code: -32001, data: { code: 'api_key_missing' } } })
  t.equal((await off.app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' })).statusCode, 404, 'no metadata with OAuth off')
  t.equal((await off.app.inject({ method: 'GET', url: '/oauth/authorize' })).statusCode, 404)
})

t.test('API keys keep working beside OAuth', async (t) => {
  const fixture = await oauthApp(t)
  const { key } = await fixture.app.leadline.accounts.createApiKey(fixture.accountId, ['read'], null, { actor: { kind: 'operator', id: 'test' } })
  const answer = await mcpPost(fixture, key.secret)
  t.equal(answer.statusCode, 200)
  t.match(answer.json(), { result: { structuredContent: { leads: [] } } })
})

t.test('an LEADLINE_OAUTH app needs an https public URL', async (t) => {
  await t.rejects(buildApp(t, { env: TEST_ENV, publicUrl: 'http://leadline.test', oauth: true }), /LEADLINE_OAUTH=on needs LEADLINE_PUBLIC_URL to be an https URL .*loopback/)
})

t.test('PKCE: none or plain is refused; S256 only', async (t) => {
  const fixture = await oauthApp(t)
  const clientId = await register(fixture)
  const { challenge } = pkce()
  const attempts: Array<Record<string, string>> = [{}, { code_challenge: challenge, code_challenge_method: 'plain' }]
  for (const params of attempts) {
    const url = authorizationUrl(clientId, params)
    const back = new URL(location(await fixture.browser.get(`${url.pathname}${url.search}`)))
    t.equal(`${back.origin}${back.pathname}`, CALLBACK, `${JSON.stringify(params)}: back to the client`)
    t.equal(back.searchParams.get('error'), 'invalid_request', JSON.stringify(params))
    t.equal(back.searchParams.get('code'), null)
  }
  const s256 = authorizationUrl(clientId, { code_challenge: challenge, code_challenge_method: 'S256' })
  t.match(location(await fixture.browser.get(`${s256.pathname}${s256.search}`)), /^\/app\/oauth\/consent\//, 'S256 reaches the consent')
})

t.test('a resource other than the tool endpoint is refused, at authorization and at the token endpoint', async (t) => {
  const fixture = await oauthApp(t)
  const clientId = await register(fixture)
  const { challenge } = pkce()
  const url = authorizationUrl(clientId, { code_challenge: challenge, code_challenge_method: 'S256', resource: 'https://evil.example/api/mcp' })
  const back = new URL(location(await fixture.browser.get(`${url.pathname}${url.search}`)))
  t.equal(back.searchParams.get('error'), 'invalid_target')

  const { clientId: other, code, verifier } = await codeFor(fixture, ['read'])
  const wrong = await tokenRequest(fixture, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: other, redirect_uri: CALLBACK, resource: 'https://evil.example/api/mcp' })
  t.equal(wrong.status, 400)
  t.equal(wrong.body.error, 'invalid_target')
})

t.test('a code is used once; used again it is refused (and its tokens end)', async (t) => {
  const fixture = await oauthApp(t)
  const { clientId, code, verifier } = await codeFor(fixture, ['read'])
  const exchange = { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: CALLBACK, resource: RESOURCE }
  const first = await tokenRequest(fixture, exchange)
  t.equal(first.status, 200)
  t.equal(first.body.token_type, 'Bearer')
  t.equal(first.body.scope, 'read')
  t.ok(Number(first.body.expires_in) <= 3600, 'short-lived')
  t.equal((await mcpPost(fixture, first.body.access_token)).statusCode, 200)
  const again = await tokenRequest(fixture, exchange)
  t.equal(first.body.refresh_token === undefined, false, 'a refresh token beside it')
  t.equal(again.status, 400)
  t.equal(again.body.error, 'invalid_grant')
  t.equal((await mcpPost(fixture, first.body.access_token)).statusCode, 401, 'the tokens of a replayed code are revoked')

  const { clientId: c2, code: code2 } = await codeFor(fixture, ['read'])
  const wrongVerifier = await tokenRequest(fixture, { grant_type: 'authorization_code', code: code2, code_verifier: pkce().verifier, client_id: c2, redirect_uri: CALLBACK, resource: RESOURCE })
  t.equal(wrongVerifier.body.error, 'invalid_grant', 'a verifier that does not match is refused')
})

t.test('the owner revokes a grant in the console: its token answers -32001 at once', async (t) => {
  const fixture = await oauthApp(t)
  const token = await accessToken(fixture, ['read', 'write'])
  t.equal((await mcpPost(fixture, token)).statusCode, 200)
  const page = await fixture.browser.get('/app/setup/ai-access')
  t.match(page.body, /Apps signed in with OAuth/)
  t.match(page.body, /Raw Client/)
  const grantId = /data-grant-id="([^"]+)"/.exec(page.body)?.[1]
  t.ok(grantId)
  const revoked = await fixture.browser.post(`/app/setup/ai-access/grants/${grantId}/revoke`)
  t.equal(revoked.statusCode, 303)
  const after = await mcpPost(fixture, token)
  t.equal(after.statusCode, 401)
  t.match(after.json(), { error: { code: -32001 } })
  t.match((await fixture.browser.get('/app/setup/ai-access')).body, /revoked/)
  const events = (await fixture.app.leadline.store.readAll()).filter((e) => e.type === 'OAuthGrantRevoked')
  t.match(events, [{ data: { grantId, reason: 'owner' }, metadata: { actor: { kind: 'user' } } }])
})

t.test('the consent page shows the client and its scopes; the owner may deny', async (t) => {
  const fixture = await oauthApp(t)
  const clientId = await register(fixture, 'Cursor <Test>')
  const { challenge } = pkce()
  const url = authorizationUrl(clientId, { code_challenge: challenge, code_challenge_method: 'S256', scope: 'read dial' })
  const { callback, page } = await consent(fixture.browser, url, ['read'], 'deny')
  t.match(page, /Allow Cursor &#60;Test&#62;\?/, "the name, escaped")
  t.match(page, /value="read"/)
  t.match(page, /value="dial"/)
  t.notMatch(page, /value="write"/, 'only what the client asked for')
  t.equal(callback.searchParams.get('error'), 'access_denied')
  t.equal(callback.searchParams.get('iss'), PUBLIC, 'RFC 9207: the issuer in the response')
  t.equal((await fixture.app.leadline.accounts.require(fixture.accountId)).oauthGrants.size, 0, 'nothing granted')
})

t.test('the consent needs the console session: signed out, the owner signs in first', async (t) => {
  const fixture = await oauthApp(t)
  const clientId = await register(fixture)
  const { challenge } = pkce()
  fixture.browser.cookies.delete('leadline_session')
  const url = authorizationUrl(clientId, { code_challenge: challenge, code_challenge_method: 'S256' })
  const toConsent = location(await fixture.browser.get(`${url.pathname}${url.search}`))
  const signIn = location(await fixture.browser.get(toConsent))
  t.equal(signIn, `/app/sign-in?next=${encodeURIComponent(toConsent)}`)
})
