/**
 * One rule for where the server is (issue #41): the tool client finds it by LEADLINE_URL, else
 * http://127.0.0.1:$PORT, else the address a server on this LEADLINE_STORE recorded, and names the
 * URL in connection and authentication errors; printed URLs (account create's webhookUrl) follow the
 * server's real address; the start-up line lists the URLs; a busy port is refused with a message that names it and how to choose another.
 */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { freePort, runLeadline, startServer } from '../helpers/cli.ts'
import { clientSetup, runInProcess } from './client-setup.ts'
import { serverAddressPath, serverUrl } from '../../src/config/server-address.ts'

t.test('the tool client finds the server on a non-default port from PORT, and names it when the key is wrong', async (t) => {
  const { env, reader } = await clientSetup(t)
  const port = new URL(env.LEADLINE_URL!).port
  const found = await runInProcess(['tools'], { PORT: port, LEADLINE_API_KEY: reader })
  t.equal(found.code, 0, found.stderr)
  t.match(found.stdout, /list_leads/)
  const wrong = await runInProcess(['next-actions'], { PORT: port, LEADLINE_API_KEY: 'll_live_wrong' })
  t.equal(wrong.code, 3)
  t.match(wrong.stderr, `API key invalid or revoked (api_key_invalid) at http://127.0.0.1:${port}/api/mcp (from PORT; set LEADLINE_URL to name another)`)
  const closed = await freePort()
  const unreachable = await runInProcess(['tools'], { PORT: String(closed), LEADLINE_API_KEY: reader })
  t.match(unreachable.stderr, `cannot reach the tool endpoint at http://127.0.0.1:${closed}/api/mcp (ECONNREFUSED): is the server running? (the address is from PORT; set LEADLINE_URL to name another)`)
  t.same(serverUrl({ LEADLINE_URL: 'http://10.0.0.5:8080/', PORT: '3111' }), { url: 'http://10.0.0.5:8080', from: 'LEADLINE_URL' }, 'LEADLINE_URL wins')
  t.same(serverUrl({ LEADLINE_STORE: `sqlite:${path.join(t.testdir(), 'none.db')}` }), { url: 'http://127.0.0.1:3000', from: 'the default' })
})

t.test('a server records where it listens: account create prints its webhook URL without PORT; a busy port is refused by name', async (t) => {
  const dir = t.testdir()
  const store = `sqlite:${path.join(dir, 'leadline.db')}`
  const server = await startServer({ LEADLINE_STORE: store, LOG_LEVEL: 'warn' })
  t.teardown(() => server.stop())
  const base = server.url
  t.match(server.output(), `leadline: serving on ${base} | console ${base}/app | docs ${base}/docs | webhook ${base}/api/ingest/lead | tool endpoint ${base}/api/mcp\n`, 'one human line says where to go')
  const addressFile = serverAddressPath(store)!
  t.match(JSON.parse(fs.readFileSync(addressFile, 'utf8')), { url: server.url })

  // Another terminal: the store, but not the server's PORT.
  const created = await runLeadline(['account', 'create', '--name', 'Elsewhere', '--json'], { LEADLINE_STORE: store, PORT: '' })
  t.equal(created.code, 0, created.stderr)
  t.match(JSON.parse(created.stdout).webhookUrl, `${server.url}/api/ingest/lead`, 'the address the server listens on, not :3000')
  t.same(serverUrl({ LEADLINE_STORE: store }), { url: server.url, from: 'the running server' })

  const port = new URL(server.url).port
  const second = await runLeadline(['serve'], { LEADLINE_STORE: `sqlite:${path.join(dir, 'second.db')}`, PORT: port, HOST: '127.0.0.1' })
  t.equal(second.code, 2)
  t.match(second.stderr, `PORT: ${port} on 127.0.0.1 is already in use (another Leadline, or another program, listens there): stop it, or choose another port, e.g. PORT=${Number(port) + 1} npm start`)
  t.notMatch(second.stderr, /EADDRINUSE/)

  await server.stop()
  t.notOk(fs.existsSync(addressFile), 'removed when the server stops')
})
