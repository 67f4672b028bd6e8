/**
 * What the reports read model (issue #44) adds to each event it reads: a new lead's LeadReceived, a
 * call's decision, placement and answer, applied in batches of 1,000 in one transaction, as the
 * projection runner applies live events; beside the same events applied to every other read model.
 *
 *   node --import tsx bench/reports-apply.ts [LEADS] [received]   (received: the LeadReceived events alone, as the webhook's new leads)
 */
import Database from 'better-sqlite3'
import type { RecordedEvent } from '../src/domain/event.ts'
import { PROJECTIONS } from '../src/leadline.ts'
import type { Projection } from '../src/read-models/projection.ts'

const LEADS = Number(process.argv[2] ?? 20_000)
const accountId = 'acc_apply0000000000'
let position = 0
const recorded = (stream: string, type: string, data: object): RecordedEvent =>
  ({ id: `e${++position}`, stream, revision: 0, position, type, data, metadata: { correlationId: 'c', causationId: null, actor: { kind: 'process', id: 'bench' }, schemaVersion: 1 }, recordedAt: new Date().toISOString() }) as unknown as RecordedEvent

function events(): RecordedEvent[] {
  const all: RecordedEvent[] = [recorded(`account-${accountId}`, 'AccountCreated', { accountId, name: 'A', settings: { timeZone: 'America/Chicago' }, createdAt: '2026-03-01T00:00:00Z' })]
  for (let n = 0; n < LEADS; n++) {
    const last10 = String(2_000_000_000 + n)
    const stream = `lead-${accountId}-${last10}`
    const at = new Date(Date.parse('2026-03-01T14:00:00Z') + n * 30_000).toISOString()
    const fields = { phone: `+1${last10}`, phoneLast10: last10, phoneRaw: last10, fullName: `L ${n}`, source: `s${n % 6}`, state: 'TX', industryFields: {}, extraFields: [] }
    all.push(recorded(stream, 'LeadReceived', { leadId: `ld_${n}`, accountId, fields, receivedAt: at, list: { listId: 'inbound-leads', listName: 'Inbound Leads' } }))
    all.push(recorded(stream, 'CallDecided', { leadId: `ld_${n}`, decisionId: `d${n}`, purpose: 'speed_to_lead', attempt: 1, from: '+13125550100', to: `+1${last10}`, decidedAt: at, idempotencyKey: null }))
    all.push(recorded(stream, 'CallPlaced', { decisionId: `d${n}`, callId: `CA${n}`, carrier: 'twilio', placedAt: at }))
    all.push(recorded(stream, 'CallAnswered', { decisionId: `d${n}`, callId: `CA${n}`, answeredBy: 'human', at }))
  }
  return all
}

function time(projections: readonly Projection[], list: readonly RecordedEvent[]): number {
  const db = new Database(':memory:')
  for (const p of projections) p.setup(db)
  const handled = projections.map((p) => [p, new Set(p.handles)] as const)
  const started = process.cpuUsage()
  for (let i = 0; i < list.length; i += 1000) {
    db.transaction(() => {
      for (const [p, handles] of handled) for (const e of list.slice(i, i + 1000)) if (handles.has(e.type)) p.apply(db, e)
    })()
  }
  const used = process.cpuUsage(started)
  db.close()
  return (used.user + used.system) / LEADS
}

const list = process.argv[3] === 'received' ? events().filter((e) => e.type !== 'CallDecided' && e.type !== 'CallPlaced' && e.type !== 'CallAnswered') : events()
const reports = PROJECTIONS.filter((p) => p.name === 'reports')
const others = PROJECTIONS.filter((p) => p.name !== 'reports')
time(PROJECTIONS, list.slice(0, 4000))
const rows = [0, 1, 2].map(() => ({ reports: time(reports, list), others: time(others, list) }))
const median = (xs: number[]) => xs.sort((a, b) => a - b)[1] as number
console.log(`${LEADS.toLocaleString('en-US')} leads, each ${process.argv[3] === 'received' ? 'received (1 event)' : 'received, called, placed, answered (4 events)'}; CPU µs per lead, median of 3:`)
console.log(`reports read model: ${median(rows.map((r) => r.reports)).toFixed(1)} µs; every other read model: ${median(rows.map((r) => r.others)).toFixed(1)} µs`)
