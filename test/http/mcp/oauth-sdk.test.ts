/**
 * The official TypeScript SDK's OAuth client end to end against Leadline as its own authorization
 * server (issue #30): discovery (RFC 9728, RFC 8414), dynamic registration, the owner's consent in the
 * console, the code exchange with PKCE, tools within the granted scopes, refresh, and revocation.
 */
import t from 'tap'
import { rejection } from './mcp-helpers.ts'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { auth } from '@modelcontextprotocol/sdk/client/auth.js'
import { MemoryOAuthProvider, oauthApp, PUBLIC, RESOURCE, signIn } from './oauth-helpers.ts'

t.test('the SDK signs in with OAuth: a read grant reads and is refused place_call', async (t) => {
  const fixture = await oauthApp(t)
  const provider = new MemoryOAuthProvider('Claude Test')
  const client = await signIn(t, fixture, provider, ['read'])

  t.ok(provider.client?.client_id, 'registered dynamically')
  t.ok(provider.saved?.access_token, 'an access token')
  t.ok(provider.saved?.refresh_token, 'a refresh token')
  t.equal(provider.saved?.scope, 'read', 'only what the owner granted')

  const { tools } = await client.listTools()
  t.ok(tools.length > 0)
  const listed = await client.callTool({ name: 'list_leads', arguments: {} })
  t.match(listed.structuredContent, { leads: [] })
  const refused = await rejection(client.callTool({ name: 'place_call', arguments: { phone: '+13125550142', idempotency_key: 'k1' } }))
  t.equal(refused.code, -32003)
  t.match(refused.data, { code: 'insufficient_scope', scope: 'dial' })

  const account = await fixture.app.leadline.accounts.require(fixture.accountId)
  const grants = [...account.oauthGrants.values()]
  t.equal(grants.length, 1)
  t.match(grants[0], { clientName: 'Claude Test', scopes: ['read'], revokedAt: null })

  // Refresh: a new pair; the old refresh token used again revokes the whole family.
  const before = provider.saved!
  t.equal(await auth(provider, { serverUrl: RESOURCE, fetchFn: fixture.fetch }), 'AUTHORIZED')
  const after = provider.saved!
  t.not(after.access_token, before.access_token)
  t.not(after.refresh_token, before.refresh_token, 'rotated')
  t.match((await client.callTool({ name: 'list_leads', arguments: {} })).structuredContent, { leads: [] }, 'the refreshed token works')

  const reused = await fixture.fetch(`${PUBLIC}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: before.refresh_token!, client_id: provider.client!.client_id }),
  })
  t.equal(reused.status, 400)
  t.match(await reused.json(), { error: 'invalid_grant' })
  const call = await fixture.fetch(RESOURCE, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${after.access_token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_leads', arguments: {} } }),
  })
  t.equal(call.status, 401, 'the family is revoked: the newest access token fails too')
  t.match(await call.json(), { error: { code: -32001 } })
  const revoked = (await fixture.app.leadline.accounts.require(fixture.accountId)).oauthGrants.get(grants[0]!.grantId)
  t.ok(revoked?.revokedAt, 'the grant is revoked on the account')
  const events = (await fixture.app.leadline.store.readAll()).filter((e) => e.type === 'OAuthGrantRevoked')
  t.match(events, [{ data: { grantId: grants[0]!.grantId, reason: 'refresh_token_reused' }, metadata: { actor: { kind: 'oauth_grant' } } }])
})
