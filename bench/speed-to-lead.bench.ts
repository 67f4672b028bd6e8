/**
 * bench:speed-to-lead — time from the webhook's 2xx to the call request arriving at a fake Twilio
 * server, per lead: 1,000 new leads round-robin over 100 accounts, sent at a steady rate, against a
 * `leadline serve` child process on the embedded store whose Twilio adapter (the real SDK) points
 * at the fake through TWILIO_API_URL. Reports p50/p99 per run and the median over --runs runs.
 *
 * Every account: speed to lead on, calling hours around the clock, lead-time guard off, a caller id,
 * and --cps calls per second (default 10). At 200 leads/s over 100 accounts an account gets a lead
 * every 500 ms, so a 100 ms spacing never queues a call: pacing does not dominate the measurement.
 *
 *   npm run bench:speed-to-lead [-- --runs 3 --leads 1000 --accounts 100 --rate 200 --cps 10 --keep --cpu-prof DIR]
 */
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { openLeadline } from '../src/leadline.ts'
import { freePort } from '../test/helpers/cli.ts'
import { startFakeTwilio } from '../test/doubles/fake-twilio.ts'
import { ROOT, cpuMicros, median, percentile, serveChild, threadMicrosPer, threadTimes } from './bench-kit.ts'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    leads: { type: 'string', default: '1000' },
    accounts: { type: 'string', default: '100' },
    rate: { type: 'string', default: '200' },
    cps: { type: 'string', default: '10' },
    /** Calls answered by a machine after the runs: Twilio's AMD callback → Leadline's call update (the voicemail). */
    'amd-calls': { type: 'string', default: '300' },
    /** Keep the store afterwards (its path is printed), to read the leads' histories. */
    keep: { type: 'boolean', default: false },
    /** Write a CPU profile of the server to this directory (node --cpu-prof). */
    'cpu-prof': { type: 'string' },
  },
})
const RUNS = Number(values.runs)
const LEADS = Number(values.leads)
const ACCOUNTS = Number(values.accounts)
const RATE = Number(values.rate)
const CPS = Number(values.cps)
const WARM_UP = 200

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

// The fake Twilio account holds one number for each account (a number belongs to one account).
const fake = await startFakeTwilio({ incomingNumbers: Array.from({ length: ACCOUNTS }, (_, i) => `+1312555${String(100 + i).padStart(4, '0')}`) })
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-bench-stl-'))
const store = `sqlite:${path.join(dir, 'leadline.db')}`
const viewsPath = path.join(dir, 'leadline.views.db')
const twilioEnv = { TWILIO_ACCOUNT_SID: fake.accountSid, TWILIO_AUTH_TOKEN: fake.authToken, TWILIO_API_URL: fake.url }

// The accounts, made through the real service before the server starts.
const setup = await openLeadline({ store, viewsPath, env: twilioEnv })
const tokens: string[] = []
for (let i = 0; i < ACCOUNTS; i++) {
  const { webhookToken } = await setup.accounts.create(
    `Bench ${i}`,
    { speedToLead: true, callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, callerId: `+1312555${String(100 + i).padStart(4, '0')}`, callsPerSecond: CPS },
    { actor: { kind: 'operator', id: 'bench' } },
  )
  tokens.push(webhookToken.secret)
}
await setup.close()

const port = await freePort()
const profile = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : []
const server = await serveChild([...profile, 'bin/leadline.js', 'serve'], { LEADLINE_STORE: store, LEADLINE_VIEWS: viewsPath, LEADLINE_PUBLIC_URL: `http://127.0.0.1:${port}`, ...twilioEnv }, port)

// The sender is a client of the service, not the service: plain node:http over kept-alive
// connections costs the shared cores about half of what fetch does (docs/performance.md).
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 })
/** POSTs a lead; resolves with the status and when the answer's head arrived (the 2xx's time, as fetch resolving took it). */
function post(url: string, token: string, body: string): Promise<{ status: number; at: number }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-service-token': token } }, (response) => {
      const at = Date.now()
      response.resume()
      response.once('end', () => resolve({ status: response.statusCode ?? 0, at }))
      response.once('error', reject)
    })
    request.once('error', reject)
    request.end(body)
  })
}

let phoneCounter = 0
/** Sends `count` new leads at RATE a second; returns when each got its 2xx (ms since the epoch), by E.164 phone. */
async function send(count: number): Promise<{ okAt: Map<string, number>; failures: number }> {
  const okAt = new Map<string, number>()
  let failures = 0
  const inFlight: Array<Promise<void>> = []
  const interval = 1000 / RATE
  const start = performance.now()
  for (let i = 0; i < count; i++) {
    const due = start + i * interval
    const wait = due - performance.now()
    if (wait > 1) await sleep(wait)
    // Valid numbers (libphonenumber's full metadata): an invalid one is kept as a lead but never dialed.
    const digits = `737${String(2_000_000 + phoneCounter++).padStart(7, '0')}`
    const token = tokens[i % tokens.length] as string
    const body = JSON.stringify({ phone: digits, name: 'Bench Lead', source: 'bench' })
    inFlight.push(
      post(`${server.url}/api/ingest/lead`, token, body).then(
        ({ status, at }) => {
          if (status === 201) okAt.set(`+1${digits}`, at)
          else failures++
        },
        () => {
          failures++
        },
      ),
    )
  }
  await Promise.all(inFlight)
  return { okAt, failures }
}

/** Waits until every lead in `okAt` has a call request at the fake; returns latencies in ms. */
async function latencies(okAt: Map<string, number>, timeoutMs = 60_000): Promise<{ values: number[]; missing: number }> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const arrived = new Map<string, number>()
    for (const request of fake.callRequests()) {
      const to = request.form.To
      if (typeof to === 'string' && okAt.has(to) && !arrived.has(to)) arrived.set(to, request.receivedAt)
    }
    if (arrived.size === okAt.size || Date.now() > deadline) {
      const values = [...arrived].map(([to, at]) => at - (okAt.get(to) as number)).sort((a, b) => a - b)
      return { values, missing: okAt.size - arrived.size }
    }
    await sleep(50)
  }
}

const loadBefore = os.loadavg()
// Warm up: JIT, prepared statements, every account's cache and pacing lane.
const warm = await send(WARM_UP)
await latencies(warm.okAt)

const runs: Array<{ p50: number; p99: number; max: number; min: number; leads: number; failures: number; missing: number; seconds: number; serverCpuMsPerLead: number; serverCpuMicrosPerLeadByThread: Record<string, number>; benchCpuMicrosPerLead: number }> = []
for (let run = 1; run <= RUNS; run++) {
  const started = Date.now()
  const cpuBefore = cpuMicros(server.child.pid as number)
  const threadsBefore = threadTimes(server.child.pid as number)
  const benchBefore = process.cpuUsage()
  const { okAt, failures } = await send(LEADS)
  const { values: l, missing } = await latencies(okAt)
  const serverCpuMsPerLead = (cpuMicros(server.child.pid as number) - cpuBefore) / 1000 / LEADS
  const benchCpu = process.cpuUsage(benchBefore)
  // The sender and the fake Twilio share the server's cores: what they took is part of the picture.
  const benchCpuMicrosPerLead = Math.round((benchCpu.user + benchCpu.system) / LEADS)
  const perThread = threadMicrosPer(threadsBefore, threadTimes(server.child.pid as number), LEADS)
  runs.push({ p50: percentile(l, 50), p99: percentile(l, 99), min: l[0] ?? NaN, max: l[l.length - 1] ?? NaN, leads: l.length, failures, missing, seconds: (Date.now() - started) / 1000, serverCpuMsPerLead, serverCpuMicrosPerLeadByThread: perThread, benchCpuMicrosPerLead })
  process.stderr.write(`run ${run}/${RUNS}: p50 ${percentile(l, 50)} ms, p99 ${percentile(l, 99)} ms (${l.length} calls, ${missing} missing, ${failures} failed posts, server CPU ${serverCpuMsPerLead.toFixed(2)} ms/lead; µs a lead by thread ${JSON.stringify(perThread)}; the benchmark's own ${benchCpuMicrosPerLead} µs)\n`)
}

// Machine detection: Twilio's signed AMD callback (machine_end_beep) for calls of the last run, 50 a
// second; the time from sending it to Leadline's call update (the voicemail) arriving at the fake.
const AMD_CALLS = Number(values['amd-calls'])
const amdTargets = (AMD_CALLS > 0 ? fake.callRequests().slice(-AMD_CALLS) : []).map((request) => request.sid).filter((sid): sid is string => typeof sid === 'string')
const amdSentAt = new Map<string, number>()
const amdPosts: Array<Promise<unknown>> = []
const amdStart = performance.now()
for (const [i, sid] of amdTargets.entries()) {
  const wait = amdStart + i * 20 - performance.now()
  if (wait > 1) await sleep(wait)
  amdSentAt.set(sid, Date.now())
  amdPosts.push(fake.postAmdCallback(sid, 'machine_end_beep', { via: server.url }))
}
await Promise.all(amdPosts)
const amd = [...amdSentAt].flatMap(([sid, sent]) => {
  const update = fake.callUpdates(sid)[0]
  return update ? [update.receivedAt - sent] : []
}).sort((a, b) => a - b)
const amdSummary = { calls: amdTargets.length, updates: amd.length, p50: percentile(amd, 50), p99: percentile(amd, 99), max: amd[amd.length - 1] ?? NaN }
const loadAfter = os.loadavg()

const duplicates = fake.callRequests().length - new Set(fake.callRequests().map((r) => r.form.To)).size
await server.stop()
await fake.close()
if (values.keep) process.stderr.write(`store kept: ${store}\n`)
else fs.rmSync(dir, { recursive: true, force: true })

const summary = {
  machine: { cpus: os.cpus().length, node: process.version, loadAverageBefore: loadBefore, loadAverageAfter: loadAfter },
  setup: { leads: LEADS, accounts: ACCOUNTS, ratePerSecond: RATE, callsPerSecondPerAccount: CPS, warmUpLeads: WARM_UP, runs: RUNS },
  runs,
  median: { p50: median(runs.map((r) => r.p50)), p99: median(runs.map((r) => r.p99)) },
  duplicateCallRequests: duplicates,
  targetP99Ms: 50,
  machineDetectionToVoicemail: { ...amdSummary, targetP99Ms: 50 },
}

const fmt = (n: number[]) => n.map((x) => x.toFixed(2)).join(' ')
console.log(`\nbench:speed-to-lead — ${LEADS} leads over ${ACCOUNTS} accounts at ${RATE}/s, cps ${CPS} per account, ${RUNS} runs, ${summary.machine.cpus} cores, node ${process.version}`)
console.log('webhook 2xx → call request at the fake Twilio (ms):')
for (const [i, r] of runs.entries()) {
  console.log(`  run ${i + 1}: p50 ${r.p50}  p99 ${r.p99}  min ${r.min}  max ${r.max}  (${r.leads} calls, ${r.missing} missing, ${r.failures} failed posts; server CPU ${r.serverCpuMsPerLead.toFixed(2)} ms per lead, the benchmark's own ${(r.benchCpuMicrosPerLead / 1000).toFixed(2)} ms)`)
}
console.log(`median of ${RUNS}: p50 ${summary.median.p50} ms, p99 ${summary.median.p99} ms (target p99 ≤ 50 ms: ${summary.median.p99 <= 50 ? 'met' : 'NOT met'})`)
console.log(`duplicate call requests: ${duplicates}`)
console.log(`AMD callback (machine_end_beep) → call update at the fake Twilio: p50 ${amdSummary.p50} ms, p99 ${amdSummary.p99} ms, max ${amdSummary.max} ms (${amdSummary.updates} voicemails for ${amdSummary.calls} callbacks; target p99 ≤ 50 ms: ${amdSummary.p99 <= 50 ? 'met' : 'NOT met'})`)
console.log(`load average (1/5/15 min) before ${fmt(loadBefore)}, after ${fmt(loadAfter)}`)
fs.mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true })
fs.writeFileSync(path.join(ROOT, 'bench', 'results', `speed-to-lead-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(summary, null, 2))
