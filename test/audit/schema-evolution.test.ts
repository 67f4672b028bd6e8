/**
 * Schema evolution: event types are versioned and old versions are read through upcasters. A fixture
 * log written in the first schema versions (test/fixtures/audit/schema-v1.events.jsonl: every event
 * at schemaVersion 1, `LeadReceived` without `phoneRaw`) is appended through the store, replayed,
 * and must give today's read models (test/fixtures/audit/schema-v1.read-models.json).
 */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { buildLeadHistory } from '../../src/audit/lead-history.ts'
import { replay } from '../../src/audit/replay.ts'
import { CURRENT_SCHEMA_VERSION, schemaVersionOf, upcast } from '../../src/domain/upcasters.ts'
import type { EventMetadata, RecordedEvent } from '../../src/domain/event.ts'
import { openSqliteEventStore } from '../../src/eventstore/sqlite/index.ts'
import { openLeadline, PROJECTIONS } from '../../src/leadline.ts'
import type { Projection } from '../../src/read-models/projection.ts'
import { dumpReadModels } from '../helpers/read-models.ts'
import { buildApp } from '../helpers/build-app.ts'

const FIXTURES = new URL('../fixtures/audit/', import.meta.url)

interface FixtureLine {
  stream: string
  type: string
  data: unknown
  metadata: EventMetadata
  recordedAt: string
}

const lines = fs
  .readFileSync(new URL('schema-v1.events.jsonl', FIXTURES), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as FixtureLine)

/** The fixture appended through the store, each event at its recorded time. */
async function fixtureLog(dir: string): Promise<string> {
  const file = path.join(dir, 'v1.db')
  let now = ''
  const store = openSqliteEventStore({ path: file, clock: () => new Date(now) })
  const revisions = new Map<string, number>()
  for (const line of lines) {
    now = line.recordedAt
    const expected = revisions.get(line.stream) ?? 'no_stream'
    const result = await store.appendToStream(line.stream, [{ type: line.type, data: line.data, metadata: line.metadata }], expected)
    revisions.set(line.stream, result.nextExpectedRevision)
  }
  await store.close()
  return `sqlite:${file}`
}

/**
 * Today's read models of the fixture: the tables in schema-v1.read-models.json, and any read model
 * added since (it has nothing in a first-version log) empty.
 */
function todays(actual: Record<string, unknown[]>): Record<string, unknown[]> {
  const recorded = JSON.parse(fs.readFileSync(new URL('schema-v1.read-models.json', FIXTURES), 'utf8')) as Record<string, unknown[]>
  return Object.fromEntries([...new Set([...Object.keys(recorded), ...Object.keys(actual)])].map((table) => [table, recorded[table] ?? []]))
}

t.test('the fixture is written in the first schema versions', async (t) => {
  t.ok(lines.length >= 20)
  t.ok(lines.every((line) => line.metadata.schemaVersion === 1), 'every event at version 1')
  const received = lines.filter((line) => line.type === 'LeadReceived')
  t.equal(received.length, 2)
  t.ok(received.every((line) => !('phoneRaw' in (line.data as { fields: object }).fields)), 'LeadReceived v1: no phoneRaw')
})

t.test('replaying the first-version log gives today\'s read models', async (t) => {
  const dir = t.testdir()
  const store = await fixtureLog(dir)
  const leadline = await openLeadline({ store, viewsPath: path.join(dir, 'live.views.db') })
  t.teardown(() => leadline.close())
  const result = await replay({ store: leadline.store, live: leadline.views, scratchPath: path.join(dir, 'scratch.db'), projections: PROJECTIONS, mode: 'switch', readerThread: false })
  t.equal(result.events, lines.length)
  const expected = todays(dumpReadModels(leadline))
  t.same(dumpReadModels(leadline), expected)

  // Read in the replay's reader thread, which upcasts there: the same.
  const threaded = await replay({ store: leadline.store, live: leadline.views, scratchPath: path.join(dir, 'scratch-2.db'), projections: PROJECTIONS, mode: 'switch', readerThread: true })
  t.equal(threaded.events, lines.length)
  t.equal(threaded.digest, result.digest)
  t.same(dumpReadModels(leadline), expected)

  // What projections are given from the reader thread is upcast, as the runner gives it.
  for (const readerThread of [false, true]) {
    const seen: unknown[] = []
    const recorder: Projection = {
      name: 'recorder', version: 1, handles: [...new Set(lines.map((line) => line.type))], tables: [], setup: () => undefined,
      apply: (_db, e) => seen.push({ type: e.type, data: e.data, schemaVersion: e.metadata.schemaVersion }),
    }
    await replay({ store: leadline.store, live: leadline.views, scratchPath: path.join(dir, `scratch-recorder-${readerThread}.db`), projections: [recorder], mode: 'switch', readerThread })
    const upcasted = (await leadline.store.readAll()).map(upcast).map((e) => ({ type: e.type, data: e.data, schemaVersion: e.metadata.schemaVersion }))
    t.same(seen, upcasted, `projections see today's shapes (reader thread: ${readerThread})`)
    t.match(seen.find((e) => (e as { type: string }).type === 'LeadReceived'), { schemaVersion: 2, data: { fields: { phoneRaw: '+15125550101' } } })
  }

  // And the ordinary runner, from position 0, agrees.
  const fresh = await openLeadline({ store, viewsPath: path.join(dir, 'runner.views.db') })
  await fresh.runner.catchUp()
  t.same(dumpReadModels(fresh), expected)
  await fresh.close()
})

t.test('LeadReceived v1 reads as v2: phoneRaw filled from the E.164 phone; deciders and history see today\'s shape', async (t) => {
  const dir = t.testdir()
  const store = openSqliteEventStore({ path: (await fixtureLog(dir)).slice('sqlite:'.length) })
  t.teardown(() => store.close())
  const events = await store.readStream('lead-acc_fixture00000000a-5125550101')
  const received = events[0] as RecordedEvent
  t.equal(received.metadata.schemaVersion, 1, 'stored as written')
  const current = upcast(received)
  t.equal(current.metadata.schemaVersion, 2)
  t.match(current.data, { fields: { phone: '+15125550101', phoneRaw: '+15125550101', fullName: 'Ana Ruiz' } })
  t.equal(upcast(current), current, 'today\'s version passes through untouched')
  t.equal(received.hash, (await store.readStream('lead-acc_fixture00000000a-5125550101'))[0]?.hash, 'the log is never rewritten')

  const history = buildLeadHistory('lead-acc_fixture00000000a-5125550101', events, null)
  t.equal(history.state.fields?.phoneRaw, '+15125550101')
  t.equal(history.entries[0]?.schemaVersion, 1, 'the history shows the version as recorded')
  t.match(history.entries[0]?.summary, /^lead received: Ana Ruiz, \+15125550101/)
})

t.test('writers stamp today\'s versions', async (t) => {
  t.same(CURRENT_SCHEMA_VERSION, { LeadReceived: 2 })
  t.equal(schemaVersionOf('LeadReceived'), 2)
  t.equal(schemaVersionOf('LeadUpdated'), 1)
  const built = await buildApp(t, { start: false, store: 'sqlite' })
  const { token } = await built.createAccount('Writers')
  const response = await built.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token }, payload: { phone: '512-555-0199' } })
  t.equal(response.statusCode, 201)
  const all = await built.leadline.store.readAll()
  t.same(
    all.filter((e) => e.stream.startsWith('lead-')).map((e) => [e.type, e.metadata.schemaVersion]),
    [['LeadReceived', 2]],
    'a new lead that speed to lead does not call is one event',
  )
  // The list and the skip ride on LeadReceived as optional members: still version 2, no upcaster.
  t.match(all.find((e) => e.type === 'LeadReceived')?.data, {
    fields: { phoneRaw: '512-555-0199' },
    list: { listId: 'inbound-leads', listName: 'Inbound Leads' },
    speedToLeadSkipped: { reason: 'speed_to_lead_off', message: 'speed to lead is off for this account', nextAllowedAt: null },
  })
})
