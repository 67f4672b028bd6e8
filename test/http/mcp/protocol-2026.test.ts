/**
 * Protocol revision 2026-07-28 beside the earlier ones (issue #30): stateless requests that carry
 * their version in `_meta` and in the headers, `server/discover`, `resultType` and serverInfo on every
 * result, cache hints on lists, header-body checks (400 -32020), unknown versions (400 -32022) and
 * methods (404 -32601), and the rate limit's code moved out of the range the revision reserves.
 */
import t from 'tap'
import { mcpApp } from './mcp-helpers.ts'

const V = '2026-07-28'
const META = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} }

function modern(id: number, method: string, params: Record<string, unknown> = {}) {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: META } }
}

function headers(method: string, name?: string): Record<string, string> {
  return { 'mcp-protocol-version': V, 'mcp-method': method, ...(name === undefined ? {} : { 'mcp-name': name }) }
}

t.test('server/discover answers without a credential: versions, capabilities, instructions, cache hints', async (t) => {
  const app = await mcpApp(t)
  const answer = await app.post(modern(1, 'server/discover'), undefined, headers('server/discover'))
  t.equal(answer.status, 200)
  t.match(answer.body.result, {
    resultType: 'complete',
    supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
    capabilities: { tools: { listChanged: false } },
    instructions: /idempotency_key/,
    ttlMs: 3_600_000,
    cacheScope: 'public',
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'leadline', version: '0.1.0' } },
  })
})

t.test('tools/list and tools/call without initialize; results carry resultType and serverInfo', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account()
  const list = await app.post(modern(2, 'tools/list'), account.keys.read, headers('tools/list'))
  t.equal(list.status, 200)
  t.match(list.body.result, { resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'public', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'leadline' } } })
  t.ok(list.body.result.tools.length > 0)
  const call = await app.post(modern(3, 'tools/call', { name: 'list_leads', arguments: {} }), account.keys.read, headers('tools/call', 'list_leads'))
  t.equal(call.status, 200)
  t.match(call.body.result, { structuredContent: { leads: [] }, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'leadline' } } })
  const encoded = await app.post(modern(4, 'tools/call', { name: 'list_leads', arguments: {} }), account.keys.read, headers('tools/call', `=?base64?${Buffer.from('list_leads').toString('base64')}?=`))
  t.equal(encoded.status, 200, 'a Base64-encoded Mcp-Name is decoded')
  // The same read answer shared with an earlier-revision caller keeps its own shape.
  const legacy = await app.call(account.keys.read, 'list_leads', {})
  t.equal(legacy.result?.resultType, undefined)
  t.notMatch(JSON.stringify(legacy), /serverInfo/)
  const refused = await app.post(modern(5, 'tools/call', { name: 'place_call', arguments: { phone: '3125550142', idempotency_key: 'k' } }), account.keys.read, headers('tools/call', 'place_call'))
  t.match(refused.body, { error: { code: -32003, data: { code: 'insufficient_scope' } } })
})

t.test('headers that disagree with the body, or are missing: 400 HeaderMismatch (-32020), nothing run', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account()
  const call = modern(6, 'tools/call', { name: 'list_leads', arguments: {} })
  const cases: Array<[string, unknown, Record<string, string>]> = [
    ['no Mcp-Method', call, { 'mcp-protocol-version': V, 'mcp-name': 'list_leads' }],
    ['another Mcp-Method', call, headers('tools/list', 'list_leads')],
    ['no Mcp-Name', call, headers('tools/call')],
    ['another Mcp-Name', call, headers('tools/call', 'get_lead')],
    ['no _meta version', { jsonrpc: '2.0', id: 6, method: 'tools/list', params: {} }, headers('tools/list')],
    ['_meta names 2026-07-28 without the header', modern(6, 'tools/list'), { 'mcp-method': 'tools/list' }],
    ['_meta and header differ', modern(6, 'tools/list'), { ...headers('tools/list'), 'mcp-protocol-version': '2025-11-25' }],
  ]
  for (const [what, body, given] of cases) {
    const answer = await app.post(body, account.keys.read, given)
    t.equal(answer.status, 400, what)
    t.match(answer.body, { id: 6, error: { code: -32020, data: { code: 'header_mismatch' } } }, what)
  }
})

t.test('an unknown version is 400 -32022 with the supported ones; an unknown method 404; ping and initialize are gone', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account()
  const old = await app.post(modern(7, 'tools/list'), account.keys.read, { ...headers('tools/list'), 'mcp-protocol-version': '1900-01-01' })
  t.equal(old.status, 400)
  t.match(old.body, { error: { code: -32022, data: { supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'], requested: '1900-01-01' } } })
  for (const method of ['ping', 'initialize', 'resources/list']) {
    const answer = await app.post(modern(8, method), account.keys.read, headers(method))
    t.equal(answer.status, 404, method)
    t.match(answer.body, { error: { code: -32601, data: { code: 'method_not_found' } } })
  }
  const batch = await app.post([modern(9, 'tools/list'), modern(10, 'tools/list')], account.keys.read, headers('tools/list'))
  t.equal(batch.status, 400, 'one message per POST')
  t.equal((await app.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { _meta: META } }, account.keys.read, headers('notifications/cancelled'))).status, 202)
  // An earlier-revision client's initialize is never answered with 2026-07-28.
  const init = await app.post({ jsonrpc: '2.0', id: 11, method: 'initialize', params: { protocolVersion: V, capabilities: {}, clientInfo: { name: 'x', version: '1' } } }, account.keys.read)
  t.equal(init.body.result.protocolVersion, '2025-11-25')
})

t.test('rate limited: -32010 under 2026-07-28, still -32029 under the earlier revisions', async (t) => {
  const app = await mcpApp(t, { start: false })
  const account = await app.account()
  // A batch's requests all take from the key's bucket at once (limits.test.ts), however slow the machine:
  // two of an earlier revision's batches (20 each, the most a batch may hold) empty it, and a request
  // that follows them finds it empty.
  const legacyBatch = () => app.post(Array.from({ length: 20 }, (_, i) => ({ jsonrpc: '2.0', id: 1000 + i, method: 'ping' })), account.keys.read)
  const drain = async () => (await Promise.all([legacyBatch(), legacyBatch(), legacyBatch()])).flatMap((answer) => answer.body as Array<{ error?: { code: number } }>)
  t.equal((await drain()).find((answer) => answer.error)?.error?.code, -32029)
  let modernCode: number | undefined
  for (let round = 0; round < 20 && modernCode === undefined; round++) {
    const [, answer] = await Promise.all([drain(), app.post(modern(100 + round, 'tools/list'), account.keys.read, headers('tools/list'))])
    if (answer.body.error) modernCode = answer.body.error.code
  }
  t.equal(modernCode, -32010)
})

t.test('with no credential: -32001 (HTTP 200 with OAuth off) for tools/list', async (t) => {
  const app = await mcpApp(t)
  const answer = await app.post(modern(12, 'tools/list'), undefined, headers('tools/list'))
  t.equal(answer.status, 200)
  t.match(answer.body, { error: { code: -32001 } })
})
