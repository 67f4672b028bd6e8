/**
 * bench:console's book, made once and kept under .cache/bench-console/: one account (America/Chicago)
 * with an owner who can sign in and a read key, and LEADS leads over the last 120 days whose events
 * total EVENTS (a lead received and never called: 1 event; called, no answer: 5; called and answered:
 * 6, some of them paid), written straight to the embedded log in waves of concurrent appends; then
 * `leadline replay` builds every read model from it, as an operator would.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { loadConfig } from '../src/config/config.ts'
import type { Actor, NewEvent } from '../src/domain/event.ts'
import { schemaVersionOf } from '../src/domain/upcasters.ts'
import { openLeadline, PROJECTIONS } from '../src/leadline.ts'
import { openViewsDatabase } from '../src/read-models/views-database.ts'
import { ROOT } from './bench-kit.ts'

export const SEED_VERSION = 1
export const BENCH_EMAIL = 'owner@bench.example.com'
export const BENCH_PASSWORD = 'correct horse battery staple'
const SOURCES = ['Google Ads', 'Facebook', 'Website', 'Referral', 'Zapier', 'Angi']
const DAY_MS = 86_400_000
const SPAN_DAYS = 120

export interface ConsoleSeed {
  readonly version: number
  readonly leads: number
  readonly events: number
  readonly accountId: string
  readonly readKey: string
  /** A lead with calls, for the lead page. */
  readonly leadId: string
  readonly seconds: number
}

const meta = (type: string, actor: Actor): NewEvent['metadata'] => ({ correlationId: 'bench', causationId: null, actor, schemaVersion: schemaVersionOf(type) })
const ev = (type: string, data: object, actor: Actor): NewEvent => ({ type, data, metadata: meta(type, actor) })
const token: Actor = { kind: 'webhook_token', id: 'wht_bench' }
const dialer: Actor = { kind: 'process', id: 'dialer' }
const carrier: Actor = { kind: 'carrier', id: 'twilio' }

/** Lead n's events: its kind from n (55 % one event, 25 % five, 20 % six), its arrival spread over SPAN_DAYS up to `end`. */
function leadEvents(accountId: string, n: number, leads: number, end: number): { stream: string; events: NewEvent[] } {
  const last10 = String(2_000_000_000 + n)
  const phone = `+1${last10}`
  const leadId = `ld_c${String(n).padStart(16, '0')}`
  const receivedMs = end - SPAN_DAYS * DAY_MS + Math.floor((n * SPAN_DAYS * DAY_MS) / leads)
  const at = (seconds: number) => new Date(receivedMs + seconds * 1000).toISOString()
  const fields = { phone, phoneLast10: last10, phoneRaw: phone, fullName: `Bench Lead ${n}`, email: `lead${n}@example.com`, source: SOURCES[n % SOURCES.length], state: ['TX', 'CA', 'FL', 'NY', 'IL'][n % 5], industryFields: {}, extraFields: [] }
  const events = [ev('LeadReceived', { leadId, accountId, fields, receivedAt: at(0), list: { listId: 'inbound-leads', listName: 'Inbound Leads' } }, token)]
  const kind = n % 20
  if (kind < 11) return { stream: `lead-${accountId}-${last10}`, events }
  const decisionId = `dec_c${n}`
  const callId = `CAc${n}`
  const speed = 3 + ((n * 7919) % 240)
  events.push(
    ev('CallDecided', { leadId, decisionId, purpose: 'speed_to_lead', attempt: 1, from: '+13125550100', to: phone, decidedAt: at(1), idempotencyKey: null }, { kind: 'process', id: 'speed-to-lead' }),
    ev('CallAttemptStarted', { decisionId, node: 'bench', startedAt: at(1) }, dialer),
    ev('CallPlaced', { decisionId, callId, carrier: 'twilio', placedAt: at(speed) }, dialer),
  )
  if (kind < 16) {
    events.push(ev('CallNotAnswered', { decisionId, callId, status: n % 3 === 0 ? 'busy' : 'no-answer', at: at(speed + 30) }, carrier))
  } else {
    events.push(ev('CallAnswered', { decisionId, callId, answeredBy: 'human', at: at(speed + 8) }, carrier))
    events.push(n % 40 === 16
      ? ev('PaymentSettled', { requestId: `pay_c${n}`, sessionId: `cs_c${n}`, amountCents: 12_500, currency: 'usd', paymentIntentId: null, provider: 'simulated', providerEventId: `evt_c${n}`, at: at(speed + 900) }, { kind: 'payments', id: 'simulated' })
      : ev('CallCompleted', { decisionId, callId, durationSeconds: 30 + (n % 300), at: at(speed + 70) }, carrier))
  }
  return { stream: `lead-${accountId}-${last10}`, events }
}

/** The seed at `dir` for `leads` leads, made if missing (or of another version or size). */
export async function consoleSeed(dir: string, leads: number, totalEvents: number): Promise<ConsoleSeed> {
  const metaFile = path.join(dir, 'seed.json')
  if (fs.existsSync(metaFile)) {
    const seed = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as ConsoleSeed
    if (seed.version === SEED_VERSION && seed.leads === leads && seed.events >= totalEvents) return seed
  }
  fs.rmSync(dir, { recursive: true, force: true })
  fs.mkdirSync(dir, { recursive: true })
  const started = performance.now()
  const store = `sqlite:${path.join(dir, 'leadline.db')}`
  const config = loadConfig({ LEADLINE_STORE: store })
  const operator = { actor: { kind: 'operator', id: 'bench' } } as const
  const leadline = await openLeadline({ store, viewsPath: config.viewsPath })
  const { account } = await leadline.accounts.create('Bench Roofing', { timeZone: 'America/Chicago', callerId: '+13125550100' }, operator)
  const link = await leadline.users.create(account.accountId, BENCH_EMAIL, operator)
  await leadline.users.setPassword(link.token, BENCH_PASSWORD)
  const readKey = (await leadline.accounts.createApiKey(account.accountId, ['read'], 'bench', operator)).key.secret
  let written = await leadline.store.headPosition()
  const end = Date.now()
  const WAVE = 2000
  for (let from = 0; from < leads; from += WAVE) {
    const batch = Array.from({ length: Math.min(WAVE, leads - from) }, (_, i) => leadEvents(account.accountId, from + i, leads, end))
    await Promise.all(batch.map((lead) => leadline.store.appendToStream(lead.stream, lead.events, 'no_stream')))
    written += batch.reduce((sum, lead) => sum + lead.events.length, 0)
    if ((from / WAVE) % 25 === 0) process.stderr.write(`\rseeding: ${from.toLocaleString('en-US')} leads, ${written.toLocaleString('en-US')} events (${Math.round(written / ((performance.now() - started) / 1000)).toLocaleString('en-US')}/s)   `)
  }
  await leadline.close()
  process.stderr.write(`\nseeded ${written.toLocaleString('en-US')} events; building the read models with leadline replay…\n`)
  execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src', 'cli', 'bin.ts'), 'replay'], { cwd: ROOT, env: { ...process.env, LEADLINE_STORE: store }, stdio: 'inherit' })
  const seed: ConsoleSeed = { version: SEED_VERSION, leads, events: written, accountId: account.accountId, readKey, leadId: `ld_c${String(leads - 4).padStart(16, '0')}`, seconds: (performance.now() - started) / 1000 }
  fs.writeFileSync(metaFile, JSON.stringify(seed, null, 2))
  return seed
}

/** Rebuilds, with `leadline replay`, the cached read models whose projection changed version since the seed was made. */
export function refreshReadModels(store: string): void {
  const views = openViewsDatabase(loadConfig({ LEADLINE_STORE: store }).viewsPath)
  const read = views.prepare('SELECT version FROM projection_checkpoints WHERE name = ?').pluck()
  const changed = PROJECTIONS.filter((p) => read.get(p.name) !== p.version).map((p) => p.name)
  views.close()
  if (changed.length === 0) return
  process.stderr.write(`read models changed since the seed: ${changed.join(', ')}; leadline replay…\n`)
  execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src', 'cli', 'bin.ts'), 'replay', ...changed.flatMap((name) => ['--projection', name])], {
    cwd: ROOT, env: { ...process.env, LEADLINE_STORE: store }, stdio: 'inherit',
  })
}
