/** Setup → AI access: keys with chosen scopes, shown once, working against /api/mcp, revoked at once; no key can make a key. */
import t from 'tap'
import { signedInConsole, type ConsoleFixture } from './console-helpers.ts'

async function rpc(f: ConsoleFixture, key: string, name: string, args: Record<string, unknown> = {}) {
  const response = await f.app.app.inject({
    method: 'POST', url: '/api/mcp', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  })
  return response.json() as { result?: { content: Array<{ text: string }> }; error?: { code: number; data?: { code?: string; scope?: string } } }
}

t.test('create a key with chosen scopes: shown once with a copy button, listed, and it works against /api/mcp within its scopes', async (t) => {
  const f = await signedInConsole(t)
  const page = await f.browser.get('/app/setup/ai-access')
  t.equal(page.statusCode, 200)
  t.match(page.body, 'No keys yet.')
  t.match(page.body, /<input type="checkbox" name="scopes" value="read" checked>/, 'read is offered by default')

  const created = await f.browser.post('/app/setup/ai-access', { label: 'Sales <agent>', scopes: ['read', 'dial'] })
  t.equal(created.statusCode, 201)
  const key = /id="new-key" value="(ll_live_[0-9a-z]{32})"/.exec(created.body)?.[1] as string
  t.ok(key, 'the new key is on the page')
  t.match(created.body, /data-copy="new-key"/, 'with a copy button')
  t.match(created.body, 'shown only this once')
  t.match(created.body, 'Sales &#60;agent&#62;', 'the label is escaped, never markup')
  t.match(created.body, /<span class="badge">read<\/span><span class="badge">dial<\/span>/)

  const next = await rpc(f, key, 'get_next_actions')
  t.notOk(next.error, 'the key reads')
  t.match(JSON.parse(next.result?.content[0]?.text ?? '{}'), { summary: String })
  const pay = await rpc(f, key, 'request_payment', { phone: '3125550142', amountCents: 100, description: 'x', idempotency_key: 'k1' })
  t.equal(pay.error?.code, -32003, 'and only within its scopes')
  t.equal(pay.error?.data?.scope, 'write')

  const list = await f.browser.get('/app/setup/ai-access')
  t.notOk(list.body.includes(key), 'never shown again')
  t.match(list.body, key.slice(0, 'll_live_'.length + 4), 'only its first characters')
  t.match(list.body, /Sales &#60;agent&#62;[\s\S]*<time datetime="[^"]+">[^<]+<\/time><\/td>\s*<td><time datetime=/, 'created and last used are listed')
  t.notMatch(list.body, />never</, 'it was used: last used is set')
  const keys = [...(await f.app.leadline.accounts.require(f.accountId)).apiKeys.values()]
  t.match(keys, [{ scopes: ['read', 'dial'], label: 'Sales <agent>' }])
  const event = (await f.app.leadline.store.readAll()).find((e) => e.type === 'ApiKeyCreated')
  t.match(event?.metadata.actor, { kind: 'user', id: /^usr_/ }, 'the owner made it, by their signed-in session')
})

t.test('revoke: the key fails at once; another account\'s key cannot be revoked from here', async (t) => {
  const f = await signedInConsole(t)
  await f.browser.get('/app/setup/ai-access')
  const key = /id="new-key" value="([^"]+)"/.exec((await f.browser.post('/app/setup/ai-access', { scopes: 'read' })).body)?.[1] as string
  t.notOk((await rpc(f, key, 'get_next_actions')).error)
  const keyId = [...(await f.app.leadline.accounts.require(f.accountId)).apiKeys.keys()][0] as string
  const revoked = await f.browser.post(`/app/setup/ai-access/${keyId}/revoke`)
  t.equal(revoked.statusCode, 303)
  t.equal((await rpc(f, key, 'get_next_actions')).error?.code, -32001, 'refused from the very next request')
  const page = await f.browser.get(revoked.headers.location as string)
  t.match(page.body, 'The key is revoked')
  t.match(page.body, /class="bad">revoked/)

  const other = await f.app.createAccount('Other Co')
  const theirs = await f.app.leadline.accounts.createApiKey(other.account.accountId, ['read'], null, { actor: { kind: 'operator', id: 't' } })
  const refused = await f.browser.post(`/app/setup/ai-access/${theirs.key.id}/revoke`)
  t.equal(refused.statusCode, 404)
  t.notOk((await rpc(f, theirs.key.secret, 'get_next_actions')).error, 'their key still works')
})

t.test('revoke: a key id that names a property every object has (constructor, toString, __proto__) is no key: 404, nothing on the log', async (t) => {
  const f = await signedInConsole(t)
  await f.browser.get('/app/setup/ai-access')
  await f.browser.post('/app/setup/ai-access', { scopes: 'read' })
  const before = await f.app.leadline.store.headPosition()
  for (const keyId of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
    const refused = await f.browser.post(`/app/setup/ai-access/${keyId}/revoke`)
    t.equal(refused.statusCode, 404, keyId)
    t.match(refused.body, `no key ${keyId} in this account`, keyId)
  }
  t.equal(await f.app.leadline.store.headPosition(), before, 'no revocation recorded')
})

t.test('no scope chosen: 400, nothing created; an API key cannot reach the console (it cannot make keys)', async (t) => {
  const f = await signedInConsole(t)
  await f.browser.get('/app/setup/ai-access')
  const before = await f.app.leadline.store.headPosition()
  const none = await f.browser.post('/app/setup/ai-access', { label: 'x' })
  t.equal(none.statusCode, 400)
  t.match(none.body, 'Choose at least one scope.')
  t.equal(await f.app.leadline.store.headPosition(), before)

  const { key } = await f.app.leadline.accounts.createApiKey(f.accountId, ['read', 'write', 'dial'], null, { actor: { kind: 'operator', id: 't' } })
  const withKey = await f.app.app.inject({
    method: 'POST', url: '/app/setup/ai-access', headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'scopes=read',
  })
  t.equal(withKey.statusCode, 303, 'sent to sign in: a key is not a session')
  t.equal(withKey.headers.location, '/app/sign-in')
  const tools = await f.app.app.inject({
    method: 'POST', url: '/api/mcp', headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  })
  const names = (tools.json() as { result: { tools: Array<{ name: string }> } }).result.tools.map((tool) => tool.name)
  t.notOk(names.some((name) => /key/.test(name)), `no tool makes keys (${names.join(', ')})`)
})
