/**
 * Replay: rebuilt read models equal live ones, replaying twice gives the same bytes, the switch is
 * atomic and applies nothing twice, `--verify` finds every difference, and a failed replay leaves
 * the live read models as they were.
 */
import fs from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { replay, type ReplayOptions } from '../../src/audit/replay.ts'
import type { EventStore } from '../../src/eventstore/event-store.port.ts'
import { openLeadline, PROJECTIONS } from '../../src/leadline.ts'
import type { Projection } from '../../src/read-models/projection.ts'
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'
import { buildApp } from '../helpers/build-app.ts'
import { dumpReadModels } from '../helpers/read-models.ts'
import { LEAD_STORY, newEvent } from '../helpers/audit-log.ts'

async function seed(t: Test) {
  const built = await buildApp(t, { start: false, store: 'sqlite' })
  const a = await built.createAccount('Acme', { industry: 'solar' })
  const b = await built.createAccount('Bayside')
  const post = (token: string, body: object) => built.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token }, payload: body })
  for (let i = 0; i < 30; i++) {
    await post(i % 2 ? a.token : b.token, { phone: `51255500${String(i % 20).padStart(2, '0')}`, name: `Person ${i}`, source: i % 3 ? 'Web' : 'Ads', 'Roof Type': 'tile', [`extra_${i}`]: i, dnc: i % 7 === 0 ? 'y' : '' })
  }
  // A lead with calls, follow-ups and recordings, in account A.
  const stream = `lead-${a.account.accountId}-3125550142`
  const story = LEAD_STORY.map(([event, actor]) =>
    newEvent(event.type === 'LeadReceived' ? { ...event, data: { ...(event.data as object), accountId: a.account.accountId, leadId: 'ld_story0000000000a' } } : event, actor),
  )
  await built.leadline.store.appendToStream(stream, story, 'no_stream')
  await built.leadline.runner.catchUp()
  const options = (overrides: Partial<ReplayOptions> = {}): ReplayOptions => ({
    store: built.leadline.store,
    live: built.leadline.views,
    scratchPath: path.join(built.dir, `scratch-${Math.random().toString(36).slice(2)}.db`),
    projections: PROJECTIONS,
    mode: 'switch',
    ...overrides,
  })
  return { ...built, a, b, post, options }
}

/** Read models built by a fresh runner from position 0, for comparison. */
async function freshRebuild(dir: string, store: string): Promise<Record<string, unknown[]>> {
  const fresh = await openLeadline({ store, viewsPath: path.join(dir, `fresh-${Math.random().toString(36).slice(2)}.views.db`) })
  await fresh.runner.catchUp()
  const dump = dumpReadModels(fresh)
  await fresh.close()
  return dump
}

function schemaNames(db: ViewsDatabase): string[] {
  return db.prepare('SELECT type || \' \' || name || \' on \' || tbl_name FROM sqlite_master ORDER BY 1').pluck().all() as string[]
}

function scratchFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((f) => f.startsWith('scratch-'))
}

t.test('replay rebuilds every read model from position 0 and switches over: same data, and the same bytes twice', async (t) => {
  const { leadline, options, dir, store } = await seed(t)
  const live = dumpReadModels(leadline)
  // The story's two outbound calls and its two inbound calls.
  t.ok((live.inbound_leads?.length ?? 0) >= 20 && (live.calls?.length ?? 0) === 4, 'a realistic read model')
  const head = await leadline.store.headPosition()
  const schemaBefore = schemaNames(leadline.views)

  const first = await replay(options())
  t.match(first, { mode: 'switch', events: head, rebuiltTo: head, switchedTo: head, appliedDuringSwitch: 0 })
  t.same(first.projections.map((p) => p.name), PROJECTIONS.map((p) => p.name))
  t.same(dumpReadModels(leadline), live, 'the switched read models equal the live ones they replaced')
  t.same(leadline.runner.statuses().map((s) => s.position), PROJECTIONS.map(() => head), 'checkpoints at the head')
  t.same(scratchFiles(dir), [], 'the rebuilt database is removed')
  t.same(schemaNames(leadline.views), schemaBefore, 'the same tables and indexes, under the same names; no shadow table left')
  const bytesAfter = (name: string) => {
    const file = path.join(dir, `${name}.snapshot.db`)
    leadline.views.prepare('VACUUM INTO ?').run(file)
    const bytes = fs.readFileSync(file)
    // The schema cookie (header bytes 40–43) counts schema changes, and every switch makes some: it
    // is SQLite's bookkeeping, not read-model data. Every other byte must be equal.
    bytes.fill(0, 40, 44)
    return bytes
  }
  const once = bytesAfter('first')

  const second = await replay(options())
  t.equal(second.digest, first.digest, 'the same digest')
  t.same(second.tables, first.tables)
  t.same(dumpReadModels(leadline), live)
  t.ok(bytesAfter('second').equals(once), 'the read models are byte-identical after replaying twice')
  t.same(await freshRebuild(dir, store), live, 'and equal to read models built by the ordinary runner')
})

t.test('--projection replaces that read model only', async (t) => {
  const { leadline, options, a } = await seed(t)
  const live = dumpReadModels(leadline)
  leadline.views.prepare("UPDATE inbound_leads SET email = 'corrupted@example.com'").run()
  leadline.views.prepare("UPDATE accounts SET name = 'Corrupted' WHERE account_id = ?").run(a.account.accountId)
  const result = await replay(options({ projections: PROJECTIONS.filter((p) => p.name === 'inbound-leads') }))
  t.same(result.tables.map((x) => x.table), ['inbound_leads', 'inbound_lead_counts'])
  const after = dumpReadModels(leadline)
  t.same(after.inbound_leads, live.inbound_leads, 'inbound leads rebuilt')
  t.match(after.accounts?.find((r) => (r as { account_id: string }).account_id === a.account.accountId), { name: 'Corrupted' }, 'accounts untouched')
})

t.test('verify reports every difference and changes nothing; after a switch there is none', async (t) => {
  const { leadline, options, a } = await seed(t)
  t.same((await replay(options({ mode: 'verify' }))).differences, [], 'identical to begin with')

  leadline.views.prepare("UPDATE inbound_leads SET email = 'corrupted@example.com' WHERE phone_last10 = '5125550003'").run()
  leadline.views.prepare('DELETE FROM calls WHERE rowid = (SELECT min(rowid) FROM calls)').run()
  leadline.views
    .prepare("INSERT INTO lead_activity (stream, account_id, lead_id, phone, received_at, last_touch_at) VALUES ('lead-x-0000000000', ?, 'ld_ghost', '+10000000000', 'x', 'x')")
    .run(a.account.accountId)
  const corrupted = dumpReadModels(leadline)

  const verified = await replay(options({ mode: 'verify' }))
  t.equal(verified.comparedAt, await leadline.store.headPosition())
  t.same(verified.differences?.map((d) => d.table), ['inbound_leads', 'calls', 'lead_activity'])
  const inbound = verified.differences?.[0]
  t.match(inbound?.onlyLive, [{ email: 'corrupted@example.com', phone_last10: '5125550003' }])
  t.match(inbound?.onlyRebuilt, [{ phone_last10: '5125550003' }])
  t.match(verified.differences?.[1], { onlyLive: [], onlyRebuilt: [{ decision_id: 'dec_1' }], message: /calls: 3 rows live, 4 rebuilt/ })
  t.match(verified.differences?.[2], { onlyLive: [{ lead_id: 'ld_ghost' }], onlyRebuilt: [] })
  t.same(dumpReadModels(leadline), corrupted, 'verify changed nothing')

  await replay(options())
  t.same((await replay(options({ mode: 'verify' }))).differences, [], 'none after the switch')
})

t.test('verify compares at the live checkpoints, even when the live read models are behind the log', async (t) => {
  const { leadline, options, post, a } = await seed(t)
  const checkpoint = leadline.runner.lowestCheckpoint()
  await post(a.token, { phone: '5125559999', name: 'Late Lead' })
  t.ok((await leadline.store.headPosition()) > checkpoint)
  const verified = await replay(options({ mode: 'verify' }))
  t.equal(verified.comparedAt, checkpoint, 'compared where the live read models are')
  t.same(verified.differences, [])
})

/** A store that, when the rebuild has read everything, appends more and lets the live runner apply it first: what a busy server does. */
function busyServer(store: EventStore, whenRebuilt: () => Promise<void>): EventStore {
  let fired = false
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name !== 'readAll') return Reflect.get(target, name, receiver) as unknown
      return async (options: Parameters<EventStore['readAll']>[0]) => {
        const page = await target.readAll(options)
        if (page.length === 0 && !fired) {
          fired = true
          await whenRebuilt()
        }
        return page
      }
    },
  })
}

for (const readerThread of [false, true]) t.test(`events the server applies while the rebuild runs are applied in the switch, none twice (reader thread: ${readerThread})`, async (t) => {
  const { leadline, options, post, a, b, store, dir } = await seed(t)
  const before = await leadline.store.headPosition()
  const result = await replay(
    options({
      readerThread,
      store: busyServer(leadline.store, async () => {
        await post(a.token, { phone: '5125550001', email: 'again@example.com' }) // a repeat: LeadUpdated, submissions + 1
        await post(b.token, { phone: '5125558888', name: 'New During Replay' })
        await leadline.runner.catchUp() // the server's runner is now past the rebuild
      }),
    }),
  )
  const head = await leadline.store.headPosition()
  t.equal(result.rebuiltTo, before)
  t.equal(result.switchedTo, head)
  t.equal(result.appliedDuringSwitch, head - before)
  await leadline.runner.catchUp() // the server's runner carries on: it must skip what the switch applied
  const live = dumpReadModels(leadline)
  t.same(live, await freshRebuild(dir, store), 'equal to a fresh rebuild: nothing lost, nothing applied twice')
  t.match(live.inbound_leads?.find((r) => (r as { phone_last10: string }).phone_last10 === '5125550001'), { email: 'again@example.com', submissions: 3 })
})

t.test('a live table of another shape takes the rebuilt schema', async (t) => {
  const { leadline, options } = await seed(t)
  const live = dumpReadModels(leadline)
  leadline.views.exec('DROP INDEX inbound_leads_by_source; ALTER TABLE inbound_leads ADD COLUMN leftover TEXT')
  await replay(options())
  t.same(dumpReadModels(leadline), live)
  t.ok(leadline.views.prepare("SELECT 1 FROM sqlite_master WHERE name = 'inbound_leads_by_source'").get(), 'its indexes too')
})

for (const readerThread of [false, true]) t.test(`a replay that fails leaves the live read models as they were, and no scratch file (reader thread: ${readerThread})`, async (t) => {
  const { leadline, options, dir } = await seed(t)
  const live = dumpReadModels(leadline)
  const failing: Projection = { ...(PROJECTIONS[1] as Projection), apply: () => { throw new Error('projection bug') } }
  await t.rejects(replay(options({ readerThread, projections: [PROJECTIONS[0] as Projection, failing] })), /projection bug/)
  t.same(dumpReadModels(leadline), live)
  t.same(scratchFiles(dir), [])
})

t.test('the switch is one transaction: a failure inside it leaves the live read models and checkpoints as they were', async (t) => {
  const { leadline, options, a } = await seed(t)
  const live = dumpReadModels(leadline)
  const schema = schemaNames(leadline.views)
  const checkpoints = leadline.runner.statuses()
  const inbound = PROJECTIONS.find((p) => p.name === 'inbound-leads') as Projection
  // Fails only on an event that arrives after the rebuild, so the failure happens inside the switch.
  const failsLate: Projection = {
    ...inbound,
    apply: (db, event) => {
      if (event.type === 'LeadMarkedDoNotCall') throw new Error('failed inside the switch')
      inbound.apply(db, event)
    },
  }
  const stream = `lead-${a.account.accountId}-5125550001`
  const store = busyServer(leadline.store, async () => {
    const revision = (await leadline.store.readStream(stream)).length - 1
    await leadline.store.appendToStream(stream, [newEvent({ type: 'LeadMarkedDoNotCall', data: { leadId: 'x', markedAt: new Date().toISOString() } }, { kind: 'operator', id: 'test' })], revision)
  })
  await t.rejects(replay(options({ store, projections: PROJECTIONS.map((p) => (p.name === 'inbound-leads' ? failsLate : p)) })), /failed inside the switch/)
  t.same(dumpReadModels(leadline), live, 'every table as it was: the copied tables were rolled back')
  t.same(leadline.runner.statuses(), checkpoints, 'checkpoints as they were')
  t.notOk(leadline.views.inTransaction)
  t.same(leadline.views.prepare('PRAGMA database_list').all().map((d) => (d as { name: string }).name), ['main'], 'the rebuilt database is detached')
  t.same(schemaNames(leadline.views), schema, 'every live index is back, and no shadow table is left')
})

for (const readerThread of [false, true]) t.test(`progress is reported as the rebuild goes (reader thread: ${readerThread})`, async (t) => {
  const { options, leadline } = await seed(t)
  const seen: Array<{ events: number; position: number }> = []
  await replay(options({ readerThread, batchSize: 10, onProgress: (p) => seen.push(p) }))
  const head = await leadline.store.headPosition()
  t.ok(seen.length >= Math.floor(head / 10), `${seen.length} updates`)
  t.match(seen[seen.length - 1], { events: head, position: head }, 'every event counted, those no projection reads too')
  t.ok(seen.every((p, i) => i === 0 || p.position > (seen[i - 1] as { position: number }).position))
})

t.test('the reader thread gives the read models reading through the store gives, byte for byte', async (t) => {
  const { leadline, options } = await seed(t)
  const live = dumpReadModels(leadline)
  const head = await leadline.store.headPosition()
  const inline = await replay(options({ readerThread: false }))
  const threaded = await replay(options({ readerThread: true, batchSize: 7 }))
  t.match(threaded, { events: head, rebuiltTo: head, switchedTo: head, appliedDuringSwitch: 0 })
  t.equal(threaded.digest, inline.digest)
  t.same(threaded.tables, inline.tables)
  t.same(dumpReadModels(leadline), live)
  t.same((await replay(options({ mode: 'verify', readerThread: true }))).differences, [], 'and verify agrees')

  // One projection: the thread leaves out every event it does not read, the checkpoint still reaches the head.
  const calls = PROJECTIONS.filter((p) => p.name === 'calls')
  const one = await replay(options({ readerThread: true, projections: calls }))
  t.match(one, { events: head, rebuiltTo: head, switchedTo: head })
  t.same(one.tables, inline.tables.filter((table) => ['calls', 'follow_ups', 'call_legs', 'follow_up_pauses'].includes(table.table)))
  t.equal(leadline.runner.statuses().find((s) => s.name === 'calls')?.position, head)
})

t.test('an event from the reader thread is the whole recorded event: what did not cross is read from the log when asked', async (t) => {
  const { leadline, options } = await seed(t)
  const stored = await leadline.store.readAll()
  const types = [...new Set(stored.map((e) => e.type))]
  const seen: unknown[] = []
  const recorder: Projection = {
    name: 'recorder',
    version: 1,
    handles: types,
    tables: [],
    setup: () => undefined,
    apply: (_db, e) => {
      seen.push({ id: e.id, type: e.type, data: e.data, metadata: { correlationId: e.metadata.correlationId, causationId: e.metadata.causationId, actor: e.metadata.actor, schemaVersion: e.metadata.schemaVersion }, stream: e.stream, revision: e.revision, position: e.position, recordedAt: e.recordedAt, prevHash: e.prevHash, hash: e.hash })
      t.same(JSON.parse(JSON.stringify(e)), seen[seen.length - 1], 'and as JSON')
    },
  }
  await replay(options({ readerThread: true, projections: [recorder] }))
  t.same(seen, JSON.parse(JSON.stringify(stored)))
})
