/**
 * No authorised request can take the server down: 500 leads each pushed with ~60 KB of extra fields,
 * then `list_leads` with `limit: 500`, against the real server started as `npm start` starts it (its
 * Node heap flags, read from package.json). The server stays up, each answer is a bounded page with a
 * cursor, and the cursors walk all 500 leads.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { ROOT, runLeadlineInProcess, startServer } from '../../helpers/cli.ts'

const LEADS = 500
/** The bound on one tool answer's output (docs/limits.md), and what a response carries it in: text and structuredContent. */
const MAX_OUTPUT_BYTES = 1024 * 1024

/** The Node flags of `npm start` (the heap bounds production runs under). */
function startFlags(): string[] {
  const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
  return (scripts.start ?? '').split(/\s+/).filter((word) => word.startsWith('--'))
}

/** ~60 KB of fields Leadline does not recognise: 30 of 2,000 characters. */
function bulkyLead(n: number): Record<string, string> {
  const lead: Record<string, string> = { name: `Bulky Lead ${n}`, phone: `(312) 55${String(n).padStart(5, '0')}` }
  for (let f = 0; f < 30; f++) lead[`note ${f}`] = `${n}-${f} ${'x'.repeat(1990)}`
  return lead
}

t.test('500 leads with 60 KB of extra fields each, then list_leads limit 500, under the production heap flags', async (t) => {
  const flags = startFlags()
  t.match(flags, ['--max-old-space-size=128'], 'npm start bounds the heap')
  const dir = t.testdir()
  const env = { LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}`, LEADLINE_WEBHOOK_RATE: 'off', LOG_LEVEL: 'warn' }
  const account = JSON.parse((await runLeadlineInProcess(['account', 'create', '--name', 'Bulky Book', '--json'], env)).stdout) as {
    accountId: string
    webhookToken: { token: string }
  }
  const keyOut = (await runLeadlineInProcess(['key', 'create', '--account', account.accountId, '--scopes', 'read', '--json'], env)).stdout
  const apiKey = /ll_live_[0-9a-z]+/.exec(keyOut)?.[0] as string
  t.ok(apiKey, 'an API key')

  const server = await startServer({ ...env, LEADLINE_VIEWS: path.join(dir, 'server.views.db') }, { nodeArgs: flags, timeoutMs: 120_000 })
  t.teardown(() => server.stop('SIGKILL'))
  for (let start = 0; start < LEADS; start += 10) {
    await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const response = await fetch(`${server.url}/api/ingest/lead`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-token': account.webhookToken.token },
          body: JSON.stringify(bulkyLead(start + i)),
        })
        if (response.status !== 201) throw new Error(`lead ${start + i}: ${response.status} ${await response.text()}`)
      }),
    )
  }

  const list = async (args: Record<string, unknown>) => {
    const response = await fetch(`${server.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_leads', arguments: args } }),
    })
    const raw = await response.text()
    return { raw, body: JSON.parse(raw) as { result?: { structuredContent: { leads: Array<{ lead_id: string }>; next_cursor: string | null } }; error?: unknown } }
  }

  const seen = new Set<string>()
  let cursor: string | null = null
  let pages = 0
  do {
    const { raw, body } = await list({ limit: 500, ...(cursor ? { cursor } : {}) })
    t.notOk(body.error, `page ${pages + 1}: no error`)
    const page = body.result?.structuredContent
    if (!page) break
    t.ok(Buffer.byteLength(raw) <= 2 * MAX_OUTPUT_BYTES + 4096, `page ${pages + 1}: ${Buffer.byteLength(raw)} bytes, within the bound`)
    if (pages === 0) t.ok(page.leads.length < LEADS && page.next_cursor !== null, `the first page is cut by size (${page.leads.length} leads) and says there is more`)
    for (const lead of page.leads) seen.add(lead.lead_id)
    cursor = page.next_cursor
    pages++
  } while (cursor !== null && pages < LEADS)
  t.equal(seen.size, LEADS, `the cursors walk all ${LEADS} leads, in ${pages} pages`)
  t.equal(server.child.exitCode, null, 'the server is still running')
  t.ok((await fetch(`${server.url}/healthz`)).ok, 'and still answers')
})
