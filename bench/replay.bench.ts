/**
 * bench:replay — replays a log of 1,000,000 realistic events (leads received, listed, updated;
 * speed to lead; calls placed, answered or not; follow-ups) into every projection, and compares it
 * with a raw scan of the same rows (SELECT * FROM events + JSON.parse) in the same run. Each
 * measurement runs in a child process of its own, so its peak RSS is its own; median of --runs
 * (default 3), scan and replay interleaved. The replay runs with the heap bound `leadline replay`
 * runs with (src/cli/batch-heap.ts). Targets: >= 100,000 events/s, peak RSS <= 300 MB.
 *
 *   npm run bench:replay [-- --runs 3 --events 1000000 --log PATH --keep --cpu-prof]
 *
 * --log PATH reuses a log generated before (--keep leaves the generated one and prints its path);
 * --cpu-prof writes a V8 CPU profile of each replay child to bench/results/.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import type { AccountEvent } from '../src/domain/account/account.events.ts'
import { DEFAULT_SETTINGS } from '../src/domain/account/account-settings.ts'
import type { LeadEvent } from '../src/domain/lead/lead.events.ts'
import { schemaVersionOf } from '../src/domain/upcasters.ts'
import type { Actor, NewEvent } from '../src/domain/event.ts'
import { BATCH_HEAP_FLAGS } from '../src/cli/batch-heap.ts'
import { openSqliteEventStore } from '../src/eventstore/sqlite/index.ts'
import { PROJECTIONS } from '../src/leadline.ts'
import { median, ROOT } from './bench-kit.ts'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    events: { type: 'string', default: '1000000' },
    log: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'cpu-prof': { type: 'boolean', default: false },
  },
})

import type { ReplayRun, ScanResult } from './replay-child.ts'

// ---------------------------------------------------------------------------------------------
// The log: accounts, then leads in waves, their events interleaved as a busy day's would be.

const META = (actor: Actor, type: string, correlationId: string): NewEvent['metadata'] => ({ correlationId, causationId: null, actor, schemaVersion: schemaVersionOf(type) })
const ev = (event: LeadEvent | AccountEvent, actor: Actor, correlationId: string): NewEvent => ({ type: event.type, data: event.data, metadata: META(actor, event.type, correlationId) })

const ACCOUNTS = 20
const accountId = (a: number) => `acc_bench${String(a).padStart(11, '0')}`
const process_ = (id: string): Actor => ({ kind: 'process', id })
const carrier: Actor = { kind: 'carrier', id: 'twilio' }
const SOURCES = ['Facebook Lead Ads', 'Google Ads', 'Website', 'Referral', 'Zapier']

/** One lead's events, in three phases: arrival, what speed to lead and the dialer did, later submissions and follow-ups. */
function leadStory(n: number, base: number): NewEvent[][] {
  const account = accountId(n % ACCOUNTS)
  const leadId = `ld_b${String(n).padStart(15, '0')}`
  const phone = `+1${String(2_000_000_000 + n)}`
  const token: Actor = { kind: 'webhook_token', id: `wht_bench${String(n % ACCOUNTS).padStart(11, '0')}` }
  const at = (seconds: number) => new Date(base + seconds * 1000).toISOString()
  const corr = `c${n}`
  const fields = {
    phone, phoneLast10: phone.slice(-10), phoneRaw: `(${phone.slice(2, 5)}) ${phone.slice(5, 8)}-${phone.slice(8)}`,
    fullName: `Lead Person ${n}`, firstName: 'Lead', lastName: `Person ${n}`, email: `lead${n}@example.com`, state: ['TX', 'CA', 'FL', 'NY'][n % 4] as string,
    source: SOURCES[n % SOURCES.length] as string, ...(n % 3 === 0 ? { vendor: 'LeadCo' } : {}),
    industryFields: (n % 2 ? { monthly_bill: String(100 + (n % 200)) } : {}) as Record<string, string>,
    extraFields: n % 5 === 0 ? [{ name: 'utm_campaign', value: `spring-${n % 7}` }] : [],
  }
  const arrival = [
    ev({ type: 'LeadReceived', data: { leadId, accountId: account, fields, receivedAt: at(0) } }, token, corr),
    ev({ type: 'LeadAddedToList', data: { leadId, listId: 'inbound-leads', listName: 'Inbound Leads' } }, token, corr),
  ]
  const kind = n % 20
  if (kind < 8) {
    // Outside calling hours: skipped, then submitted again later.
    return [
      [...arrival, ev({ type: 'SpeedToLeadSkipped', data: { leadId, reason: 'outside_calling_hours', message: 'outside the account calling hours', nextAllowedAt: at(3600), skippedAt: at(1) } }, process_('speed-to-lead'), corr)],
      [],
      kind < 3 ? [ev({ type: 'LeadUpdated', data: { leadId, changes: { email: `lead${n}@new.example.com` }, industryFields: {}, extraFields: [], updatedAt: at(900) } }, token, `u${n}`)] : [],
    ]
  }
  const call = (decisionId: string, purpose: 'speed_to_lead' | 'follow_up', attempt: number, t0: number, answered: boolean): NewEvent[] => {
    const callId = `CA${decisionId}`
    return [
      ev({ type: 'CallDecided', data: { leadId, decisionId, purpose, attempt, from: '+15125550100', to: phone, decidedAt: at(t0), idempotencyKey: null } }, process_(purpose === 'speed_to_lead' ? 'speed-to-lead' : 'follow-up'), corr),
      ev({ type: 'CallAttemptStarted', data: { decisionId, node: 'node-1', startedAt: at(t0) } }, process_('dialer'), corr),
      ev({ type: 'CallPlaced', data: { decisionId, callId, carrier: 'twilio', placedAt: at(t0 + 1) } }, process_('dialer'), corr),
      ...(answered
        ? [
            ev({ type: 'CallAnswered', data: { decisionId, callId, answeredBy: 'human', at: at(t0 + 9) } }, carrier, corr),
            ev({ type: 'CallCompleted', data: { decisionId, callId, durationSeconds: 64, at: at(t0 + 73) } }, carrier, corr),
          ]
        : [ev({ type: 'CallNotAnswered', data: { decisionId, callId, status: 'no-answer', at: at(t0 + 30) } }, carrier, corr)]),
    ]
  }
  const first = call(`d${n}a`, 'speed_to_lead', 1, 1, kind >= 17)
  if (kind >= 17) return [[...arrival, ...first], [], []]
  return [
    [...arrival, ...first.slice(0, 3)],
    [...first.slice(3), ev({ type: 'FollowUpScheduled', data: { leadId, attempt: 2, dueAt: at(631), afterDecisionId: `d${n}a` } }, carrier, corr)],
    [
      ...call(`d${n}b`, 'follow_up', 2, 631, kind % 2 === 0),
      ...(kind % 2 === 0
        ? [ev({ type: 'FollowUpStopped', data: { reason: 'answered', message: 'the lead answered', at: at(640) } }, carrier, corr)]
        : [ev({ type: 'FollowUpStopped', data: { reason: 'policy_off', message: 'follow-up is off for this account', at: at(661) } }, carrier, corr)]),
      ev({ type: 'LeadUpdated', data: { leadId, changes: {}, industryFields: {}, extraFields: [], updatedAt: at(700) } }, token, `u${n}`),
    ],
  ]
}

async function generate(file: string, total: number): Promise<number> {
  const store = openSqliteEventStore({ path: file })
  const operator: Actor = { kind: 'operator', id: 'bench' }
  let written = 0
  for (let a = 0; a < ACCOUNTS; a++) {
    const id = accountId(a)
    const events = [
      ev({ type: 'AccountCreated', data: { accountId: id, name: `Bench ${a}`, settings: DEFAULT_SETTINGS, createdAt: new Date().toISOString() } }, operator, `a${a}`),
      ev({ type: 'WebhookTokenIssued', data: { tokenId: `wht_bench${String(a).padStart(11, '0')}`, tokenHash: `${a}`.padStart(64, 'a'), hint: 'llwh_abcd…', issuedAt: new Date().toISOString() } }, operator, `a${a}`),
      ev({ type: 'ApiKeyCreated', data: { keyId: `key_bench${String(a).padStart(11, '0')}`, keyHash: `${a}`.padStart(64, 'b'), hint: 'll_live_abcd…', scopes: ['read', 'dial'], label: null, createdAt: new Date().toISOString() } }, operator, `a${a}`),
    ]
    await store.appendToStream(`account-${id}`, events, 'no_stream')
    written += events.length
  }
  const WAVE = 500
  const started = performance.now()
  const base = Date.parse('2026-03-02T14:00:00Z')
  for (let wave = 0; written < total; wave++) {
    const stories: Array<{ stream: string; phases: NewEvent[][]; revision: number }> = []
    for (let i = 0; i < WAVE && written < total; i++) {
      const n = wave * WAVE + i
      const phases = leadStory(n, base + n * 600)
      // The last lead is cut so that the log holds exactly `total` events.
      let room = total - written
      const cut = phases.map((phase) => {
        const kept = phase.slice(0, Math.max(0, room))
        room -= kept.length
        return kept
      })
      written += cut.reduce((sum, phase) => sum + phase.length, 0)
      stories.push({ stream: `lead-${accountId(n % ACCOUNTS)}-${String(2_000_000_000 + n).slice(-10)}`, phases: cut, revision: -1 })
    }
    for (let phase = 0; phase < 3; phase++) {
      await Promise.all(
        stories.map(async (story) => {
          const events = story.phases[phase] as NewEvent[]
          if (events.length === 0) return
          const result = await store.appendToStream(story.stream, events, story.revision === -1 ? 'no_stream' : story.revision)
          story.revision = result.nextExpectedRevision
        }),
      )
    }
    if (wave % 40 === 0) process.stderr.write(`\rgenerating: ${written.toLocaleString('en-US')} events (${Math.round((written / (performance.now() - started)) * 1000).toLocaleString('en-US')}/s)   `)
  }
  await store.close()
  process.stderr.write('\n')
  return written
}

function child<T>(mode: 'scan' | 'replay', log: string, extraNode: string[] = []): Promise<T> {
  const views = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-bench-views-'))
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...extraNode, '--import', 'tsx', path.join(ROOT, 'bench', 'replay-child.ts'), mode, log, views],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        fs.rmSync(views, { recursive: true, force: true })
        if (error) return reject(new Error(`${mode} child failed: ${stderr || error.message}`))
        resolve(JSON.parse(stdout.trim().split('\n').pop() as string) as T)
      },
    )
  })
}

const total = Number(values.events)
const runs = Number(values.runs)
const generatedDir = values.log === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-bench-replay-')) : null
const log = values.log ?? path.join(generatedDir as string, 'leadline.db')
let generation: { events: number; seconds: number } | null = null
if (!fs.existsSync(log)) {
  const started = performance.now()
  const events = await generate(log, total)
  generation = { events, seconds: (performance.now() - started) / 1000 }
}
const resultsDir = path.join(ROOT, 'bench', 'results')
fs.mkdirSync(resultsDir, { recursive: true })
const profile = values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', resultsDir] : []

const scans: ScanResult[] = []
const replays: ReplayRun[] = []
for (let run = 1; run <= runs; run++) {
  scans.push(await child('scan', log))
  replays.push(await child('replay', log, [...BATCH_HEAP_FLAGS, ...profile]))
  process.stderr.write(`run ${run}/${runs}: scan ${Math.round(scans[run - 1]?.ms ?? 0)} ms, replay ${Math.round(replays[run - 1]?.ms ?? 0)} ms\n`)
}

const perSecond = (r: ScanResult) => (r.events / r.ms) * 1000
const perCpuSecond = (r: ScanResult) => (r.events / r.cpuMs) * 1000
const summary = {
  machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? '', node: process.version, loadAverage: os.loadavg() },
  events: replays[0]?.events ?? 0,
  logMb: Math.round(fs.statSync(log).size / 1024 / 1024),
  generation,
  runs,
  scan: { eventsPerSecond: median(scans.map(perSecond)), eventsPerCpuSecond: median(scans.map(perCpuSecond)), ms: median(scans.map((r) => r.ms)), peakRssMb: median(scans.map((r) => r.maxRssMb)) },
  replay: {
    eventsPerSecond: median(replays.map(perSecond)),
    eventsPerCpuSecond: median(replays.map(perCpuSecond)),
    ms: median(replays.map((r) => r.ms)),
    switchMs: median(replays.map((r) => r.switchMs)),
    peakRssMb: median(replays.map((r) => r.maxRssMb)),
    maxPeakRssMb: Math.max(...replays.map((r) => r.maxRssMb)),
    digests: [...new Set(replays.map((r) => r.digest))],
  },
  targets: { eventsPerSecond: 100_000, peakRssMb: 300 },
}
const ratio = summary.replay.eventsPerSecond / summary.scan.eventsPerSecond

const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
console.log(`\nbench:replay — ${fmt(summary.events)} events (${summary.logMb} MB log) into ${PROJECTIONS.map((p) => p.name).join(', ')}; median of ${runs}; ${summary.machine.cpus} cores, node ${summary.machine.node}, load ${summary.machine.loadAverage.map((l) => l.toFixed(1)).join(' ')}`)
console.log(`raw scan (SELECT * + JSON.parse)  ${fmt(summary.scan.eventsPerSecond).padStart(10)} events/s (${fmt(summary.scan.eventsPerCpuSecond)} per CPU-second)  ${fmt(summary.scan.ms).padStart(7)} ms  peak RSS ${summary.scan.peakRssMb} MB`)
console.log(`replay into every projection      ${fmt(summary.replay.eventsPerSecond).padStart(10)} events/s (${fmt(summary.replay.eventsPerCpuSecond)} per CPU-second)  ${fmt(summary.replay.ms).padStart(7)} ms  peak RSS ${summary.replay.peakRssMb} MB (max ${summary.replay.maxPeakRssMb})  switch ${fmt(summary.replay.switchMs)} ms`)
console.log(`replay / raw scan: ${ratio.toFixed(2)} (per CPU-second ${(summary.replay.eventsPerCpuSecond / summary.scan.eventsPerCpuSecond).toFixed(2)}); targets: >= 100,000 events/s ${summary.replay.eventsPerSecond >= 100_000 ? 'met' : 'NOT met'}, RSS <= 300 MB ${summary.replay.maxPeakRssMb <= 300 ? 'met' : 'NOT met'}; digests ${summary.replay.digests.length === 1 ? 'identical' : 'DIFFER'} across runs`)
fs.writeFileSync(path.join(resultsDir, `replay-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ ...summary, ratio }, null, 2))

if (generatedDir !== null) {
  if (values.keep) console.log(`log kept at ${log} (reuse it with --log ${log})`)
  else fs.rmSync(generatedDir, { recursive: true, force: true })
}
