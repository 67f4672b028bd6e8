/**
 * The build `npm start` runs: `npm run build` compiles src/ and projections/ into dist/, and the
 * compiled service works with no TypeScript loader in any thread: it serves the docs and console
 * assets from the checkout, loads every tool, takes a lead through the writer thread, and the
 * compiled CLI works on the same store. A file left in dist/ by an earlier build is gone.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { BUILT_BIN, ROOT, runLeadline, startServer } from '../helpers/cli.ts'

function build(): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('npm', ['run', '--silent', 'build'], { cwd: ROOT }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` })
    })
  })
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((file) => path.join(dir, file))
}

t.test('npm run build compiles the service, and the compiled service runs without tsx', async (t) => {
  const stale = path.join(ROOT, 'dist', 'src', 'http', 'mcp', 'tools', 'removed-long-ago.tool.js')
  fs.mkdirSync(path.dirname(stale), { recursive: true })
  fs.writeFileSync(stale, 'export const tool = { name: "removed_long_ago" }\n')

  const built = await build()
  t.equal(built.code, 0, built.output)
  t.notOk(fs.existsSync(stale), 'a file from an earlier build does not survive a new one')
  t.ok(fs.existsSync(BUILT_BIN), 'the entry npm start runs exists')

  const sourceTools = fs.readdirSync(path.join(ROOT, 'src', 'http', 'mcp', 'tools')).filter((f) => f.endsWith('.tool.ts'))
  const builtTools = fs.readdirSync(path.join(ROOT, 'dist', 'src', 'http', 'mcp', 'tools')).filter((f) => f.endsWith('.tool.js'))
  t.same(builtTools, sourceTools.map((f) => f.replace(/\.ts$/, '.js')), 'every tool is compiled')
  const tsImports = filesUnder(path.join(ROOT, 'dist'))
    .filter((file) => file.endsWith('.js'))
    .filter((file) => /(?:from|import\()\s*["'][^"']+\.ts["']/.test(fs.readFileSync(file, 'utf8')))
  t.same(tsImports, [], 'no compiled file imports a .ts file')

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-build-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const env = { LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}` }
  const created = await runLeadline(['account', 'create', '--name', 'Built', '--json'], env, BUILT_BIN)
  t.equal(created.code, 0, created.stderr)
  const account = JSON.parse(created.stdout) as { accountId: string; webhookToken: { token: string } }
  const keyRun = await runLeadline(['key', 'create', '--account', account.accountId, '--scopes', 'read', '--json'], env, BUILT_BIN)
  t.equal(keyRun.code, 0, keyRun.stderr)
  const key = (JSON.parse(keyRun.stdout) as { key: string }).key

  // What `npm start` runs, less npm itself.
  const server = await startServer(env, { bin: BUILT_BIN })
  t.teardown(() => server.stop())

  const lead = await fetch(`${server.url}/api/ingest/lead`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': account.webhookToken.token },
    body: JSON.stringify({ 'Full Name': 'Jane Doe', phone: '(555) 123-4567' }),
  })
  t.equal(lead.status, 201, 'a lead is written through the compiled writer thread')
  t.match(await lead.json(), { created: true, phone: '+15551234567', lists: ['Inbound Leads'] })

  const list = await fetch(`${server.url}/api/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })
  const tools = ((await list.json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map((tool) => tool.name)
  t.equal(tools.length, sourceTools.length, 'tools/list holds every tool')
  const version = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version
  const init = await fetch(`${server.url}/api/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  })
  t.equal(((await init.json()) as { result: { serverInfo: { version: string } } }).result.serverInfo.version, version, 'the version is read from the checkout')

  const docs = await fetch(`${server.url}/docs/llms.txt`)
  t.equal(docs.status, 200)
  t.match(await docs.text(), /^# Leadline/, 'docs are served from the checkout')
  const css = await fetch(`${server.url}/app/assets/console.css`)
  t.equal(css.status, 200, 'console assets are served from the checkout')
  t.equal(await css.text(), fs.readFileSync(path.join(ROOT, 'src', 'http', 'console', 'assets', 'console.css'), 'utf8'))

  const leads = await runLeadline(['leads', '--account', account.accountId, '--json'], env, BUILT_BIN)
  t.equal(leads.code, 0, leads.stderr)
  t.match(leads.stdout, /"\+15551234567"/, 'the compiled CLI reads the lead the compiled server took')
})
