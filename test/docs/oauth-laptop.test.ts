/**
 * docs/mcp.md's "Try OAuth on a laptop", pasted as written (issue #41): the server started with the
 * first block's settings (on a free port instead of 3111), the second block run in a shell, the
 * owner's link opened and a password set, and then the TypeScript SDK's OAuth sign-in over plain
 * http on loopback, against that server process.
 */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { freePort, ROOT, startServer } from '../helpers/cli.ts'
import { ShellSession } from '../helpers/shell-session.ts'
import { MemoryOAuthProvider } from '../http/mcp/oauth-helpers.ts'
import { consentOver, HttpBrowser } from '../http/mcp/oauth-loopback-helpers.ts'

const PASSWORD = 'a laptop passphrase of words'

function recipeBlocks(): string[] {
  const page = fs.readFileSync(path.join(ROOT, 'docs', 'mcp.md'), 'utf8')
  const section = /\n### Try OAuth on a laptop\n([\s\S]*?)(?=\n##)/.exec(page)?.[1] ?? ''
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string)
}

t.test("mcp.md's laptop recipe: the server starts on http loopback with OAuth on, and the SDK signs in", async (t) => {
  const port = await freePort()
  const [serverBlock = '', ownerBlock = ''] = recipeBlocks().map((block) => block.replaceAll('3111', String(port)))
  const [exportLine = '', startLine] = serverBlock.trim().split('\n')
  t.equal(startLine, 'npm start', 'the first block starts the server')
  const settings = Object.fromEntries([...exportLine.replace(/^export /, '').matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]))
  t.match(settings, { LEADLINE_OAUTH: 'on', LEADLINE_PUBLIC_URL: `http://127.0.0.1:${port}` })

  const dir = t.testdir()
  const env = { LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}`, LEADLINE_SCRYPT_LOG_N: '10', LOG_LEVEL: 'warn' }
  const server = await startServer({ ...settings, ...env }, { port })
  t.teardown(() => server.stop())

  const shell = new ShellSession({ cwd: ROOT, env: { ...process.env, ...env }, stateDir: dir })
  const owner = await shell.run(ownerBlock)
  t.equal(owner.code, 0, owner.stderr)
  const link = new RegExp(`http://127\\.0\\.0\\.1:${port}/app/set-password\\?token=\\S+`).exec(owner.stdout)?.[0]
  t.ok(link, `the owner's link on the loopback URL: ${owner.stdout}`)

  const origin = `http://127.0.0.1:${port}`
  const browser = new HttpBrowser(origin)
  const linkUrl = new URL(link!)
  t.equal((await browser.get(`${linkUrl.pathname}${linkUrl.search}`)).statusCode, 200)
  const set = await browser.post('/app/set-password', { token: linkUrl.searchParams.get('token') ?? '', password: PASSWORD, confirm: PASSWORD })
  t.equal(set.statusCode, 303, set.body.slice(0, 300))
  await browser.get('/app/sign-in')
  t.equal((await browser.post('/app/sign-in', { email: 'you@example.com', password: PASSWORD })).statusCode, 303, 'the owner signs in over plain http')

  const provider = new MemoryOAuthProvider('Laptop Client')
  const endpoint = new URL(`${origin}/api/mcp`)
  const first = new StreamableHTTPClientTransport(endpoint, { authProvider: provider })
  await t.rejects(new Client({ name: 'laptop', version: '1.0.0' }).connect(first), /Unauthorized/)
  const { callback } = await consentOver({ origin, browser }, provider.authorizationUrl!, ['read', 'write', 'dial'])
  await first.finishAuth(callback.searchParams.get('code') ?? '')
  const client = new Client({ name: 'laptop', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }))
  t.teardown(() => client.close())
  t.match((await client.callTool({ name: 'list_leads', arguments: {} })).structuredContent, { leads: [] }, 'a working agent')
})
