/**
 * DNS-rebinding protection (MCP Streamable HTTP transport) with a loopback public URL: a browser on
 * the same machine names the server `localhost`, `127.0.0.1` or `[::1]`, and all of them are the
 * service's own origin; a different port, scheme or any other host (another 127/8 address too) stays foreign.
 */
import t from 'tap'
import { mcpApp } from './mcp-helpers.ts'

const ping = { jsonrpc: '2.0', id: 1, method: 'ping' }

t.test('a loopback public URL: every loopback alias on the same scheme and port is our own origin', async (t) => {
  const app = await mcpApp(t, { publicUrl: 'http://127.0.0.1:4123' })
  const { keys } = await app.account()
  for (const origin of ['http://127.0.0.1:4123', 'http://localhost:4123', 'http://[::1]:4123', 'http://LOCALHOST:4123']) {
    t.match((await app.post(ping, keys.read, { origin })).body, { result: {} }, `${origin} is allowed`)
  }
  for (const origin of ['http://localhost:4124', 'https://localhost:4123', 'http://evil.example:4123', 'http://localhost.evil.example:4123', 'http://[::2]:4123', 'http://127.0.0.2:4123', 'null']) {
    t.equal((await app.post(ping, keys.read, { origin })).status, 403, `${origin} is foreign`)
  }
})

t.test('the aliases follow the public URL: localhost and [::1] public URLs allow 127.0.0.1 on their port', async (t) => {
  for (const publicUrl of ['http://localhost:4200', 'http://[::1]:4200']) {
    const app = await mcpApp(t, { publicUrl })
    const { keys } = await app.account()
    t.match((await app.post(ping, keys.read, { origin: 'http://127.0.0.1:4200' })).body, { result: {} }, `${publicUrl}: 127.0.0.1 is allowed`)
    t.equal((await app.post(ping, keys.read, { origin: 'http://127.0.0.1:4201' })).status, 403, `${publicUrl}: another port is not`)
  }
})

t.test('a public URL on a real host name gains no loopback aliases', async (t) => {
  const app = await mcpApp(t, { publicUrl: 'https://leads.example.com' })
  const { keys } = await app.account()
  for (const origin of ['https://localhost', 'http://localhost', 'https://127.0.0.1']) {
    t.equal((await app.post(ping, keys.read, { origin })).status, 403, `${origin} is foreign`)
  }
})
