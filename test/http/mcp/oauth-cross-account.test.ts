/**
 * One account per grant, as one account per key (issue #30): an OAuth token the owner of account A
 * granted, with every scope, reaches for account B through every read tool and any mix of B's
 * identifiers as arguments. No answer ever holds anything of B.
 */
import fc from 'fast-check'
import t from 'tap'
import { loadTools } from '../../../src/http/mcp/tool-registry.ts'
import { accessToken, oauthApp } from './oauth-helpers.ts'

t.test('an OAuth token of account A never reads account B, whatever the read tool and arguments', async (t) => {
  const fixture = await oauthApp(t)
  const { app } = fixture
  const ingest = async (token: string, fields: Record<string, unknown>) => {
    const response = await app.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token, 'content-type': 'application/json' }, payload: JSON.stringify(fields) })
    if (response.statusCode >= 300) throw new Error(`webhook: ${response.statusCode} ${response.body}`)
    return response.json() as { leadId: string }
  }
  const a = await app.leadline.accounts.require(fixture.accountId)
  const aToken = (await app.leadline.accounts.rotateWebhookToken(a.accountId, { actor: { kind: 'operator', id: 'test' } })).secret
  await ingest(aToken, { name: 'Alice A', phone: '(312) 555-0101', source: 'A-campaign', vendor: 'A-vendor' })
  const b = await app.createAccount('Agency B')
  const bLead = await ingest(b.token, { name: 'Bob B', phone: '(415) 555-0202', source: 'B-campaign', vendor: 'B-vendor' })
  await ingest(b.token, { name: 'Betty B', phone: '(415) 555-0203', source: 'B-campaign', vendor: 'B-vendor' })
  await app.leadline.runner.catchUp()
  const { key: bKey } = await app.leadline.accounts.createApiKey(b.account.accountId, ['read'], null, { actor: { kind: 'operator', id: 'test' } })
  const bCursor = (await app.app.inject({
    method: 'POST', url: '/api/mcp', headers: { 'content-type': 'application/json', authorization: `Bearer ${bKey.secret}` },
    payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_leads', arguments: { limit: 1 } } }),
  })).json().result.structuredContent.next_cursor as string
  t.type(bCursor, 'string', "B's own cursor, to try with A's token")

  const token = await accessToken(fixture, ['read', 'write', 'dial'])
  const secrets = [b.account.accountId, bLead.leadId, '4155550202', '4155550203', 'Bob B', 'Betty B', 'B-campaign', 'B-vendor']
  const readTools = (await loadTools()).filter((tool) => tool.scope === 'read').map((tool) => tool.name)
  t.ok(readTools.includes('list_leads') && readTools.includes('get_lead'), `read tools: ${readTools.join(', ')}`)

  const identifier = fc.constantFrom('(415) 555-0202', '+14155550202', '4155550202', '415-555-0203', bLead.leadId, 'B-campaign', 'B-vendor', bCursor, b.account.accountId)
  const args = fc.record(
    { phone: identifier, lead_id: identifier, source: identifier, vendor: identifier, cursor: identifier, call_id: identifier, account_id: identifier, since: fc.constant('2000-01-01') },
    { requiredKeys: [] },
  )
  let calls = 0
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...readTools), args, async (name, argumentsGiven) => {
      const response = await app.app.inject({
        method: 'POST', url: '/api/mcp', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: argumentsGiven } }),
      })
      calls++
      if (response.statusCode !== 200) return false
      const echoed = new Set(Object.values(argumentsGiven).map(String))
      // An argument may come back as itself (a phone number is just a number to A); nothing else of B may.
      const leaked = secrets.filter((s) => ![...echoed].some((e) => e.includes(s)) && response.body.includes(s))
      return leaked.length === 0
    }),
    { numRuns: 60 },
  )
  t.equal(calls >= 60, true, 'every run called the endpoint')
})
