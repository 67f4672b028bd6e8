import { execFile } from 'node:child_process'
import path from 'node:path'
import t from 'tap'
import { ROOT, runLeadline, startServer } from '../helpers/cli.ts'

function envFor(dir: string): NodeJS.ProcessEnv {
  return { LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}`, LEADLINE_PUBLIC_URL: 'https://leads.example.com' }
}

t.test('the CLI works on the store while a server runs on it', async (t) => {
  const env = envFor(t.testdir())
  const server = await startServer(env)
  t.teardown(() => server.stop())

  const account = JSON.parse((await runLeadline(['account', 'create', '--name', 'Live', '--json'], env)).stdout)
  const token: string = account.webhookToken.token
  const post = (phone: string, secret = token) =>
    fetch(`${server.url}/api/ingest/lead`, { method: 'POST', headers: { 'x-service-token': secret, 'content-type': 'application/json' }, body: JSON.stringify({ phone, name: 'Pat Kim', source: 'Web' }) })

  t.equal((await post('5125550101')).status, 201, 'a token issued by the CLI works on the running server at once')
  t.equal((await post('5125550102')).status, 201)

  const leads = JSON.parse((await runLeadline(['leads', '--account', account.accountId, '--json'], env)).stdout)
  t.equal(leads.list, 'Inbound Leads')
  t.same(leads.leads.map((l: { phone: string }) => l.phone), ['+15125550102', '+15125550101'])
  t.match((await runLeadline(['leads', '--account', account.accountId], env)).stdout, /Pat Kim\s+\+15125550102/)
  const page = JSON.parse((await runLeadline(['leads', '--account', account.accountId, '--limit', '1', '--json'], env)).stdout)
  t.equal(page.leads.length, 1)
  const next = JSON.parse((await runLeadline(['leads', '--account', account.accountId, '--limit', '1', '--cursor', page.nextCursor, '--json'], env)).stdout)
  t.same(next.leads.map((l: { phone: string }) => l.phone), ['+15125550101'])
  t.equal(next.nextCursor, null)

  const rotated = JSON.parse((await runLeadline(['token', 'rotate', '--account', account.accountId, '--json'], env)).stdout)
  t.equal((await post('5125550103')).status, 401, 'the old token fails at once')
  t.equal((await post('5125550103', rotated.token)).status, 201, 'the new one works at once')

  // A key the CLI made, used on the running server: key list says when.
  const key = JSON.parse((await runLeadline(['key', 'create', '--account', account.accountId, '--scopes', 'read', '--json'], env)).stdout)
  const called = await fetch(`${server.url}/api/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_next_actions', arguments: {} } }),
  })
  t.equal(called.status, 200)
  t.notOk('error' in ((await called.json()) as object), 'the key works on the running server')
  const [listed] = JSON.parse((await runLeadline(['key', 'list', '--account', account.accountId, '--json'], env)).stdout)
  t.ok(Math.abs(Date.parse(listed.lastUsedAt) - Date.now()) < 120_000, `key list says when the key was last used (${listed.lastUsedAt})`)

  t.equal(await server.stop('SIGTERM'), 0, 'SIGTERM stops the server cleanly')
  t.notOk(server.output().includes(token), 'the server never logged the token')
})

t.test('./bin/leadline runs as an executable in the checkout, as the issue and the README show it', async (t) => {
  const env = { ...process.env, LOG_LEVEL: 'warn', ...envFor(t.testdir()) }
  const run = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      // The file itself, through its #! line: no `node` in front, as an operator types it.
      execFile(path.join(ROOT, 'bin', 'leadline'), args, { env, cwd: ROOT }, (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      )
    })
  const created = await run(['account', 'create', '--name', 'Shebang', '--json'])
  t.equal(created.code, 0, created.stderr)
  t.match(JSON.parse(created.stdout), { accountId: /^acc_/, name: 'Shebang' })
  const bad = await run(['account', 'create'])
  t.equal(bad.code, 2, 'bad input exits 2 through the wrapper too')
  t.match(bad.stderr, /^leadline: .*--name/)
  const listed = await run(['account', 'list', '--json'])
  t.same(JSON.parse(listed.stdout).map((a: { name: string }) => a.name), ['Shebang'], 'the bad input changed nothing')
})
