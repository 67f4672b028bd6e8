/**
 * bench:mcp — `tools/call get_next_actions` and `tools/call list_leads` on an account with 100,000
 * leads, at 50 connections: calls/s, p50 and p99. Medians of --runs runs (default 3) of --duration
 * seconds (default 10), scenarios interleaved. Targets: at least 5,000 calls/s and p99 at most 10 ms.
 *
 * Two baselines are measured in the same run, on the same kind of server (fastify, no logger):
 * - a bare JSON POST route answering a few bytes;
 * - the floor: a bare route answering, with no work at all, exactly the bytes Leadline answered for
 *   each tool (captured from a real call first). No implementation of a tool can beat the floor of
 *   its answer's size on this machine; the ratio to it is what the implementation costs.
 *
 * The leads are received through the intake service by a setup process (bench/mcp-seed.ts), two days
 * in the past (so every one of them is stale for get_next_actions), before the server starts: the
 * load generator here then shares no heap with them. The calls go round 4,000 read keys of the
 * account, so the per-key rate limit (20/s) stays on and is never the limit (the rate-limited
 * answers are JSON-RPC errors, quick to make). A scenario with any JSON-RPC error misses the target, whatever its speed.
 *
 * Read answers are shared while the log, the read models, the account and the clock's second stay
 * the same (src/http/mcp/read-cache.ts). The "while leads arrive" scenarios measure the same calls
 * while new leads are pushed to the webhook 20 times a second, so a shared answer rarely lives longer
 * than 50 ms: every one of those changes means computing the answer again.
 *
 *   npm run bench:mcp [-- --runs 3 --duration 10 --leads 100000]
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { execFileSync } from 'node:child_process'
import { benchPhone, type Seeded } from './mcp-seed.ts'
import { ROOT, load, medianResult, rssMb, serveChild, type LoadResult } from './bench-kit.ts'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    leads: { type: 'string', default: '100000' },
    keys: { type: 'string', default: '4000' },
  },
})
const runs = Number(values.runs)
const duration = Number(values.duration)
const LEADS = Number(values.leads)
const KEYS = Number(values.keys)
const CONNECTIONS = 50

// --- setup: an account, its keys, and its leads, written by a child process before the server starts
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-bench-mcp-'))
const store = `sqlite:${path.join(dir, 'leadline.db')}`
const seeded = JSON.parse(
  execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'mcp-seed.ts'), store, String(LEADS), String(KEYS)], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  }).toString('utf8'),
) as Seeded
const { keys, seedSeconds, webhookToken } = seeded
process.stderr.write(`seeded ${LEADS} leads in ${seedSeconds.toFixed(0)} s\n`)

// --- load --------------------------------------------------------------------------------------
const leadline = await serveChild(['bin/leadline.js', 'serve'], { LEADLINE_STORE: store }, 3912)

const callBody = (name: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } })

/** Pushes a new lead to the webhook every 50 ms until stopped; answers how many were accepted. */
function leadsArriving(): () => Promise<number> {
  let n = 0
  let accepted = 0
  const pending: Array<Promise<void>> = []
  const timer = setInterval(() => {
    const i = LEADS + n++
    const phone = benchPhone(i)
    pending.push(
      fetch(`${leadline.url}/api/ingest/lead`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-token': webhookToken },
        body: JSON.stringify({ name: `Arriving ${i}`, phone }),
      }).then((response) => {
        if (response.status < 300) accepted++
      }),
    )
  }, 50)
  return async () => {
    clearInterval(timer)
    await Promise.all(pending)
    return accepted
  }
}

/** One load run: one key per request, round-robin, counting JSON-RPC errors in 200 answers. */
async function run(url: string, body: string, seconds: number, withArrivals = false): Promise<LoadResult> {
  const stopArrivals = withArrivals ? leadsArriving() : null
  const result = await load({
    url,
    connections: CONNECTIONS,
    durationSeconds: seconds,
    pattern: { headers: { 'content-type': 'application/json', authorization: 'Bearer {pick}' }, body, picks: keys },
    countBodyPrefix: '{"jsonrpc":"2.0","id":1,"error"',
  })
  const arrived = (await stopArrivals?.()) ?? 0
  if (withArrivals && arrived < seconds * 15) throw new Error(`only ${arrived} leads arrived in ${seconds} s`)
  return result
}

/** The body Leadline answers to this call (for the floor), after checking it is a result. */
async function answerOf(name: string): Promise<string> {
  const response = await fetch(`${leadline.url}/api/mcp`, { method: 'POST', headers: { authorization: `Bearer ${keys[0] as string}` }, body: callBody(name) })
  const text = await response.text()
  if (!text.includes('"result"')) throw new Error(`${name} failed: ${text}`)
  return text
}
const answers = { get_next_actions: await answerOf('get_next_actions'), list_leads: await answerOf('list_leads') }
const sample = (JSON.parse(answers.get_next_actions) as { result: { structuredContent: { summary: string; stale_leads: unknown[] } } }).result.structuredContent
process.stderr.write(`get_next_actions: ${sample.summary} (${sample.stale_leads.length} stale leads listed)\n`)
const answersFile = path.join(dir, 'answers.json')
fs.writeFileSync(answersFile, JSON.stringify(answers))
const bare = await serveChild(['bench/bare-fastify.server.ts'], { BARE_ANSWERS: answersFile }, 3911)

const scenarios = {
  bare: { url: `${bare.url}/api/ingest/lead`, body: callBody('get_next_actions'), arrivals: false },
  floorGetNextActions: { url: `${bare.url}/answer/get_next_actions`, body: callBody('get_next_actions'), arrivals: false },
  floorListLeads: { url: `${bare.url}/answer/list_leads`, body: callBody('list_leads'), arrivals: false },
  getNextActions: { url: `${leadline.url}/api/mcp`, body: callBody('get_next_actions'), arrivals: false },
  listLeads: { url: `${leadline.url}/api/mcp`, body: callBody('list_leads'), arrivals: false },
  getNextActionsArriving: { url: `${leadline.url}/api/mcp`, body: callBody('get_next_actions'), arrivals: true },
  listLeadsArriving: { url: `${leadline.url}/api/mcp`, body: callBody('list_leads'), arrivals: true },
} as const
type Scenario = keyof typeof scenarios

// A warm-up of every scenario.
for (const name of Object.keys(scenarios) as Scenario[]) await run(scenarios[name].url, scenarios[name].body, 2, scenarios[name].arrivals)

const results = Object.fromEntries(Object.keys(scenarios).map((name) => [name, []])) as unknown as Record<Scenario, LoadResult[]>
for (let round = 1; round <= runs; round++) {
  for (const name of Object.keys(scenarios) as Scenario[]) results[name].push(await run(scenarios[name].url, scenarios[name].body, duration, scenarios[name].arrivals))
  process.stderr.write(`run ${round}/${runs} done\n`)
}

const summary = {
  machine: { cpus: os.cpus().length, node: process.version },
  generator: results.bare[0]?.generator,
  leads: LEADS,
  keys: KEYS,
  connections: CONNECTIONS,
  runs,
  durationSeconds: duration,
  seedSeconds,
  answerBytes: { get_next_actions: Buffer.byteLength(answers.get_next_actions), list_leads: Buffer.byteLength(answers.list_leads) },
  bare: medianResult(results.bare),
  floorGetNextActions: medianResult(results.floorGetNextActions),
  floorListLeads: medianResult(results.floorListLeads),
  getNextActions: medianResult(results.getNextActions),
  listLeads: medianResult(results.listLeads),
  getNextActionsArriving: medianResult(results.getNextActionsArriving),
  listLeadsArriving: medianResult(results.listLeadsArriving),
  rssAfterRunsMb: rssMb(leadline.child.pid as number),
}
await bare.stop()
await leadline.stop()
fs.rmSync(dir, { recursive: true, force: true })

const TARGET = { callsPerSecond: 5000, p99: 10 }
const row = (name: string, r: LoadResult, target: boolean) =>
  `${name.padEnd(34)} ${String(Math.round(r.requestsPerSecond)).padStart(8)} calls/s   p50 ${String(r.p50).padStart(3)} ms   p99 ${String(r.p99).padStart(3)} ms   non-2xx ${r.non2xx}   errors ${r.errors}` +
  (target ? `   ${r.requestsPerSecond >= TARGET.callsPerSecond && r.p99 <= TARGET.p99 && r.counted === 0 ? 'meets' : 'MISSES'} the target` : '')
console.log(`\nbench:mcp — ${LEADS.toLocaleString('en-US')} leads, ${CONNECTIONS} connections, median of ${runs} × ${duration}s, ${summary.machine.cpus} cores, node ${summary.machine.node}, load from ${summary.generator}`)
console.log(row('bare fastify JSON route', summary.bare, false))
console.log(row(`floor: ${summary.answerBytes.get_next_actions} B answered`, summary.floorGetNextActions, true))
console.log(row(`floor: ${summary.answerBytes.list_leads} B answered`, summary.floorListLeads, true))
console.log(row('tools/call get_next_actions', summary.getNextActions, true))
console.log(row('tools/call list_leads', summary.listLeads, true))
console.log(row('get_next_actions, leads arriving', summary.getNextActionsArriving, true))
console.log(row('list_leads, leads arriving', summary.listLeadsArriving, true))
const ratio = (r: LoadResult) => (r.requestsPerSecond / summary.bare.requestsPerSecond).toFixed(2)
const toFloor = (r: LoadResult, floor: LoadResult) => (r.requestsPerSecond / floor.requestsPerSecond).toFixed(2)
console.log(
  `ratio to the floor of the same answer: get_next_actions ${toFloor(summary.getNextActions, summary.floorGetNextActions)}, list_leads ${toFloor(summary.listLeads, summary.floorListLeads)}; while leads arrive: ${toFloor(summary.getNextActionsArriving, summary.floorGetNextActions)}, ${toFloor(summary.listLeadsArriving, summary.floorListLeads)}`,
)
console.log(
  `ratio to bare: get_next_actions ${ratio(summary.getNextActions)}, list_leads ${ratio(summary.listLeads)}; while leads arrive (20/s): ${ratio(summary.getNextActionsArriving)}, ${ratio(summary.listLeadsArriving)}`,
)
console.log(
  `JSON-RPC errors: get_next_actions ${summary.getNextActions.counted}, list_leads ${summary.listLeads.counted}, while leads arrive ${summary.getNextActionsArriving.counted}, ${summary.listLeadsArriving.counted}; server RSS ${summary.rssAfterRunsMb} MB`,
)
fs.mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true })
fs.writeFileSync(path.join(ROOT, 'bench', 'results', `mcp-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(summary, null, 2))
