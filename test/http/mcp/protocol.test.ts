/**
 * The tool endpoint as raw JSON-RPC over HTTP: the MCP handshake, notifications, methods, the
 * transport's refusals, and every row of spec §7.1 plus the JSON-RPC protocol errors, each answered
 * HTTP 200 with an `error` object carrying a stable `data.code`.
 */
import t from 'tap'
import { operatorContext } from '../../helpers/build-app.ts'
import { MCP, mcpApp } from './mcp-helpers.ts'

const initialize = (protocolVersion: unknown, id: unknown = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
})

t.test('initialize negotiates 2025-11-25, 2025-06-18 and 2025-03-26; anything else gets the newest', async (t) => {
  const app = await mcpApp(t)
  const { keys } = await app.account()
  for (const version of ['2025-11-25', '2025-06-18', '2025-03-26']) {
    const { status, body, headers } = await app.post(initialize(version), keys.read)
    t.equal(status, 200)
    t.match(headers['content-type'], /^application\/json/)
    t.equal(headers['mcp-session-id'], undefined, 'no session')
    t.same(body.result.protocolVersion, version, `${version} is accepted as asked`)
    t.match(body.result, {
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: 'leadline', version: /^\d+\.\d+\.\d+/ },
      instructions: /get_next_actions/,
    })
    t.same(Object.keys(body.result.capabilities), ['tools'], 'only tools are offered')
  }
  t.equal((await app.post(initialize('2024-11-05'), keys.read)).body.result.protocolVersion, '2025-11-25')
  t.equal((await app.post(initialize('1999-01-01'), keys.read)).body.result.protocolVersion, '2025-11-25')
  const missing = (await app.post({ jsonrpc: '2.0', id: 9, method: 'initialize', params: {} }, keys.read)).body
  t.match(missing, { id: 9, error: { code: -32602, data: { code: 'invalid_params' } } })
})

t.test('notifications and client responses are accepted with 202 and no body; ping answers {}', async (t) => {
  const app = await mcpApp(t)
  const { keys } = await app.account()
  for (const body of [
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
    { jsonrpc: '2.0', id: 5, result: {} },
    [{ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', method: 'notifications/roots/list_changed' }],
  ]) {
    const response = await app.post(body, keys.read)
    t.equal(response.status, 202, JSON.stringify(body))
    t.equal(response.raw, '')
  }
  // Notifications do nothing, so even without a valid key there is nothing to refuse.
  t.equal((await app.post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202)
  t.same((await app.post({ jsonrpc: '2.0', id: 'p', method: 'ping' }, keys.read)).body, { jsonrpc: '2.0', id: 'p', result: {} })
})

t.test('tools/call works without initialize, needs no session, and tools/list describes every tool', async (t) => {
  const app = await mcpApp(t)
  const { keys, pushLead } = await app.account()
  await pushLead({ name: 'Jane Doe', phone: '312-555-0142' })
  const listed = await app.call(keys.read, 'list_leads')
  t.equal(listed.result?.structuredContent.leads.length, 1, 'the very first request is a tools/call')

  const { body } = await app.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, keys.read)
  const tools = body.result.tools as Array<Record<string, any>>
  t.same(tools.map((tool) => tool.name), ['add_note', 'book_appointment', 'cancel_appointment', 'get_call', 'get_lead', 'get_lead_history', 'get_next_actions', 'get_stats', 'list_calls', 'list_leads', 'list_open_slots', 'mark_do_not_call', 'pause_follow_up', 'place_call', 'request_payment', 'reschedule_appointment', 'resume_follow_up', 'schedule_callback', 'send_sms', 'update_lead'])
  for (const tool of tools) {
    t.ok(tool.description.length > 120, `${tool.name}: a description an agent can act on`)
    t.match(tool.description, /Needs the (read|write|dial) scope\./)
    t.match(tool.inputSchema, { type: 'object', additionalProperties: false }, `${tool.name}: input schema`)
    t.match(tool.outputSchema, { type: 'object', properties: Object }, `${tool.name}: output schema`)
    t.same(Object.keys(tool.annotations).sort(), ['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint', 'title'])
    t.match(tool._meta, { 'leadline/scope': /^(read|write|dial)$/ })
  }
  const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]))
  t.same(byName.place_call._meta, { 'leadline/scope': 'dial' })
  t.same(byName.mark_do_not_call._meta, { 'leadline/scope': 'write' })
  t.same(byName.place_call.inputSchema.required.sort(), ['idempotency_key', 'name', 'phone'], 'spec §4.2: phone, name, idempotency_key; dry_run optional')
  t.match(byName.place_call.inputSchema.properties.dry_run, { type: 'boolean', default: false })
  t.match(byName.place_call.annotations, { readOnlyHint: false, openWorldHint: true })
  t.match(byName.list_leads.annotations, { readOnlyHint: true, destructiveHint: false })
  t.same(byName.get_next_actions.inputSchema.required ?? [], [], 'get_next_actions takes {}')
  t.ok(byName.mark_do_not_call.inputSchema.properties.idempotency_key.description.includes('24 hours'))
})

t.test('GET and DELETE are 405; so is any other method but POST', async (t) => {
  const app = await mcpApp(t)
  for (const method of ['GET', 'DELETE', 'PUT'] as const) {
    const response = await app.app.inject({ method, url: MCP, headers: { accept: 'text/event-stream' } })
    t.equal(response.statusCode, 405, method)
    t.equal(response.headers.allow, 'POST')
  }
})

t.test('protocol errors: -32700 parse error, -32600 invalid request, -32601 unknown method (HTTP 200)', async (t) => {
  const app = await mcpApp(t)
  const { keys } = await app.account()
  const cases: Array<[unknown, number, string, unknown]> = [
    ['{"jsonrpc": "2.0", "id": 1, "method": ', -32700, 'parse_error', null],
    ['', -32700, 'parse_error', null],
    [42, -32600, 'invalid_request', null],
    [{ id: 3, method: 'ping' }, -32600, 'invalid_request', 3],
    [{ jsonrpc: '1.0', id: 4, method: 'ping' }, -32600, 'invalid_request', 4],
    [{ jsonrpc: '2.0', id: 5, method: 7 }, -32600, 'invalid_request', 5],
    [{ jsonrpc: '2.0', id: null, method: 'ping' }, -32600, 'invalid_request', null],
    [{ jsonrpc: '2.0', id: 6 }, -32600, 'invalid_request', 6],
    [{ jsonrpc: '2.0', id: 7, method: 'tools/call', params: ['list_leads'] }, -32600, 'invalid_request', 7],
    [[], -32600, 'invalid_request', null],
    [{ jsonrpc: '2.0', id: 8, method: 'resources/list' }, -32601, 'method_not_found', 8],
    [{ jsonrpc: '2.0', id: 9, method: 'prompts/get', params: { name: 'x' } }, -32601, 'method_not_found', 9],
  ]
  for (const [body, code, dataCode, id] of cases) {
    const response = await app.post(body, keys.read)
    t.equal(response.status, 200, `${JSON.stringify(body)}: HTTP 200`)
    t.match(response.body, { jsonrpc: '2.0', id, error: { code, message: String, data: { code: dataCode } } }, JSON.stringify(body))
  }
})

t.test('a batch gets an array of answers in order; notifications in it get none; a large batch is refused', async (t) => {
  const app = await mcpApp(t)
  const { keys } = await app.account()
  const { body } = await app.post(
    [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_lead', arguments: { phone: '3125550000' } } },
      { jsonrpc: '2.0', id: 3, method: 'nope' },
      // The same read twice: one shared answer, its bytes sent after each id.
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get_next_actions', arguments: {} } },
      { jsonrpc: '2.0', id: 'five', method: 'tools/call', params: { name: 'get_next_actions', arguments: {} } },
    ],
    keys.read,
  )
  t.match(body, [
    { id: 1, result: {} },
    { id: 2, error: { code: -32603, data: { code: 'lead_not_found' } } },
    { id: 3, error: { code: -32601 } },
    { id: 4, result: { content: [{ type: 'text' }], structuredContent: { summary: /^No stale leads/, stale_leads: [] } } },
    { id: 'five', result: { content: [{ type: 'text' }], structuredContent: { summary: /^No stale leads/, stale_leads: [] } } },
  ])
  t.equal(body.length, 5)
  t.same(body[3].result, body[4].result, 'the same answer for both')
  t.same(JSON.parse(body[3].result.content[0].text), body[3].result.structuredContent, 'the text block is the structured content')
  const large = await app.post(Array.from({ length: 21 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' })), keys.read)
  t.match(large.body, { id: null, error: { code: -32600, data: { code: 'batch_too_large', max_batch: 20 } } })
})

t.test('§7.1 -32001: a missing, malformed, unknown, or revoked key (revoked: at once)', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account()
  const ping = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_leads', arguments: {} } }
  const cases: Array<[Record<string, string>, string]> = [
    [{}, 'api_key_missing'],
    [{ authorization: 'Basic dXNlcjpwYXNz' }, 'api_key_missing'],
    [{ authorization: 'Bearer' }, 'api_key_missing'],
    [{ authorization: 'Bearer ll_live_0000000000000000000000000000000' }, 'api_key_invalid'],
    [{ authorization: `Bearer ${account.token}` }, 'api_key_invalid'],
    [{ authorization: `Bearer ${account.keys.read}x` }, 'api_key_invalid'],
  ]
  for (const [headers, code] of cases) {
    const response = await app.post(ping, undefined, headers)
    t.equal(response.status, 200)
    t.match(response.body, { id: 1, error: { code: -32001, data: { code } } }, JSON.stringify(headers))
  }
  t.match((await app.post(ping, undefined, { authorization: `bearer   ${account.keys.read}` })).body, { result: {} }, 'the scheme is case-insensitive')
  for (const method of ['initialize', 'tools/list', 'ping']) {
    t.match((await app.post({ jsonrpc: '2.0', id: 2, method, params: { protocolVersion: '2025-11-25' } })).body, { error: { code: -32001 } }, `${method} needs a key too`)
  }

  t.match(await app.call(account.keys.all, 'list_leads'), { result: {} })
  await app.leadline.accounts.revokeApiKey(account.keyIds.all as string, operatorContext)
  t.match(await app.call(account.keys.all, 'list_leads'), { error: { code: -32001, message: 'API key invalid or revoked', data: { code: 'api_key_invalid' } } }, 'revoked: the very next call fails')
  t.match(await app.call(account.keys.read, 'list_leads'), { result: {} }, 'other keys of the account still work')
})

t.test('§7.1 -32003: the key lacks the scope; data names the scope needed', async (t) => {
  const app = await mcpApp(t)
  const { keys } = await app.account()
  t.match(await app.call(keys.read, 'place_call', { phone: '3125550142', name: 'Jane', idempotency_key: 'k' }), {
    error: { code: -32003, message: /place_call needs the dial scope; this key has read/, data: { code: 'insufficient_scope', scope: 'dial', key_scopes: ['read'] } },
  })
  t.match(await app.call(keys['dial'] as string, 'list_leads'), { error: { code: -32003, data: { code: 'insufficient_scope', scope: 'read', key_scopes: ['dial'] } } })
  t.match(await app.call(keys['read,dial'] as string, 'mark_do_not_call', { phone: '3125550142', idempotency_key: 'k' }), {
    error: { code: -32003, data: { scope: 'write', key_scopes: ['read', 'dial'] } },
  })
  // The scope is checked before the arguments: a key without it learns nothing about them.
  t.match(await app.call(keys.read, 'place_call', { bogus: true }), { error: { code: -32003 } })
})

t.test('§7.1 -32602: an unknown tool, or invalid arguments (data lists the problems)', async (t) => {
  const app = await mcpApp(t)
  const { keys } = await app.account()
  t.match(await app.call(keys.all, 'request_refund', {}), {
    error: { code: -32602, message: 'unknown tool request_refund', data: { code: 'unknown_tool', tool: 'request_refund', tools: ['add_note', 'book_appointment', 'cancel_appointment', 'get_call', 'get_lead', 'get_lead_history', 'get_next_actions', 'get_stats', 'list_calls', 'list_leads', 'list_open_slots', 'mark_do_not_call', 'pause_follow_up', 'place_call', 'request_payment', 'reschedule_appointment', 'resume_follow_up', 'schedule_callback', 'send_sms', 'update_lead'] } },
  })
  t.match((await app.post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { arguments: {} } }, keys.all)).body, {
    error: { code: -32602, data: { code: 'invalid_params' } },
  })
  const invalid = await app.call(keys.all, 'place_call', { phone: '12', idempotency_key: '', dry_run: 'yes', extra: 1 })
  t.match(invalid, { error: { code: -32602, message: /^invalid arguments for place_call: /, data: { code: 'invalid_arguments' } } })
  t.same(
    (invalid.error?.data.problems as Array<{ path: string }>).map((p) => p.path).sort(),
    ['', 'dry_run', 'idempotency_key', 'name', 'phone'],
    'every problem, by argument',
  )
  t.match((await app.post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_leads', arguments: [1] } }, keys.all)).body, {
    error: { code: -32602, data: { code: 'invalid_arguments', problems: [{ path: '', message: 'arguments must be an object' }] } },
  })
  t.match(await app.call(keys.all, 'list_leads', { limit: 0, since: 'yesterday', do_not_call: 'no' }), {
    error: { code: -32602, data: { problems: [{ path: 'since' }, { path: 'do_not_call' }, { path: 'limit' }] } },
  })
  t.match(await app.call(keys.all, 'list_leads', { cursor: 'not-a-cursor' }), { error: { code: -32602, data: { code: 'invalid_cursor' } } })
  t.match(await app.call(keys.all, 'get_lead', {}), { error: { code: -32602, data: { code: 'invalid_arguments', problems: [{ message: 'give exactly one of phone and lead_id' }] } } })
  t.match(await app.call(keys.all, 'get_lead', { phone: '3125550142', lead_id: 'ld_x' }), { error: { code: -32602 } })
})

t.test('§7.1 -32603: the tool ran and failed, with a stable data.code', async (t) => {
  const app = await mcpApp(t)
  const { keys } = await app.account()
  const { status, body } = await app.post({ jsonrpc: '2.0', id: 'x1', method: 'tools/call', params: { name: 'get_lead', arguments: { phone: '(312) 555-0199' } } }, keys.all)
  t.equal(status, 200)
  t.same(body, {
    jsonrpc: '2.0',
    id: 'x1',
    error: { code: -32603, message: 'no lead with that phone number or id in this account', data: { code: 'lead_not_found' } },
  })
  t.match(await app.call(keys.all, 'mark_do_not_call', { lead_id: 'ld_missing', idempotency_key: 'k-1' }), { error: { code: -32603, data: { code: 'lead_not_found' } } })
})

t.test('the transport refuses a foreign browser Origin (403) and an unsupported MCP-Protocol-Version (400)', async (t) => {
  const app = await mcpApp(t, { publicUrl: 'https://leads.example.com' })
  const { keys } = await app.account()
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' }
  const foreign = await app.post(ping, keys.read, { origin: 'https://evil.example' })
  t.equal(foreign.status, 403)
  t.match(foreign.body, { id: null, error: { code: -32600, data: { code: 'origin_not_allowed' } } })
  t.equal((await app.post(ping, keys.read, { origin: 'http://127.0.0.1:3000' })).status, 403, 'a rebound local origin is foreign too')
  t.match((await app.post(ping, keys.read, { origin: 'https://leads.example.com' })).body, { result: {} }, 'our own origin')
  t.match((await app.post(ping, keys.read)).body, { result: {} }, 'no Origin: not a browser')

  const old = await app.post(ping, keys.read, { 'mcp-protocol-version': '2024-01-01' })
  t.equal(old.status, 400)
  t.match(old.body, { error: { code: -32022, data: { code: 'unsupported_protocol_version', supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'], requested: '2024-01-01' } } })
  t.match((await app.post(ping, keys.read, { 'mcp-protocol-version': '2025-03-26' })).body, { result: {} })
})

t.test('the body is JSON whatever the content type says', async (t) => {
  const app = await mcpApp(t)
  const { keys } = await app.account()
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-8']) {
    t.match((await app.post({ jsonrpc: '2.0', id: 1, method: 'ping' }, keys.read, { 'content-type': type })).body, { result: {} }, type)
  }
  const none = await app.app.inject({ method: 'POST', url: MCP, headers: { authorization: `Bearer ${keys.read}` }, payload: '{"jsonrpc":"2.0","id":1,"method":"ping"}' })
  t.same(none.json(), { jsonrpc: '2.0', id: 1, result: {} }, 'no content type at all')
  const badLength = await app.app.inject({ method: 'POST', url: MCP, headers: { authorization: `Bearer ${keys.read}`, 'content-length': '3' }, payload: '{"jsonrpc":"2.0","id":1,"method":"ping"}' })
  t.equal(badLength.statusCode, 200)
  t.same(badLength.json(), { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request', data: { code: 'invalid_request' } } }, 'a body that is not what its headers say')
})
