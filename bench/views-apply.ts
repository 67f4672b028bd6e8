/**
 * What applying new leads to the read models costs the main thread, as the server applies them: the
 * projection runner's batches (one IMMEDIATE transaction each, checkpoints read and written) on a views
 * file in WAL mode checkpointed by its own thread. Prints the main thread's CPU µs a lead (from /proc,
 * so the checkpoint thread is not counted) for every read model, and for each left out in turn.
 *
 *   node --import tsx bench/views-apply.ts [--leads 40000] [--batch 32] [--random] [--only name,name]
 *
 * --random: phones in random order (real traffic), not one after another (the webhook benchmark's).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import type { RecordedEvent } from '../src/domain/event.ts'
import type { EventStore } from '../src/eventstore/event-store.port.ts'
import { newLeadId } from '../src/domain/shared/ids.ts'
import { PROJECTIONS } from '../src/leadline.ts'
import type { Projection } from '../src/read-models/projection.ts'
import { ProjectionRunner } from '../src/read-models/projection-runner.ts'
import { startViewsCheckpointer } from '../src/read-models/views-checkpointer.ts'
import { openViewsDatabase } from '../src/read-models/views-database.ts'

const { values } = parseArgs({
  options: {
    leads: { type: 'string', default: '40000' },
    batch: { type: 'string', default: '32' },
    random: { type: 'boolean', default: false },
    only: { type: 'string' },
    rounds: { type: 'string', default: '3' },
  },
})
const LEADS = Number(values.leads)
const BATCH = Number(values.batch)
const accountId = 'acc_views0000000000'

function leads(): RecordedEvent[] {
  let position = 1
  const phones = Array.from({ length: LEADS }, (_, n) => 2_125_000_000 + n)
  if (values.random) for (let i = phones.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[phones[i], phones[j]] = [phones[j] as number, phones[i] as number]
  }
  const started = Date.parse('2026-12-02T14:00:00Z')
  return phones.map((phone, n) => {
    const last10 = String(phone)
    const at = new Date(started + n).toISOString()
    const data = {
      leadId: newLeadId(started + n), accountId, receivedAt: at, list: { listId: 'inbound-leads', listName: 'Inbound Leads' },
      fields: { phone: `+1${last10}`, phoneLast10: last10, phoneRaw: last10, fullName: 'Bench Lead', firstName: 'Bench', lastName: 'Lead', email: 'lead@example.com', source: 'bench', industryFields: {}, extraFields: [] },
    }
    return {
      id: `e${n}`, stream: `lead-${accountId}-${last10}`, revision: 0, position: ++position, type: 'LeadReceived', data,
      metadata: { correlationId: 'c', causationId: null, actor: { kind: 'webhook', id: 'bench' }, schemaVersion: 1 }, recordedAt: at,
    } as unknown as RecordedEvent
  })
}

/** The main thread's CPU time so far, in µs (clock ticks of 10 ms, from /proc). */
function mainThreadMicros(): number {
  const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

async function run(projections: readonly Projection[], events: readonly RecordedEvent[]): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-views-'))
  const file = path.join(dir, 'views.db')
  const db = openViewsDatabase(file)
  const checkpointer = await startViewsCheckpointer(db, file)
  const runner = new ProjectionRunner({} as EventStore, db, projections)
  const account = { ...events[0], position: 1, stream: `account-${accountId}`, type: 'AccountCreated', data: { accountId, name: 'A', settings: { timeZone: 'America/Chicago' }, createdAt: '2026-12-01T00:00:00Z' } } as unknown as RecordedEvent
  runner.applyBatch([account])
  const before = mainThreadMicros()
  for (let i = 0; i < events.length; i += BATCH) {
    runner.applyBatch(events.slice(i, i + BATCH))
    // The server's batches come a turn of the event loop apart: the checkpoint thread runs meanwhile.
    if ((i / BATCH) % 64 === 63) await new Promise((resolve) => setImmediate(resolve))
  }
  const used = mainThreadMicros() - before
  await checkpointer.stop()
  db.close()
  fs.rmSync(dir, { recursive: true, force: true })
  return used / events.length
}

const events = leads()
const chosen = values.only ? PROJECTIONS.filter((p) => (values.only as string).split(',').includes(p.name)) : PROJECTIONS
const handling = chosen.filter((p) => p.handles.includes('LeadReceived'))
await run(chosen, events.slice(0, 4000))
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const rounds = Number(values.rounds)
const all: number[] = []
const without = new Map<string, number[]>(handling.map((p) => [p.name, []]))
for (let r = 0; r < rounds; r++) {
  all.push(await run(chosen, events))
  for (const p of handling) without.get(p.name)?.push(await run(chosen.filter((q) => q !== p), events))
}
const whole = median(all)
console.log(`${LEADS} new leads in batches of ${BATCH}${values.random ? ', phones in random order' : ''}; main thread CPU µs a lead, median of ${rounds} (load ${os.loadavg()[0]?.toFixed(1)}):`)
console.log(`  every read model: ${whole.toFixed(1)}`)
for (const [name, xs] of without) console.log(`  ${name}: ${(whole - median(xs)).toFixed(1)} (without it ${median(xs).toFixed(1)})`)
process.exit(0)
