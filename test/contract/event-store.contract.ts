/**
 * The event store contract: one suite, run unchanged against every adapter (embedded SQLite,
 * EventStoreDB). An adapter test file supplies a harness and calls `eventStoreContract(t, harness)`.
 */
import type { Test } from 'tap'
import type { NewEvent, RecordedEvent } from '../../src/domain/event.ts'
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type Subscription,
} from '../../src/eventstore/event-store.port.ts'
import { hashEvent } from '../../src/eventstore/hash-chain.ts'

export interface EventStoreHarness {
  name: string
  /** A fresh, empty store (each subtest gets its own). */
  open(): Promise<EventStore>
  /** Another independent client/connection on the SAME store. */
  openSecondClient(store: EventStore): Promise<EventStore>
  /** Appends `count` events to `stream` from really another OS process; resolves once it is done. */
  appendFromAnotherProcess(store: EventStore, stream: string, count: number): Promise<void>
}

/** Registers the contract as one subtest of `t`, named after the harness. */
export function eventStoreContract(t: Test, harness: EventStoreHarness): Promise<unknown> {
  return t.test(`${harness.name} event store contract`, async (t) => {
    async function fresh(t: Test): Promise<EventStore> {
      const store = await harness.open()
      t.teardown(() => store.close())
      return store
    }

    async function secondClient(t: Test, store: EventStore): Promise<EventStore> {
      const second = await harness.openSecondClient(store)
      t.teardown(() => second.close())
      return second
    }

    t.test('no_stream succeeds on a new stream and fails once it exists', async (t) => {
      const store = await fresh(t)
      t.same(pick(await store.appendToStream('lead-a', [ev('A')], 'no_stream')), { nextExpectedRevision: 0 })
      await expectConflict(t, store.appendToStream('lead-a', [ev('B')], 'no_stream'), 'lead-a', 'no_stream', 0)
      t.same(await types(store, 'lead-a'), ['A'], 'the failed append wrote nothing')

      t.same(pick(await store.appendToStream('lead-b', [ev('A'), ev('B'), ev('C')], 'no_stream')), {
        nextExpectedRevision: 2,
      })
      await expectConflict(t, store.appendToStream('lead-b', [ev('D')], 'no_stream'), 'lead-b', 'no_stream', 2)
    })

    t.test('stream_exists fails on a missing stream and succeeds on an existing one', async (t) => {
      const store = await fresh(t)
      await expectConflict(t, store.appendToStream('lead-a', [ev('A'), ev('B')], 'stream_exists'), 'lead-a', 'stream_exists', -1)
      t.same(await store.readStream('lead-a'), [], 'nothing written')
      t.equal(await store.headPosition(), 0, 'log still empty')

      await store.appendToStream('lead-a', [ev('A')], 'no_stream')
      t.same(pick(await store.appendToStream('lead-a', [ev('B'), ev('C')], 'stream_exists')), { nextExpectedRevision: 2 })
      t.same(await types(store, 'lead-a'), ['A', 'B', 'C'])
    })

    t.test('any appends whether or not the stream exists', async (t) => {
      const store = await fresh(t)
      t.same(pick(await store.appendToStream('lead-a', [ev('A')], 'any')), { nextExpectedRevision: 0 })
      t.same(pick(await store.appendToStream('lead-a', [ev('B'), ev('C')], 'any')), { nextExpectedRevision: 2 })
      t.same(await types(store, 'lead-a'), ['A', 'B', 'C'])
    })

    t.test('an exact revision must equal the last revision of the stream', async (t) => {
      const store = await fresh(t)
      await expectConflict(t, store.appendToStream('lead-a', [ev('A')], 0), 'lead-a', 0, -1)
      t.same(await store.readStream('lead-a'), [], 'a numbered expectation does not create the stream')

      await store.appendToStream('lead-a', [ev('A'), ev('B'), ev('C')], 'no_stream')
      t.same(pick(await store.appendToStream('lead-a', [ev('D')], 2)), { nextExpectedRevision: 3 })
      await expectConflict(t, store.appendToStream('lead-a', [ev('X')], 2), 'lead-a', 2, 3)
      await expectConflict(t, store.appendToStream('lead-a', [ev('X')], 0), 'lead-a', 0, 3)
      await expectConflict(t, store.appendToStream('lead-a', [ev('X')], 7), 'lead-a', 7, 3)
      t.same(pick(await store.appendToStream('lead-a', [ev('E'), ev('F')], 3)), { nextExpectedRevision: 5 })
      t.same(await types(store, 'lead-a'), ['A', 'B', 'C', 'D', 'E', 'F'], 'only the appends that held were written')
    })

    t.test('a rejected multi-event append writes none of its events', async (t) => {
      const store = await fresh(t)
      await store.appendToStream('lead-a', [ev('A')], 'no_stream')
      const head = await store.headPosition()
      const many = Array.from({ length: 20 }, (_, i) => ev(`X${i}`))
      await expectConflict(t, store.appendToStream('lead-a', many, 5), 'lead-a', 5, 0)
      t.equal(await store.headPosition(), head)
      t.same(await types(store, 'lead-a'), ['A'])
    })

    t.test('a retried append with the same event ids is idempotent', async (t) => {
      const store = await fresh(t)
      const first = [ev('A', {}, uuid()), ev('B', {}, uuid())]
      const original = await store.appendToStream('lead-a', first, 'no_stream')
      t.same(await store.appendToStream('lead-a', first, 'no_stream'), original, 'retry answers like the original')
      t.same(await ids(store, 'lead-a'), first.map((e) => e.id), 'stored once')

      const second = [ev('C', {}, uuid())]
      const secondResult = await store.appendToStream('lead-a', second, original.nextExpectedRevision)
      t.same(await store.appendToStream('lead-a', second, original.nextExpectedRevision), secondResult)
      t.same(await store.appendToStream('lead-a', second, 'any'), secondResult, 'retry with any')

      await store.appendToStream('lead-a', [ev('D')], 'any')
      t.same(await store.appendToStream('lead-a', first, 'no_stream'), original, 'retry after later appends')
      t.same(await types(store, 'lead-a'), ['A', 'B', 'C', 'D'], 'nothing written twice')
    })

    t.test('an empty append checks the expectation and writes nothing', async (t) => {
      const store = await fresh(t)
      t.equal((await store.appendToStream('lead-a', [], 'no_stream')).nextExpectedRevision, -1)
      t.equal((await store.appendToStream('lead-a', [], 'any')).nextExpectedRevision, -1)
      await expectConflict(t, store.appendToStream('lead-a', [], 'stream_exists'), 'lead-a', 'stream_exists', -1)
      await expectConflict(t, store.appendToStream('lead-a', [], 0), 'lead-a', 0, -1)
      t.same(await store.readStream('lead-a'), [], 'no stream was created')

      const written = await store.appendToStream('lead-a', [ev('A'), ev('B')], 'no_stream')
      const head = await store.headPosition()
      t.equal((await store.appendToStream('lead-a', [], 1)).nextExpectedRevision, 1)
      t.equal((await store.appendToStream('lead-a', [], 'stream_exists')).nextExpectedRevision, 1)
      await expectConflict(t, store.appendToStream('lead-a', [], 'no_stream'), 'lead-a', 'no_stream', 1)
      await expectConflict(t, store.appendToStream('lead-a', [], 0), 'lead-a', 0, 1)
      t.equal(await store.headPosition(), head, 'nothing written')
      t.equal(written.position, head)
    })

    t.test('revisions count up per stream and positions increase across the log', async (t) => {
      const store = await fresh(t)
      const results: Array<{ stream: string; result: AppendResult; count: number }> = []
      for (let round = 0; round < 4; round++) {
        for (const stream of ['lead-a', 'lead-b', 'account-1']) {
          const count = 1 + ((round + stream.length) % 3)
          const events = Array.from({ length: count }, (_, i) => ev(`${stream}:${round}:${i}`))
          results.push({ stream, result: await store.appendToStream(stream, events, 'any'), count })
        }
      }
      const all = await store.readAll()
      t.equal(all.length, results.reduce((sum, r) => sum + r.count, 0))
      t.ok(strictlyIncreasing(all.map((e) => e.position)), 'positions strictly increase')
      t.same(
        all.map((e) => e.type),
        results.flatMap(({ stream, count }, i) => {
          const round = Math.floor(i / 3)
          return Array.from({ length: count }, (_, k) => `${stream}:${round}:${k}`)
        }),
        'the log is in append order',
      )
      for (const stream of ['lead-a', 'lead-b', 'account-1']) {
        const events = await store.readStream(stream)
        t.same(events.map((e) => e.revision), events.map((_, i) => i), `${stream} revisions are 0..n-1`)
      }
      for (const { stream, result } of results) {
        const last = all.filter((e) => e.stream === stream && e.revision === result.nextExpectedRevision)[0]
        t.equal(last?.position, result.position, 'an append reports the position of its last event')
      }
      t.equal(await store.headPosition(), all[all.length - 1]?.position)
      let previous = 0
      for (const { result } of results) {
        t.ok(result.position > previous, 'append positions increase')
        previous = result.position
      }
    })

    t.test('readStream reads forwards, backwards, from a revision and up to a limit', async (t) => {
      const store = await fresh(t)
      await store.appendToStream('lead-a', range(0, 5).map((i) => ev(`E${i}`)), 'no_stream')
      for (const i of range(5, 10)) await store.appendToStream('lead-a', [ev(`E${i}`)], i - 1)
      await store.appendToStream('lead-b', [ev('other')], 'no_stream')

      const revs = async (options?: Parameters<EventStore['readStream']>[1]): Promise<number[]> =>
        (await store.readStream('lead-a', options)).map((e) => e.revision)
      t.same(await revs(), range(0, 10), 'forwards by default')
      t.same(await revs({ from: 4 }), range(4, 10), 'from is inclusive')
      t.same(await revs({ limit: 3 }), [0, 1, 2])
      t.same(await revs({ from: 4, limit: 3 }), [4, 5, 6])
      t.same(await revs({ from: 10 }), [], 'from past the end')
      t.same(await revs({ direction: 'backwards' }), range(0, 10).reverse(), 'backwards from the last event')
      t.same(await revs({ direction: 'backwards', from: 6 }), [6, 5, 4, 3, 2, 1, 0])
      t.same(await revs({ direction: 'backwards', from: 6, limit: 2 }), [6, 5])
      t.same(await revs({ direction: 'backwards', limit: 3 }), [9, 8, 7])
      t.same(await revs({ direction: 'forwards', from: 8, limit: 100 }), [8, 9])
      t.same(
        (await store.readStream('lead-a')).map((e) => e.type),
        range(0, 10).map((i) => `E${i}`),
      )
      t.same(await store.readStream('lead-missing'), [], 'a missing stream reads as empty')
      t.same(await store.readStream('lead-missing', { direction: 'backwards' }), [])
    })

    t.test('streamRevision is the revision of the last event of the stream, -1 for none', async (t) => {
      const store = await fresh(t)
      t.equal(await store.streamRevision('lead-a'), -1, 'no stream')
      await store.appendToStream('lead-a', [ev('0'), ev('1'), ev('2')], 'no_stream')
      await store.appendToStream('lead-b', [ev('3')], 'no_stream')
      t.equal(await store.streamRevision('lead-a'), 2)
      t.equal(await store.streamRevision('lead-b'), 0)
      await store.appendToStream('lead-a', [ev('4')], 2)
      t.equal(await store.streamRevision('lead-a'), 3, 'moves with the stream')
      await t.rejects(store.appendToStream('lead-b', [ev('5')], 5), WrongExpectedRevisionError)
      t.equal(await store.streamRevision('lead-b'), 0, 'a refused append moves nothing')
      t.equal(await store.streamRevision('lead-'), -1, 'a prefix of a stream is no stream')
    })

    t.test('readAll reads from a position (inclusive) up to a limit', async (t) => {
      const store = await fresh(t)
      t.equal(await store.headPosition(), 0, 'an empty log has head position 0')
      t.same(await store.readAll(), [])
      await store.appendToStream('lead-a', [ev('0'), ev('1')], 'no_stream')
      await store.appendToStream('lead-b', [ev('2')], 'no_stream')
      await store.appendToStream('lead-a', [ev('3'), ev('4'), ev('5')], 1)
      const all = await store.readAll()
      t.same(all.map((e) => e.type), ['0', '1', '2', '3', '4', '5'])
      const positions = all.map((e) => e.position)
      const at = (i: number): number => positions[i] as number

      t.same((await store.readAll({ fromPosition: at(2) })).map((e) => e.type), ['2', '3', '4', '5'])
      t.same((await store.readAll({ limit: 2 })).map((e) => e.type), ['0', '1'])
      t.same((await store.readAll({ fromPosition: at(2), limit: 3 })).map((e) => e.type), ['2', '3', '4'])
      t.same((await store.readAll({ fromPosition: at(5) })).map((e) => e.type), ['5'])
      t.same(await store.readAll({ fromPosition: at(5) + 1 }), [], 'past the head')
      t.equal(await store.headPosition(), at(5))
    })

    t.test('ids, types, data, metadata, recordedAt and the hash chain round-trip', async (t) => {
      const store = await fresh(t)
      const before = Date.now()
      const id = uuid()
      const data = { phone: '+15551234567', score: 4.5, tags: ['hot', 'web'], nested: { ok: true, none: null }, zero: 0 }
      const metadata = {
        correlationId: 'corr-1',
        causationId: 'cause-1',
        actor: { kind: 'webhook_token', id: 'tok_123' },
        schemaVersion: 3,
      } as const
      await store.appendToStream('lead-a', [{ id, type: 'LeadReceived', data, metadata }], 'no_stream')
      await store.appendToStream('lead-a', [ev('B', { n: 1 }), ev('C', { n: 2 })], 0)
      await store.appendToStream('lead-a', [ev('D')], 2)
      const after = Date.now()

      const events = await store.readStream('lead-a')
      const first = events[0]
      t.ok(first, 'first event read back')
      if (first === undefined) return
      t.equal(first.id, id)
      t.equal(first.type, 'LeadReceived')
      t.equal(first.stream, 'lead-a')
      t.equal(first.revision, 0)
      t.same(first.data, data)
      t.same(first.metadata, metadata)
      t.match(first.recordedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/, 'recordedAt is ISO-8601 UTC')
      const recorded = Date.parse(first.recordedAt)
      t.ok(recorded >= before - 5000 && recorded <= after + 5000, 'recordedAt is the time of the append')

      t.equal(first.prevHash, null, 'revision 0 has no previous hash')
      t.ok(chainIsIntact(events), 'each prevHash is the previous hash and each hash recomputes')
      t.equal(new Set(events.map((e) => e.hash)).size, events.length, 'hashes differ')
      t.same(await store.readAll(), events, 'readAll returns the same events')
      t.equal(new Set(events.map((e) => e.id)).size, events.length, 'generated ids are unique')
    })

    t.test('no_stream race: of 50 writers on two clients exactly one creates the stream', async (t) => {
      const store = await fresh(t)
      const second = await secondClient(t, store)
      const clients = [store, second]
      const attempts = range(0, 50).map((i) => {
        const event = ev('LeadReceived', { writer: i }, uuid())
        return { event, outcome: (clients[i % 2] as EventStore).appendToStream('lead-race', [event], 'no_stream') }
      })
      const settled = await Promise.allSettled(attempts.map((a) => a.outcome))
      const winners = settled.flatMap((s, i) => (s.status === 'fulfilled' ? [i] : []))
      t.equal(winners.length, 1, 'exactly one writer wins')
      const losers = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []))
      t.equal(losers.length, 49)
      t.ok(
        losers.every((e) => e instanceof WrongExpectedRevisionError && e.stream === 'lead-race' && e.expected === 'no_stream' && e.actual === 0),
        'every loser gets WrongExpectedRevisionError(lead-race, no_stream, 0)',
      )
      const stored = await store.readStream('lead-race')
      t.equal(stored.length, 1)
      t.equal(stored[0]?.id, attempts[winners[0] ?? -1]?.event.id, 'the stored event is the winner’s')
      t.same(await second.readStream('lead-race'), stored, 'both clients agree')
    })

    t.test('exact-revision race: each round exactly one of 50 writers wins', async (t) => {
      const store = await fresh(t)
      const second = await secondClient(t, store)
      const clients = [store, second]
      await store.appendToStream('lead-race', [ev('Created')], 'no_stream')
      for (let round = 0; round < 8; round++) {
        const settled = await Promise.allSettled(
          range(0, 50).map((i) => (clients[i % 2] as EventStore).appendToStream('lead-race', [ev(`r${round}w${i}`)], round)),
        )
        const won = settled.filter((s) => s.status === 'fulfilled')
        t.equal(won.length, 1, `round ${round}: one winner`)
        const conflicts = settled.filter(
          (s) => s.status === 'rejected' && s.reason instanceof WrongExpectedRevisionError && s.reason.actual === round + 1,
        )
        t.equal(conflicts.length, 49, `round ${round}: 49 conflicts seeing revision ${round + 1}`)
      }
      const events = await second.readStream('lead-race')
      t.same(events.map((e) => e.revision), range(0, 9))
      t.ok(chainIsIntact(events), 'the chain survives the races')
    })

    t.test('subscribe delivers the catch-up, then live appends, in non-empty ordered batches', async (t) => {
      const store = await fresh(t)
      await store.appendToStream('lead-a', [ev('0'), ev('1'), ev('2')], 'no_stream')
      await store.appendToStream('lead-b', [ev('3'), ev('4')], 'no_stream')
      await store.appendToStream('lead-a', [ev('5'), ev('6')], 2)

      const consumer = consume(store.subscribe({ maxBatchSize: 3 }))
      t.teardown(() => consumer.subscription.close())
      t.ok(await waitUntil(() => consumer.events.length >= 7, LIVENESS_MS), 'catch-up delivered')

      await store.appendToStream('lead-b', [ev('7')], 1)
      await store.appendToStream('lead-c', [ev('8'), ev('9'), ev('10'), ev('11')], 'no_stream')
      t.ok(await waitUntil(() => consumer.events.length >= 12, LIVENESS_MS), 'live appends delivered')

      t.ok(consumer.batches.every((b) => b.length > 0 && b.length <= 3), 'batches are non-empty and respect maxBatchSize')
      t.same(consumer.events.map((e) => e.type), range(0, 12).map(String), 'everything, in order')
      t.ok(strictlyIncreasing(consumer.events.map((e) => e.position)), 'positions strictly increase')
      t.same(consumer.events, await store.readAll(), 'exactly the log')
      await consumer.subscription.close()
      t.ok(await waitUntil(() => consumer.ended, LIVENESS_MS), 'close ends the iteration')
      t.equal(consumer.error, undefined)
    })

    t.test('with lingerMs, live appends made close together arrive as one batch', async (t) => {
      const store = await fresh(t)
      await store.appendToStream('lead-a', [ev('0')], 'no_stream')
      const consumer = consume(store.subscribe({ maxBatchSize: 100, lingerMs: 400 }))
      t.teardown(() => consumer.subscription.close())
      t.ok(await waitUntil(() => consumer.events.length >= 1, LIVENESS_MS), 'catch-up delivered')
      // Three appends, each committed on its own, well inside the linger.
      for (const i of [1, 2, 3]) {
        await store.appendToStream('lead-a', [ev(String(i))], i - 1)
        await sleep(20)
      }
      t.ok(await waitUntil(() => consumer.events.length >= 4, LIVENESS_MS), 'live appends delivered')
      t.same(consumer.batches.map((b) => b.map((e) => e.type)), [['0'], ['1', '2', '3']], 'one batch for the three')
    })

    t.test('resuming from a checkpoint yields exactly the rest, without duplicates or gaps', async (t) => {
      const store = await fresh(t)
      for (const i of range(0, 10)) await store.appendToStream(`lead-${i % 3}`, [ev(String(i))], 'any')

      const firstRun = consume(store.subscribe({ maxBatchSize: 4 }))
      t.ok(await waitUntil(() => firstRun.events.length >= 4, LIVENESS_MS))
      const checkpoint = (firstRun.events[3] as RecordedEvent).position
      await firstRun.subscription.close()
      t.ok(await waitUntil(() => firstRun.ended, LIVENESS_MS))

      for (const i of range(10, 13)) await store.appendToStream(`lead-${i % 3}`, [ev(String(i))], 'any')
      const resumed = consume(store.subscribe({ fromCheckpoint: checkpoint, maxBatchSize: 4 }))
      t.teardown(() => resumed.subscription.close())
      t.ok(await waitUntil(() => resumed.events.length >= 9, LIVENESS_MS), 'the rest arrives')
      await sleep(200)
      t.same(resumed.events.map((e) => e.type), range(4, 13).map(String), 'exactly the events after the checkpoint')

      const fromHead = consume(store.subscribe({ fromCheckpoint: await store.headPosition() }))
      t.teardown(() => fromHead.subscription.close())
      await sleep(150)
      t.equal(fromHead.events.length, 0, 'nothing is delivered from the head until something is appended')
      await store.appendToStream('lead-new', [ev('13')], 'no_stream')
      t.ok(await waitUntil(() => fromHead.events.length >= 1, LIVENESS_MS))
      await sleep(100)
      t.same(fromHead.events.map((e) => e.type), ['13'])
    })

    t.test('close ends a pending iteration promptly', async (t) => {
      const store = await fresh(t)
      const idle = consume(store.subscribe())
      await sleep(50)
      t.notOk(idle.ended, 'waiting for live events')
      await idle.subscription.close()
      t.ok(await beforeTimer(() => idle.ended, 3000), 'for await finished promptly (well before any idle timeout)')
      t.equal(idle.error, undefined)

      const closedFirst = store.subscribe()
      await closedFirst.close()
      const neverStarted = consume(closedFirst)
      t.ok(await waitUntil(() => neverStarted.ended, LIVENESS_MS), 'a subscription closed before iterating yields nothing')
      t.equal(neverStarted.events.length, 0)

      await store.appendToStream('lead-a', [ev('A')], 'no_stream')
      let seen = 0
      for await (const batch of store.subscribe()) {
        seen += batch.length
        break
      }
      t.equal(seen, 1, 'breaking out of for await ends the subscription')
    })

    t.test('closing the store ends its subscriptions; close is idempotent', async (t) => {
      const store = await harness.open()
      const live = consume(store.subscribe())
      await sleep(50)
      await store.close()
      t.ok(await waitUntil(() => live.ended, LIVENESS_MS), 'pending iteration finished')
      await store.close()
      t.pass('second close resolves')
    })

    t.test('appends of a second client are visible to reads and subscriptions of the first', async (t) => {
      const store = await fresh(t)
      const second = await secondClient(t, store)
      await store.appendToStream('lead-a', [ev('A')], 'no_stream')
      t.same((await second.readStream('lead-a')).map((e) => e.type), ['A'], 'the second client reads the first’s append')

      const live = consume(store.subscribe())
      t.teardown(() => live.subscription.close())
      t.ok(await waitUntil(() => live.events.length >= 1, LIVENESS_MS))
      await second.appendToStream('lead-a', [ev('B')], 0)
      t.ok(await beforeTimer(() => live.events.length >= 2, 1000), 'the first client’s subscription sees it within a second')
      t.same((await store.readStream('lead-a')).map((e) => e.type), ['A', 'B'])
      t.equal(await store.streamRevision('lead-a'), 1, 'and its revision')
      t.same(pick(await store.appendToStream('lead-a', [ev('C')], 1)), { nextExpectedRevision: 2 }, 'the first client sees the new revision')
    })

    t.test('appends of another process reach an existing subscription within a second', async (t) => {
      const store = await fresh(t)
      await store.appendToStream('lead-local', [ev('local')], 'no_stream')
      const live = consume(store.subscribe())
      t.teardown(() => live.subscription.close())
      t.ok(await waitUntil(() => live.events.length >= 1, LIVENESS_MS), 'subscription is live')

      await harness.appendFromAnotherProcess(store, 'lead-child', 5)
      // From the moment the other process has committed them (it has exited).
      t.ok(await beforeTimer(() => live.events.length >= 6, 1000), 'all five arrive within a second')
      t.equal(live.events.filter((e) => e.stream === 'lead-child').length, 5)

      const events = await store.readStream('lead-child')
      t.same(events.map((e) => e.revision), range(0, 5))
      t.ok(chainIsIntact(events), 'the other process kept the chain')
      t.same(pick(await store.appendToStream('lead-child', [ev('after')], 4)), { nextExpectedRevision: 5 })
    })

    t.test('a large append is written whole, in order, or not at all', async (t) => {
      const store = await fresh(t)
      const big = range(0, 1000).map((i) => ev('Bulk', { i, padding: 'x'.repeat(500) }))
      const result = await store.appendToStream('lead-bulk', big, 'no_stream')
      t.equal(result.nextExpectedRevision, 999)
      const events = await store.readStream('lead-bulk')
      t.equal(events.length, 1000)
      t.same(events.map((e) => (e.data as { i: number }).i), range(0, 1000))
      t.ok(strictlyIncreasing(events.map((e) => e.position)), 'positions strictly increase')
      t.equal(events[999]?.position, result.position)
      t.ok(chainIsIntact(events), 'the chain holds across the batch')

      const head = await store.headPosition()
      await expectConflict(t, store.appendToStream('lead-bulk', big.map((e) => ev(e.type, e.data)), 5), 'lead-bulk', 5, 999)
      t.equal(await store.headPosition(), head, 'a rejected large append wrote nothing')
      t.equal((await store.readAll({ limit: 2000 })).length, 1000)
    })

    t.test('unicode survives in stream names, types and data', async (t) => {
      const store = await fresh(t)
      const stream = 'lead-ünïcødé-测试-😀'
      const data = {
        name: 'Zoë Ångström-Łukasiewicz',
        cjk: '李小龍 東京 서울',
        rtl: 'مرحبا שלום',
        emoji: '👩🏽‍💻🚀🇧🇷',
        combining: 'e\u0301 n\u0303',
        controls: 'tab\tnewline\nnul\u0000line-sep\u2028"quote"\\backslash',
        '键': 'value under a CJK key',
      }
      await store.appendToStream(stream, [ev('Naïve✓', data)], 'no_stream')
      const [event] = await store.readStream(stream)
      t.equal(event?.stream, stream)
      t.equal(event?.type, 'Naïve✓')
      t.same(event?.data, data)
      t.ok(event !== undefined && chainIsIntact([event]), 'the hash recomputes over unicode')
      t.same((await store.readAll()).map((e) => e.stream), [stream])
    })
  })
}

// ---------------------------------------------------------------------------------------------

const METADATA = {
  correlationId: 'corr-contract',
  causationId: null,
  actor: { kind: 'operator', id: 'contract-suite' },
  schemaVersion: 1,
} as const

function ev(type: string, data: unknown = {}, id?: string): NewEvent {
  return id === undefined ? { type, data, metadata: METADATA } : { id, type, data, metadata: METADATA }
}

function uuid(): string {
  return crypto.randomUUID()
}

function pick(result: AppendResult): { nextExpectedRevision: number } {
  return { nextExpectedRevision: result.nextExpectedRevision }
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i)
}

function strictlyIncreasing(values: readonly number[]): boolean {
  return values.every((v, i) => i === 0 || v > (values[i - 1] as number))
}

async function types(store: EventStore, stream: string): Promise<string[]> {
  return (await store.readStream(stream)).map((e) => e.type)
}

async function ids(store: EventStore, stream: string): Promise<string[]> {
  return (await store.readStream(stream)).map((e) => e.id)
}

/** Consecutive events of one stream: each links to its predecessor and its hash recomputes. */
export function chainIsIntact(events: readonly RecordedEvent[]): boolean {
  return events.every((event, i) => {
    const expectedPrev = i === 0 ? (event.revision === 0 ? null : event.prevHash) : (events[i - 1] as RecordedEvent).hash
    return event.prevHash === expectedPrev && hashEvent(event, event.prevHash) === event.hash
  })
}

async function expectConflict(
  t: Test,
  append: Promise<unknown>,
  stream: string,
  expected: ExpectedRevision,
  actual: number,
): Promise<void> {
  const error = await append.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(error instanceof WrongExpectedRevisionError)) {
    t.fail(`expected WrongExpectedRevisionError, got ${error === undefined ? 'success' : String(error)}`)
    return
  }
  t.equal(error.type, 'wrong_expected_revision')
  t.equal(error.stream, stream, 'error names the stream')
  t.equal(error.expected, expected, 'error carries the expectation')
  t.equal(error.actual, actual, `error carries the actual revision ${actual}`)
}

export interface Consumer {
  readonly subscription: Subscription
  readonly batches: RecordedEvent[][]
  readonly events: RecordedEvent[]
  /** Date.now() at which each event of `events` was delivered. */
  readonly receivedAt: number[]
  readonly ended: boolean
  readonly error: unknown
}

/** Iterates a subscription in the background, recording what arrives and when. */
export function consume(subscription: Subscription): Consumer {
  const consumer = {
    subscription,
    batches: [] as RecordedEvent[][],
    events: [] as RecordedEvent[],
    receivedAt: [] as number[],
    ended: false,
    error: undefined as unknown,
  }
  void (async () => {
    try {
      for await (const batch of subscription) {
        const at = Date.now()
        consumer.batches.push([...batch])
        for (const event of batch) {
          consumer.events.push(event)
          consumer.receivedAt.push(at)
        }
      }
    } catch (error) {
      consumer.error = error
    } finally {
      consumer.ended = true
    }
  })()
  return consumer
}

/** How long a wait for something that must happen may take before the test gives up: no budget, a hang's bound. */
export const LIVENESS_MS = 30_000

/**
 * Whether `condition` holds before a timer of `ms`, set now, fires. Order on the event loop rather than
 * a wall-clock budget: timers fire in the order they fall due, so a store that delivers on its own
 * shorter timer passes however loaded the machine, and one that waits longer fails.
 */
export async function beforeTimer(condition: () => boolean, ms: number): Promise<boolean> {
  let fired = false
  const timer = setTimeout(() => (fired = true), ms)
  while (!condition()) {
    if (fired) return false
    await sleep(5)
  }
  clearTimeout(timer)
  return true
}

export async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) return false
    await sleep(5)
  }
  return true
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
