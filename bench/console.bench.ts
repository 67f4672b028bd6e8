/**
 * bench:console — the owner's console and get_stats on a big book (issue #44): 1,000,000 leads and
 * 3,000,000 events in one account (bench/console-seed.ts, made once and reused from
 * .cache/bench-console/), served as `npm start` serves it. Each page is asked for one request at a
 * time, signed in, after a warm-up; the p99 of each must be at most 300 ms.
 *
 *   npm run bench:console [-- --leads 1000000 --samples 200 --warmup 20]
 *
 * The webhook floor and speed to lead with the same read models: `npm run bench:ingest`, `npm run
 * bench:speed-to-lead`. Figures go to docs/performance.md.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { ROOT, serveChild } from './bench-kit.ts'
import { BENCH_EMAIL, BENCH_PASSWORD, consoleSeed, refreshReadModels } from './console-seed.ts'

const { values } = parseArgs({
  options: {
    leads: { type: 'string', default: '1000000' },
    samples: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '20' },
    port: { type: 'string', default: '3471' },
  },
})
const LEADS = Number(values.leads)
const SAMPLES = Number(values.samples)
const WARMUP = Number(values.warmup)
const TARGET_P99_MS = 300

const dir = path.join(ROOT, '.cache', 'bench-console', `v1-${LEADS}`)
const seed = await consoleSeed(dir, LEADS, LEADS * 3)
const store = `sqlite:${path.join(dir, 'leadline.db')}`
refreshReadModels(store)
const server = await serveChild(['bin/leadline.js', 'serve'], { LEADLINE_STORE: store }, Number(values.port))

/** Signs in as the owner through the form, as a browser does; answers the Cookie header of the session. */
async function signIn(url: string): Promise<string> {
  const form = await fetch(`${url}/app/sign-in`)
  const csrfCookie = form.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ')
  const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? ''
  const response = await fetch(`${url}/app/sign-in`, {
    method: 'POST', redirect: 'manual',
    headers: { cookie: csrfCookie, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    body: new URLSearchParams({ _csrf: token, email: BENCH_EMAIL, password: BENCH_PASSWORD }).toString(),
  })
  const session = response.headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => c?.startsWith('leadline_session='))
  if (response.status !== 303 || session === undefined) throw new Error(`sign-in failed: ${response.status}`)
  return session
}

interface Probe {
  readonly name: string
  readonly run: () => Promise<Response>
  /** Least time between two requests' starts: the tool endpoint's per-key rate limit (20 a second) is not what is measured. */
  readonly spacingMs?: number
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number
}

try {
  const cookie = await signIn(server.url)
  const page = (pathname: string): Probe => ({ name: `GET ${pathname}`, run: () => fetch(`${server.url}${pathname}`, { headers: { cookie, accept: 'text/html' }, redirect: 'manual' }) })
  const stats = (days: number): Probe => ({
    name: `get_stats days ${days}`,
    spacingMs: 60,
    run: () => fetch(`${server.url}/api/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seed.readKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_stats', arguments: { days } } }),
    }),
  })
  const probes: Probe[] = [
    page('/app/home'), page('/app/inbox'), page('/app/leads'), page(`/app/leads/${seed.leadId}`), page('/app/calls'), page('/app/calls?outcome=answered&source=Website'),
    page('/app/reports?days=7'), page('/app/reports?days=30'), page('/app/reports?days=90'), page('/app/reports/speed-to-lead.csv?days=90'),
    stats(7), stats(90),
  ]
  const results = []
  for (const probe of probes) {
    const check = await probe.run()
    const body = await check.text()
    const times: number[] = []
    let last = 0
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      const wait = last + (probe.spacingMs ?? 0) - performance.now()
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      const started = performance.now()
      last = started
      const response = await probe.run()
      const text = await response.text()
      // A redirect is not the page: every probe must be answered with the page itself.
      if (response.status !== 200 || text.includes('"error"')) throw new Error(`${probe.name}: ${response.status} ${text.slice(0, 300)}`)
      if (i >= WARMUP) times.push(performance.now() - started)
    }
    times.sort((a, b) => a - b)
    const row = { name: probe.name, status: check.status, bytes: body.length, p50: percentile(times, 50), p90: percentile(times, 90), p99: percentile(times, 99), max: times[times.length - 1] as number }
    results.push(row)
    process.stderr.write(`${row.name.padEnd(48)} p50 ${row.p50.toFixed(1).padStart(7)} ms  p99 ${row.p99.toFixed(1).padStart(7)} ms  max ${row.max.toFixed(1).padStart(7)} ms  (${row.status}, ${row.bytes} bytes)\n`)
  }
  const failed = results.filter((r) => r.p99 > TARGET_P99_MS)
  const summary = {
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? '', node: process.version, loadAverage: os.loadavg() },
    seed: { leads: seed.leads, events: seed.events, seedSeconds: Math.round(seed.seconds), logMb: Math.round(fs.statSync(path.join(dir, 'leadline.db')).size / 1024 / 1024) },
    samples: SAMPLES, results, targetP99Ms: TARGET_P99_MS,
  }
  console.log(`\nbench:console — ${seed.leads.toLocaleString('en-US')} leads, ${seed.events.toLocaleString('en-US')} events; ${SAMPLES} requests each, one at a time; load ${summary.machine.loadAverage.map((l) => l.toFixed(1)).join(' ')}`)
  console.log(failed.length === 0 ? `every p99 <= ${TARGET_P99_MS} ms: met` : `p99 over ${TARGET_P99_MS} ms: ${failed.map((r) => r.name).join(', ')}: NOT met`)
  const resultsDir = path.join(ROOT, 'bench', 'results')
  fs.mkdirSync(resultsDir, { recursive: true })
  fs.writeFileSync(path.join(resultsDir, `console-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(summary, null, 2))
  process.exitCode = failed.length === 0 ? 0 : 1
} finally {
  await server.stop()
}
