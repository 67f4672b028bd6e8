import t from 'tap'
import type { NewEvent } from '../../src/domain/event.ts'
import { WrongExpectedRevisionError } from '../../src/eventstore/event-store.port.ts'
import { DuplicateEventIdError, MemoryEventStore, openMemoryEventStore } from '../../src/eventstore/memory/memory-event-store.adapter.ts'
import { eventStoreContract, type EventStoreHarness } from '../contract/event-store.contract.ts'

const METADATA = { correlationId: 'corr-memory', causationId: null, actor: { kind: 'operator', id: 'memory-test' }, schemaVersion: 1 } as const

function ev(type: string, data: unknown = {}, id?: string): NewEvent {
  return id === undefined ? { type, data, metadata: METADATA } : { id, type, data, metadata: METADATA }
}

const harness: EventStoreHarness = {
  name: 'memory',
  async open() {
    return openMemoryEventStore()
  },
  async openSecondClient(store) {
    return (store as MemoryEventStore).secondClient()
  },
  // A log in one process's memory has no other process: the other writer is another client of it.
  async appendFromAnotherProcess(store, stream, count) {
    const other = (store as MemoryEventStore).secondClient()
    for (let i = 0; i < count; i++) await other.appendToStream(stream, [ev(`child-${i}`)], i === 0 ? 'no_stream' : i - 1)
    await other.close()
  },
}

await eventStoreContract(t, harness)

const outcome = (append: Promise<unknown>): Promise<unknown> => append.then(() => undefined, (error: unknown) => error)

t.test('an event id is unique across the log; only an exact retry is idempotent', async (t) => {
  const store = openMemoryEventStore()
  const original = await store.appendToStream('lead-a', [ev('A', {}, 'id-a'), ev('B', {}, 'id-b')], 'no_stream')
  t.same(await store.appendToStream('lead-a', [ev('A', {}, 'id-a'), ev('B', {}, 'id-b')], 'any'), original)
  t.ok((await outcome(store.appendToStream('lead-x', [ev('A', {}, 'id-a')], 'any'))) instanceof DuplicateEventIdError, 'other stream')
  t.ok((await outcome(store.appendToStream('lead-a', [ev('B', {}, 'id-b'), ev('A', {}, 'id-a')], 'any'))) instanceof DuplicateEventIdError, 'reordered ids')
  t.ok(
    (await outcome(store.appendToStream('lead-a', [ev('A', {}, 'id-a'), ev('B', {}, 'id-b'), ev('C', {}, 'id-c')], 'any'))) instanceof DuplicateEventIdError,
    'a retry with an extra event',
  )
  const misplaced = await outcome(store.appendToStream('lead-a', [ev('A', {}, 'id-a'), ev('B', {}, 'id-b')], 3))
  t.ok(misplaced instanceof WrongExpectedRevisionError && misplaced.actual === 1, 'the same ids expected elsewhere in the stream')
  t.ok((await outcome(store.appendToStream('lead-d', [ev('D0', {}, 'same'), ev('D1', {}, 'same')], 'no_stream'))) instanceof DuplicateEventIdError, 'an id repeated within an append')
  t.same((await store.readAll()).map((e) => e.id), ['id-a', 'id-b'], 'nothing else was written')
})

t.test('what a caller changes after appending or reading does not change the log', async (t) => {
  const store = openMemoryEventStore()
  const data = { tags: ['hot'] }
  await store.appendToStream('lead-a', [ev('A', data)], 'no_stream')
  data.tags.push('changed')
  const [read] = await store.readStream('lead-a')
  t.same(read?.data, { tags: ['hot'] })
})

t.test('a closed store refuses reads and writes', async (t) => {
  const store = openMemoryEventStore()
  await store.close()
  await t.rejects(store.appendToStream('lead-a', [ev('A')], 'any'), /closed/)
  await t.rejects(store.readAll(), /closed/)
})
