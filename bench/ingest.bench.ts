/**
 * bench:ingest — durable leads/s and latency at 50 connections for (a) new leads and (b) repeats of
 * existing leads, against a bare fastify POST route measured in the same run (the baseline). Repeats
 * come two ways: of people seen seconds ago, whose lead state the server still holds in memory, and
 * of people seen long ago (more of them than it holds), whose streams it must read first.
 * Medians of --runs runs (default 3) of --duration seconds (default 10), scenarios interleaved; the
 * ratio to bare is also taken run by run (the median of those is steadier on a busy machine), and
 * every run records the load average and the server's CPU time per lead (all its threads). The
 * disk's own fdatasync latency, measured in the same directory while the servers are idle, is the
 * baseline of the durable part: a stall of the disk's flush is a stall of every request in flight.
 * `--million` then pushes 1,000,000 new leads and reports the server's RSS. `--receivers N` subscribes N
 * receivers (HTTP servers in this process answering 204) to the account's outbound events, so every
 * lead is also delivered N times, signed; it reports the events delivered per second during the runs
 * and how long each run's backlog took to drain after it (the next run starts once it has: the server
 * defers its deliveries while it takes a flood, and a run should not pay for the one before).
 *
 *   npm run bench:ingest [-- --runs 3 --duration 10 --million --receivers 3 --port 3901]
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import Database from 'better-sqlite3'
import { openLeadline } from '../src/leadline.ts'
import type { RequestPattern } from './wrk-driver.ts'
import { describeProbe, probeFsync } from './disk-probe.ts'
import { COLD_REPEAT_POOL, ROOT, newLeadsPattern, repeatLeadsPattern, seedRepeatPool, cpuMicros, load, load1, median, medianResult, peakRssMb, rssMb, rssParts, scrapeMetrics, operatorAccessForBench, serveChild, startCountingReceiver, type LoadResult } from './bench-kit.ts'

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, duration: { type: 'string', default: '10' }, million: { type: 'boolean', default: false }, receivers: { type: 'string', default: '0' }, port: { type: 'string', default: '3901' } },
})
const runs = Number(values.runs)
const duration = Number(values.duration)
const CONNECTIONS = 50

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-bench-'))
const store = `sqlite:${path.join(dir, 'leadline.db')}`
// The receivers listen on 127.0.0.1: LEADLINE_EVENTS_ALLOW_PRIVATE, for the subscription and the server alike.
const setup = await openLeadline({ store, viewsPath: path.join(dir, 'leadline.views.db'), eventReceivers: { allowPrivate: true } })
const { account, webhookToken } = await setup.accounts.create('Bench', {}, { actor: { kind: 'operator', id: 'bench' } })
const receivers = await Promise.all(Array.from({ length: Number(values.receivers) }, () => startCountingReceiver()))
for (const receiver of receivers) await setup.eventSubscriptions.subscribe(account.accountId, receiver.url, null, { actor: { kind: 'operator', id: 'bench' } })
await setup.close()
const delivered = () => receivers.reduce((n, r) => n + r.count(), 0)

// --port: the bare route's port, Leadline's the next one (another benchmark may hold the defaults).
const bare = await serveChild(['bench/bare-fastify.server.ts'], {}, Number(values.port))
// One token carries the whole load: the per-token rate limit stays on (its cost is measured) but far above it.
const operator = operatorAccessForBench()
const leadline = await serveChild(['bin/leadline.js', 'serve'], { LEADLINE_STORE: store, LEADLINE_EVENTS_ALLOW_PRIVATE: '1', LEADLINE_WEBHOOK_RATE: '1000000', LEADLINE_WEBHOOK_BURST: '1000000', ...operator.env }, Number(values.port) + 1)
const headers = { 'content-type': 'application/json', 'x-service-token': webhookToken.secret }

const NEW_LEADS_FROM = 125_000_000
/** New leads sent to Leadline so far: each run starts its numbering where the last ended. */
let counter = 0
const newLead = () => newLeadsPattern(headers, NEW_LEADS_FROM + counter)
/** The bare route's bodies are numbered apart, so its runs do not use up Leadline's count. */
const bareLead = newLeadsPattern(headers, 500_000_000)
const repeatLead = repeatLeadsPattern(headers)
const coldRepeatLead = repeatLeadsPattern(headers, COLD_REPEAT_POOL)

// Seed the repeat pools, and warm both servers up.
await seedRepeatPool(leadline.url, headers)
await seedRepeatPool(leadline.url, headers, COLD_REPEAT_POOL)
const coldSeeded = readLog((db) => (db.prepare("SELECT count(DISTINCT stream) AS n FROM events WHERE type = 'LeadReceived' AND stream >= ? AND stream < ?").get(`lead-${account.accountId}-3${COLD_REPEAT_POOL.first}`, `lead-${account.accountId}-3${COLD_REPEAT_POOL.first + COLD_REPEAT_POOL.size}`) as { n: number }).n)
if (coldSeeded < COLD_REPEAT_POOL.size) throw new Error(`seeding the cold repeat pool: ${coldSeeded} of ${COLD_REPEAT_POOL.size} people in the log`)
await load({ url: `${bare.url}/api/ingest/lead`, connections: CONNECTIONS, durationSeconds: 2, pattern: bareLead })

// The seeding's own deliveries go out first, so the runs measure intake with the deliveries of their own leads only.
const seedDrain = await drain()
if (seedDrain) process.stderr.write(`deliveries of the seeding: ${seedDrain.pendingAtEnd} drained in ${seedDrain.seconds.toFixed(1)} s (${seedDrain.eventsPerSecond}/s)\n`)

// The disk's baseline, where the store is, before the runs (the servers are idle).
const PROBE_SECONDS = 10
const disk = probeFsync({ dir, seconds: PROBE_SECONDS })
process.stderr.write(`${describeProbe(disk, PROBE_SECONDS)}\n`)

const results: Record<'bare' | 'newLeads' | 'repeats' | 'coldRepeats', LoadResult[]> = { bare: [], newLeads: [], repeats: [], coldRepeats: [] }
const perRun: Array<{ load: [number, number]; ratioNew: number; ratioRepeats: number; ratioColdRepeats: number; cpuMicrosPerLead: { newLeads: number; repeats: number; coldRepeats: number } }> = []
/** One scenario against the Leadline server, with the server's CPU time per request. */
const eventsPerSecond: number[] = []
const drains: Array<NonNullable<Awaited<ReturnType<typeof drain>>>> = []
async function leadlineRun(pattern: RequestPattern, countsNew: boolean): Promise<{ result: LoadResult; cpuPerLead: number }> {
  const pid = leadline.child.pid as number
  const before = cpuMicros(pid)
  const deliveredBefore = delivered()
  const result = await load({ url: `${leadline.url}/api/ingest/lead`, connections: CONNECTIONS, durationSeconds: duration, pattern })
  if (receivers.length > 0 && countsNew) eventsPerSecond.push(Math.round((delivered() - deliveredBefore) / duration))
  // Every request sent was a new number, answered or not. The numbers are dealt out to the load
  // generator's threads in turn and a thread may send more than another, so the count of requests
  // does not say where they reached: the log does. Requests still in flight at the end are each
  // thread's last, so a margin above the highest number in the log skips them.
  if (countsNew) counter = highestNewLead() - NEW_LEADS_FROM + 1 + 4 * CONNECTIONS
  const cpuPerLead = Math.round((cpuMicros(pid) - before) / Math.max(result.total, 1))
  // The run's own deliveries go out before the next run: each run is intake with its deliveries
  // waiting, as in a flood, and does not pay for the run before it.
  const drained = await drain()
  if (drained) drains.push(drained)
  return { result, cpuPerLead }
}
for (let run = 1; run <= runs; run++) {
  const loadBefore = load1()
  const bareRun = await load({ url: `${bare.url}/api/ingest/lead`, connections: CONNECTIONS, durationSeconds: duration, pattern: bareLead })
  const newRun = await leadlineRun(newLead(), true)
  const repeatRun = await leadlineRun(repeatLead, false)
  const coldRepeatRun = await leadlineRun(coldRepeatLead, false)
  results.bare.push(bareRun)
  results.newLeads.push(newRun.result)
  results.repeats.push(repeatRun.result)
  results.coldRepeats.push(coldRepeatRun.result)
  perRun.push({
    load: [loadBefore, load1()],
    ratioNew: newRun.result.requestsPerSecond / bareRun.requestsPerSecond,
    ratioRepeats: repeatRun.result.requestsPerSecond / bareRun.requestsPerSecond,
    ratioColdRepeats: coldRepeatRun.result.requestsPerSecond / bareRun.requestsPerSecond,
    cpuMicrosPerLead: { newLeads: newRun.cpuPerLead, repeats: repeatRun.cpuPerLead, coldRepeats: coldRepeatRun.cpuPerLead },
  })
  process.stderr.write(`run ${run}/${runs} done (load ${loadBefore} → ${load1()})\n`)
}

/**
 * How long the deliveries still to go took to go out, and how many there were: those written and
 * pending, and the events that waited (the server defers writing them while it takes a flood).
 */
async function drain(): Promise<{ pendingAtEnd: number; seconds: number; left: number; eventsPerSecond: number } | null> {
  if (receivers.length === 0) return null
  const pending = () => readViews((db) => (db.prepare("SELECT count(*) AS n FROM outbound_deliveries WHERE status = 'pending'").get() as { n: number }).n)
  const waiting = () => {
    const head = readLog((db) => (db.prepare('SELECT max(position) AS p FROM events').get() as { p: number | null }).p ?? 0)
    const at = readViews((db) => (db.prepare("SELECT position FROM process_checkpoints WHERE name = 'outbound-events'").get() as { position: number } | undefined)?.position ?? head)
    return head - at
  }
  const pendingAtEnd = pending()
  const waitingAtEnd = waiting()
  const started = Date.now()
  const from = delivered()
  while ((pending() > 0 || waiting() > 0) && Date.now() - started < 240_000) await new Promise((resolve) => setTimeout(resolve, 250))
  const seconds = (Date.now() - started) / 1000
  const sent = delivered() - from
  return { pendingAtEnd: Math.max(pendingAtEnd, sent), seconds, left: pending() + waiting() * receivers.length, eventsPerSecond: Math.round(sent / Math.max(seconds, 0.001)), ...(waitingAtEnd > 0 ? { eventsWaitingAtEnd: waitingAtEnd } : {}) }
}
const drained = await drain()

const summary = {
  outboundEvents: receivers.length === 0 ? null : { receivers: receivers.length, deliveredPerSecondDuringNewLeads: median(eventsPerSecond), drainsBetweenRuns: drains.map((d) => ({ deliveries: d.pendingAtEnd, seconds: Number(d.seconds.toFixed(1)), perSecond: d.eventsPerSecond, left: d.left })), drain: drained, delivered: delivered() },
  machine: { cpus: os.cpus().length, node: process.version },
  generator: results.bare[0]?.generator,
  connections: CONNECTIONS,
  runs,
  durationSeconds: duration,
  disk,
  bare: medianResult(results.bare),
  newLeads: medianResult(results.newLeads),
  repeats: medianResult(results.repeats),
  coldRepeats: medianResult(results.coldRepeats),
  /** Medians of the run-by-run ratios to the bare route. */
  ratio: { newLeads: median(perRun.map((r) => r.ratioNew)), repeats: median(perRun.map((r) => r.ratioRepeats)), coldRepeats: median(perRun.map((r) => r.ratioColdRepeats)) },
  cpuMicrosPerLead: {
    newLeads: median(perRun.map((r) => r.cpuMicrosPerLead.newLeads)),
    repeats: median(perRun.map((r) => r.cpuMicrosPerLead.repeats)),
    coldRepeats: median(perRun.map((r) => r.cpuMicrosPerLead.coldRepeats)),
  },
  perRun,
  rssAfterRunsMb: rssMb(leadline.child.pid as number),
  million: null as null | {
    leads: number; seconds: number; leadsPerSecond: number; p50: number; p90: number; p99: number; max: number; rssMb: number; rssParts: ReturnType<typeof rssParts>; mainHeap: { usedMb: number; totalMb: number; externalMb: number }; peakRssMb: number; highWaterRssMb: number; errors: number; load: [number, number]
  },
}

/** Runs `query` on the database file as the server left it, read-only. */
function readLog<T>(query: (db: Database.Database) => T): T {
  const db = new Database(store.slice('sqlite:'.length), { readonly: true, fileMustExist: true })
  try {
    return query(db)
  } finally {
    db.close()
  }
}

/** Runs `query` on the read models' database as the server keeps it, read-only. */
function readViews<T>(query: (db: Database.Database) => T): T {
  const db = new Database(path.join(dir, 'leadline.views.db'), { readonly: true, fileMustExist: true })
  try {
    return query(db)
  } finally {
    db.close()
  }
}

/** A subscriber that counts what it is sent and answers 204 (it does not verify: the tests do). */

/** New leads the log holds (LeadReceived events). */
function leadsInLog(): number {
  return readLog((db) => (db.prepare("SELECT count(*) AS n FROM events WHERE type = 'LeadReceived'").get() as { n: number }).n)
}

/** The highest number of a new lead (phone 2{n}) in the log. */
function highestNewLead(): number {
  const prefix = `lead-${account.accountId}-2`
  const row = readLog((db) => db.prepare("SELECT max(stream) AS stream FROM events WHERE type = 'LeadReceived' AND stream >= ? AND stream < ?").get(prefix, `lead-${account.accountId}-3`) as { stream: string | null })
  return row.stream === null ? NEW_LEADS_FROM : Number(row.stream.slice(prefix.length))
}

if (values.million) {
  const target = 1_000_000
  const already = leadsInLog()
  const loadBefore = load1()
  const started = Date.now()
  let sampledPeakMb = 0
  const sampler = setInterval(() => {
    const now = rssMb(leadline.child.pid as number)
    sampledPeakMb = Math.max(sampledPeakMb, now)
    const parts = rssParts(leadline.child.pid as number)
    process.stderr.write(`${Math.round((Date.now() - started) / 1000)} s: RSS ${now} MB (private ${parts.anonymous}, files ${parts.file}, shared ${parts.shared}), load ${load1()}\n`)
  }, 15_000)
  const r = await load({ url: `${leadline.url}/api/ingest/lead`, connections: CONNECTIONS, amount: Math.max(target - already, 0), pattern: newLead() })
  clearInterval(sampler)
  const seconds = (Date.now() - started) / 1000
  const scraped = await scrapeMetrics(leadline.url, operator.headers)
  const metrics = { heapUsedBytes: scraped.get('nodejs_heap_size_used_bytes') ?? 0, heapTotalBytes: scraped.get('nodejs_heap_size_total_bytes') ?? 0, externalBytes: scraped.get('nodejs_external_memory_bytes') ?? 0 }
  summary.million = {
    leads: leadsInLog(), seconds, leadsPerSecond: Math.round(r.total / seconds), p50: r.p50, p90: r.p90, p99: r.p99, max: r.max,
    rssMb: rssMb(leadline.child.pid as number), rssParts: rssParts(leadline.child.pid as number), mainHeap: { usedMb: Math.round(metrics.heapUsedBytes / 2 ** 20), totalMb: Math.round(metrics.heapTotalBytes / 2 ** 20), externalMb: Math.round(metrics.externalBytes / 2 ** 20) }, peakRssMb: sampledPeakMb, highWaterRssMb: peakRssMb(leadline.child.pid as number), errors: r.errors + r.non2xx, load: [loadBefore, load1()],
  }
}

await bare.stop()
await leadline.stop()
for (const receiver of receivers) await receiver.close()
fs.rmSync(dir, { recursive: true, force: true })

const row = (name: string, r: LoadResult) =>
  `${name.padEnd(22)} ${String(Math.round(r.requestsPerSecond)).padStart(8)} req/s   p50 ${r.p50.toFixed(2)} ms   p90 ${r.p90.toFixed(2)} ms   p99 ${r.p99.toFixed(2)} ms   max ${r.max.toFixed(0)} ms   non-2xx ${r.non2xx}   errors ${r.errors}`
console.log(`\nbench:ingest — ${CONNECTIONS} connections, median of ${runs} × ${duration}s, ${summary.machine.cpus} cores, node ${summary.machine.node}, load from ${summary.generator}`)
console.log(row('bare fastify route', summary.bare))
console.log(row('leadline: new leads', summary.newLeads))
console.log(row('leadline: repeats', summary.repeats))
console.log(row('  … of people long ago', summary.coldRepeats))
console.log(describeProbe(disk, PROBE_SECONDS))
const ofBare = (r: LoadResult) => (r.requestsPerSecond / summary.bare.requestsPerSecond).toFixed(2)
console.log(`ratio to bare (of medians): new ${ofBare(summary.newLeads)}, repeats ${ofBare(summary.repeats)}, repeats long after ${ofBare(summary.coldRepeats)}`)
console.log(`ratio to bare (median of runs): new ${summary.ratio.newLeads.toFixed(2)}, repeats ${summary.ratio.repeats.toFixed(2)}, repeats long after ${summary.ratio.coldRepeats.toFixed(2)}`)
console.log(`server CPU per lead (all threads): new ${summary.cpuMicrosPerLead.newLeads} µs, repeats ${summary.cpuMicrosPerLead.repeats} µs, repeats long after ${summary.cpuMicrosPerLead.coldRepeats} µs`)
console.log(`load average (1 min) per run: ${perRun.map((r) => `${r.load[0]}→${r.load[1]}`).join(', ')}`)
console.log(`server RSS after the runs: ${summary.rssAfterRunsMb} MB`)
if (summary.outboundEvents) {
  const o = summary.outboundEvents
  const between = o.drainsBetweenRuns
  if (between.length > 0) console.log(`outbound events after each run: ${between.map((d) => `${d.deliveries} in ${d.seconds} s`).join(', ')}; median ${median(between.map((d) => d.perSecond))} delivered/s${between.some((d) => d.left > 0) ? ' (some runs left deliveries pending: see the JSON)' : ''}`)
  console.log(`outbound events to ${o.receivers} receivers: ${o.deliveredPerSecondDuringNewLeads} delivered/s during the new-leads runs (median); ${o.drain?.pendingAtEnd ?? 0} pending after the runs, ${o.drain?.left ? `${o.drain.left} still pending after` : 'drained in'} ${o.drain?.seconds.toFixed(1)} s (${o.drain?.eventsPerSecond} delivered/s); ${o.delivered} in all`)
}
if (summary.million) {
  const m = summary.million
  console.log(`1,000,000 leads: ${m.seconds.toFixed(0)} s (${m.leadsPerSecond} leads/s, p50 ${m.p50} ms, p90 ${m.p90} ms, p99 ${m.p99} ms, max ${m.max.toFixed(0)} ms), RSS ${m.rssMb} MB at the end (peak sampled ${m.peakRssMb} MB; the process's high-water mark since start ${m.highWaterRssMb} MB), errors ${m.errors}, load ${m.load[0]}→${m.load[1]}`)
  console.log(`  of the RSS at the end: private ${m.rssParts.anonymous} MB, mapped files ${m.rssParts.file} MB, shared memory ${m.rssParts.shared} MB; main thread's JavaScript heap ${m.mainHeap.totalMb} MB (${m.mainHeap.usedMb} MB in use), external ${m.mainHeap.externalMb} MB`)
}
fs.mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true })
fs.writeFileSync(path.join(ROOT, 'bench', 'results', `ingest-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(summary, null, 2))
