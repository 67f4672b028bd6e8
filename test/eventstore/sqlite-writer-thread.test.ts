/**
 * The embedded store with its writes on a writer thread (`writer: 'thread'`, what the server uses):
 * group commit while a batch is out, the same errors as inline, the live window that feeds
 * subscriptions without reading back what this store just wrote, and closing. The event store
 * contract runs against it in sqlite-writer-thread-contract.test.ts.
 */
import fs from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import type { NewEvent } from '../../src/domain/event.ts'
import { WrongExpectedRevisionError } from '../../src/eventstore/event-store.port.ts'
import { DuplicateEventIdError, afterCommitProgress, openSqliteEventStore, type SqliteEventStore } from '../../src/eventstore/sqlite/sqlite-event-store.adapter.ts'
import { chainIsIntact, consume, waitUntil } from '../contract/event-store.contract.ts'

const root = t.testdir()
let opened = 0

function freshPath(): string {
  opened++
  return join(root, `store-${opened}`, 'events.db')
}

function openThreaded(path: string): SqliteEventStore {
  return openSqliteEventStore({ path, writer: 'thread' })
}


const METADATA = { correlationId: 'corr-thread', causationId: null, actor: { kind: 'operator', id: 'thread-test' }, schemaVersion: 1 } as const

function ev(type: string, data: unknown = {}, id?: string): NewEvent {
  return id === undefined ? { type, data, metadata: METADATA } : { id, type, data, metadata: METADATA }
}

function outcome(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => value,
    (error: unknown) => error,
  )
}

t.test('writer thread', async (t) => {
  t.test('group commit: a turn sends its first 32 appends, and 32 more, before it ends; the rest wait for room and go together; appends made while batches are out form the next', async (t) => {
    const store = openThreaded(freshPath())
    t.teardown(() => store.close())
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => store.appendToStream(`lead-${i}`, [ev('LeadReceived', { i })], 'no_stream')),
    )
    t.same(results.map((r) => r.position), Array.from({ length: 200 }, (_, i) => i + 1), 'written in the order appended')
    t.same(store.stats, { transactions: 3, appends: 200, events: 200 }, '32 + 32 while two batches may be out, then the other 136')

    const few = await Promise.all(Array.from({ length: 31 }, (_, i) => store.appendToStream(`few-${i}`, [ev('LeadReceived', { i })], 'no_stream')))
    t.equal(few.length, 31)
    t.equal(store.stats.transactions, 4, 'fewer than 32 in a turn: one batch at its end')

    const mark = store.stats.transactions
    await Promise.all(
      Array.from({ length: 20 }, async (_, w) => {
        for (let n = 0; n < 10; n++) await store.appendToStream('lead-shared', [ev('Tick', { w, n })], 'any')
      }),
    )
    t.ok(store.stats.transactions - mark <= 11, `20 writers x 10 appends in ${store.stats.transactions - mark} transactions`)
    t.ok(chainIsIntact(await store.readStream('lead-shared')), 'the chain holds under batching')
  })

  t.test('batches sent while another is being written settle in the order sent, each its own transaction', async (t) => {
    const store = openThreaded(freshPath())
    t.teardown(() => store.close())
    await store.ready()
    const mark = store.stats.transactions
    const settled: number[] = []
    const appends: Array<Promise<{ position: number }>> = []
    for (const n of [1, 2, 3, 4]) {
      // Each on a turn of its own, so each is a batch of its own, sent while the one before is out.
      appends.push(store.appendToStream(`lead-${n}`, [ev('LeadReceived', { n })], 'no_stream').then((r) => (settled.push(n), r)))
      await new Promise((resolve) => setImmediate(resolve))
    }
    const results = await Promise.all(appends)
    t.same(settled, [1, 2, 3, 4], 'settled in the order sent')
    t.same(results.map((r) => r.position), [...results.map((r) => r.position)].sort((a, b) => a - b), 'positions in the order sent')
    t.same((await store.readAll()).map((e) => e.data), [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }])
    t.ok(store.stats.transactions - mark >= 2, `${store.stats.transactions - mark} transactions`)
  })

  t.test('a conflict inside a batch rejects only its own append, with the same errors as inline', async (t) => {
    const store = openThreaded(freshPath())
    t.teardown(() => store.close())
    await store.appendToStream('lead-existing', [ev('Seed', {}, 'seed-id')], 'no_stream')
    const created = store.appendToStream('lead-a', [ev('A0')], 'no_stream')
    const lostRace = outcome(store.appendToStream('lead-a', [ev('LOST')], 'no_stream'))
    const reusedId = outcome(store.appendToStream('lead-c', [ev('C0'), ev('C1', {}, 'seed-id')], 'no_stream'))
    const unserialisable = outcome(store.appendToStream('lead-d', [ev('D0', { n: 10n })], 'no_stream'))
    const after = store.appendToStream('lead-a', [ev('A1')], 0)

    t.same(await created, { nextExpectedRevision: 0, position: 2 })
    const lost = await lostRace
    t.ok(lost instanceof WrongExpectedRevisionError && lost.actual === 0 && lost.expected === 'no_stream')
    const reused = await reusedId
    t.ok(reused instanceof DuplicateEventIdError && reused.eventId === 'seed-id')
    t.ok((await unserialisable) instanceof TypeError, 'data JSON cannot carry rejects only that append')
    t.equal((await after).nextExpectedRevision, 1)
    t.same(await store.readStream('lead-c'), [])
    const all = await store.readAll()
    t.same(all.map((e) => e.position), all.map((_, i) => i + 1), 'no holes in positions')
  })

  t.test('live subscriptions get exactly what a read of the file returns, also across another client’s commits', async (t) => {
    const path = freshPath()
    const store = openThreaded(path)
    const other = openSqliteEventStore({ path })
    t.teardown(async () => {
      await store.close()
      await other.close()
    })
    const live = consume(store.subscribe({ maxBatchSize: 7 }))
    for (let round = 0; round < 5; round++) {
      await Promise.all(Array.from({ length: 10 }, (_, i) => store.appendToStream(`lead-${round}-${i}`, [ev('A', { round, i }), ev('B')], 'no_stream')))
      await other.appendToStream(`other-${round}`, [ev('Other', { round })], 'no_stream')
    }
    t.ok(await waitUntil(() => live.events.length === 105, 3000), `all 105 events delivered (${live.events.length})`)
    t.same(live.events, await store.readAll(), 'identical to the file, in order, without duplicates or gaps')
    t.ok(live.batches.every((batch) => batch.length > 0 && batch.length <= 7))
    await live.subscription.close()
  })

  t.test('a batch hands its after-commit work exactly the events it committed, as the file holds them; what the work does or throws never fails an append', async (t) => {
    const dir = t.testdir({
      // An after-commit module (after-commit.ts) that keeps what it is given in a file, and throws on its third batch.
      'keep.mjs': `import fs from 'node:fs'
let batches = 0
export function openAfterCommit({ file }) {
  return {
    committed(events) {
      batches++
      fs.appendFileSync(file, JSON.stringify(events) + '\\n')
      if (batches === 3) throw new Error('after-commit work failed')
      return events[events.length - 1].position
    },
    close() {},
  }
}`,
    })
    const kept = join(dir, 'kept.ndjson')
    const store = openSqliteEventStore({ path: join(dir, 'events.db'), writer: 'thread', afterCommit: { url: pathToFileURL(join(dir, 'keep.mjs')).href, options: { file: kept } } })
    t.teardown(() => store.close())
    const progress = afterCommitProgress(store)
    await store.appendToStream('lead-existing', [ev('Seed', {}, 'seed-id')], 'no_stream')
    t.equal(progress?.through(), 1)
    // One batch: a success, a lost race, two events whose second reuses an id (its savepoint undone), another success.
    const results = await Promise.all([
      outcome(store.appendToStream('lead-a', [ev('A0', { a: 1 })], 'no_stream')),
      outcome(store.appendToStream('lead-existing', [ev('LOST')], 'no_stream')),
      outcome(store.appendToStream('lead-c', [ev('C0'), ev('C1', {}, 'seed-id')], 'no_stream')),
      outcome(store.appendToStream('lead-d', [ev('D0'), ev('D1', { d: [1, 2] })], 'no_stream')),
    ])
    t.ok(results[1] instanceof WrongExpectedRevisionError && results[2] instanceof DuplicateEventIdError, 'the two failures rejected')
    const batches = fs.readFileSync(kept, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as unknown[])
    t.equal(batches.length, 2, 'one call per committed batch')
    t.same(batches[1], await store.readAll({ fromPosition: 2 }), 'the batch\'s committed events, each as the file holds it (position, revision, hashes, data), none of the undone ones')
    t.equal(progress?.through(), 4)
    // The work throws: the batch is committed, so its append is answered as written.
    const third = await store.appendToStream('lead-e', [ev('E0')], 'no_stream')
    t.equal(third.position, 5, 'answered despite the failing work')
    t.equal(progress?.through(), 4, 'which reported nothing done')
  })

  t.test('close writes what is queued, then closes its connection on the thread', async (t) => {
    const path = freshPath()
    const store = openThreaded(path)
    const pending = Array.from({ length: 5 }, (_, i) => store.appendToStream(`lead-${i}`, [ev('A')], 'no_stream'))
    await store.close()
    t.same((await Promise.all(pending)).map((r) => r.nextExpectedRevision), [0, 0, 0, 0, 0])
    const reopened = openThreaded(path)
    t.teardown(() => reopened.close())
    t.equal((await reopened.readAll()).length, 5)
  })
})
