/**
 * OAuth on several nodes (issue #30): two Leadline nodes on one log, each with read models of its
 * own. The authorization server's records are on the log, so a code issued by one node is exchanged
 * at the other, a token works on both, a refresh token used twice (once on each) revokes the grant
 * everywhere, a node started afterwards with empty read models knows every token, and no token or
 * code is ever written to the log in the clear.
 */
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../helpers/build-app.ts'
import { TEST_ENV } from '../console/console-helpers.ts'
import {
  authorizationUrl, CALLBACK, codeFor, injectFetch, location, oauthApp, pkce, PUBLIC, register, RESOURCE, tokenRequest, type OAuthFixture,
} from './oauth-helpers.ts'

const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_leads', arguments: {} } }

async function listLeads(app: FastifyInstance, token: string) {
  const response = await app.inject({ method: 'POST', url: '/api/mcp', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, payload: JSON.stringify(LIST) })
  return { status: response.statusCode, body: response.json() as { result?: unknown; error?: { code: number } } }
}

async function secondNode(t: Parameters<typeof oauthApp>[0], first: OAuthFixture): Promise<OAuthFixture> {
  const app = await buildApp(t, { env: TEST_ENV, publicUrl: PUBLIC, oauth: true, sameLogAs: first.app })
  return { ...first, app, fetch: injectFetch(app) }
}

t.test('a code from one node is exchanged at the other; the token and its refresh work on both; a reuse revokes the grant on both', async (t) => {
  const a = await oauthApp(t, { store: 'sqlite' })
  const b = await secondNode(t, a)
  const { clientId, code, verifier } = await codeFor(a, ['read'])

  const first = await tokenRequest(b, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: CALLBACK, resource: RESOURCE })
  t.equal(first.status, 200, 'the code, made on node A, is good on node B')
  for (const [name, node] of [['A', a], ['B', b]] as const) {
    const answer = await listLeads(node.app.app, first.body.access_token!)
    t.equal(answer.status, 200, `node ${name}`)
    t.ok(answer.body.result, `node ${name} answers the token`)
  }

  const second = await tokenRequest(a, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token!, client_id: clientId })
  t.equal(second.status, 200, 'refreshed on A')
  t.not(second.body.refresh_token, first.body.refresh_token, 'rotated')
  t.equal((await listLeads(b.app.app, second.body.access_token!)).status, 200, 'the new token works on B')

  const reused = await tokenRequest(b, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token!, client_id: clientId })
  t.equal(reused.body.error, 'invalid_grant', 'the old refresh token, shown again on B, is refused')
  const newest = await tokenRequest(a, { grant_type: 'refresh_token', refresh_token: second.body.refresh_token!, client_id: clientId })
  t.equal(newest.body.error, 'invalid_grant', 'and the grant\'s newest refresh token is void on A')
  for (const [name, node] of [['A', a], ['B', b]] as const) {
    const refused = await listLeads(node.app.app, second.body.access_token!)
    t.equal(refused.status, 401, `node ${name}: the grant's access token is refused`)
    t.equal(refused.body.error?.code, -32001)
  }

  // A code used on B is refused on A (and, used twice, would revoke its grant: it is revoked already).
  const again = await tokenRequest(a, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: CALLBACK, resource: RESOURCE })
  t.equal(again.body.error, 'invalid_grant', 'the code, used on B, is refused on A')

  // Nothing a client holds is on the log.
  const log = JSON.stringify(await a.app.leadline.store.readAll())
  for (const secret of [code, first.body.access_token!, first.body.refresh_token!, second.body.access_token!, second.body.refresh_token!]) {
    t.notOk(log.includes(secret), 'no code or token in the clear on the log')
  }
})

t.test('a node started later, with empty read models, knows every token issued before', async (t) => {
  const a = await oauthApp(t, { store: 'sqlite' })
  const { clientId, code, verifier } = await codeFor(a, ['read'])
  const tokens = await tokenRequest(a, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: CALLBACK, resource: RESOURCE })
  t.equal(tokens.status, 200)

  const later = await secondNode(t, a)
  t.equal((await listLeads(later.app.app, tokens.body.access_token!)).status, 200, 'the access token')
  const refreshed = await tokenRequest(later, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token!, client_id: clientId })
  t.equal(refreshed.status, 200, 'the refresh token')
})

t.test('a grant the owner revokes in the console on one node stops its refresh token on the other', async (t) => {
  const a = await oauthApp(t, { store: 'sqlite' })
  const b = await secondNode(t, a)
  const { clientId, code, verifier } = await codeFor(a, ['read'])
  const tokens = await tokenRequest(a, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: CALLBACK, resource: RESOURCE })
  t.equal(tokens.status, 200)
  const grantId = /data-grant-id="([^"]+)"/.exec((await a.browser.get('/app/setup/ai-access')).body)?.[1]
  t.ok(grantId, 'the grant is listed')
  t.equal((await a.browser.post(`/app/setup/ai-access/grants/${grantId}/revoke`)).statusCode, 303)

  const refreshed = await tokenRequest(b, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token!, client_id: clientId })
  t.equal(refreshed.body.error, 'invalid_grant', 'refused on the other node')
  t.equal((await listLeads(b.app.app, tokens.body.access_token!)).status, 401, 'and the access token')
})

t.test('a sign-in that moves between nodes (authorize on A, consent on B, back on A) ends with a code good on both', async (t) => {
  const a = await oauthApp(t, { store: 'sqlite' })
  const b = await secondNode(t, a)
  const clientId = await register(b)
  const { verifier, challenge } = pkce()
  // The owner's browser behind a load balancer: each step lands on whichever node it is sent to.
  const browser = a.browser as unknown as { app: OAuthFixture['app'] }
  const url = authorizationUrl(clientId, { code_challenge: challenge, code_challenge_method: 'S256' })
  const toConsent = location(await a.browser.get(`${url.pathname}${url.search}`))
  browser.app = b.app
  const page = await a.browser.get(toConsent)
  t.equal(page.statusCode, 200, 'the consent page, on B')
  const resume = location(await a.browser.post(toConsent, { scopes: ['read'], decision: 'allow' }))
  browser.app = a.app
  const callback = new URL(location(await a.browser.get(resume)))
  const code = callback.searchParams.get('code')
  t.ok(code, 'a code, back on A')
  const tokens = await tokenRequest(b, { grant_type: 'authorization_code', code: code!, code_verifier: verifier, client_id: clientId, redirect_uri: CALLBACK, resource: RESOURCE })
  t.equal(tokens.status, 200, 'exchanged on B')
  t.equal((await listLeads(a.app.app, tokens.body.access_token!)).status, 200, 'used on A')
})

t.test('one code, then one refresh token, sent several times at once to both nodes: each used once, the rest refused', async (t) => {
  const a = await oauthApp(t, { store: 'sqlite' })
  const b = await secondNode(t, a)
  const { clientId, code, verifier } = await codeFor(a, ['read'])
  const exchanges = await Promise.all([a, b, a].map((node) => tokenRequest(node, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: CALLBACK, resource: RESOURCE })))
  t.equal(exchanges.filter((r) => r.status === 200).length, 1, `the code, sent three times at once, is exchanged once (${exchanges.map((r) => r.status).join(', ')})`)
  const tokens = exchanges.find((r) => r.status === 200)!
  const answers = await Promise.all([a, b, a, b, a].map((node) => tokenRequest(node, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token!, client_id: clientId })))
  t.equal(answers.filter((r) => r.status === 200).length, 1, `one refresh succeeds (${answers.map((r) => r.status).join(', ')})`)
  t.ok(answers.filter((r) => r.status !== 200).every((r) => r.body.error === 'invalid_grant'), 'the others are invalid_grant')
})
