/**
 * The process runner's checkpoint: every event reaches the reactors once and in order; the position
 * delivered is saved at once after a quiet spell, else within SAVE_EVERY_MS (not one write per batch),
 * and on stop; a runner started again goes on from what was saved.
 */
import path from 'node:path'
import t, { type Test } from 'tap'
import type { RecordedEvent } from '../../src/domain/event.ts'
import { openSqliteEventStore } from '../../src/eventstore/sqlite/index.ts'
import { ProcessRunner, type Reactor } from '../../src/processes/process-runner.ts'
import { openViewsDatabase } from '../../src/read-models/views-database.ts'

/** A log and a views database in the test's directory, closed after it. */
function openBoth(t: Test) {
  const dir = t.testdir()
  const store = openSqliteEventStore({ path: path.join(dir, 'events.db') })
  const views = openViewsDatabase(path.join(dir, 'views.db'))
  t.teardown(async () => {
    await store.close()
    views.close()
  })
  return { store, views }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const metadata = { correlationId: 'c', causationId: null, actor: { kind: 'process', id: 'test' }, schemaVersion: 1 } as const

t.test('delivered once, in order; saved after a quiet spell at once, under a stream of batches within 250 ms, and on stop', async (t) => {
  const { store, views } = openBoth(t)
  const seen: string[] = []
  const reactor: Reactor = { name: 'recorder', handles: ['Tick'], react: async (event: RecordedEvent) => void seen.push(event.stream) }
  const saved = () => (views.prepare('SELECT position FROM process_checkpoints WHERE name = ?').get('test') as { position: number } | undefined)?.position
  const append = async (stream: string) => (await store.appendToStream(stream, [{ type: 'Tick', data: {}, metadata }], 'no_stream')).position

  const runner = new ProcessRunner(store, views, 'test', [reactor])
  await runner.start()
  t.equal(saved(), 0, 'a runner that never ran starts at the head')
  const first = await append('s-1')
  await sleep(50)
  t.equal(saved(), first, 'the first batch after a quiet spell is saved at once')
  let last = first
  for (let i = 2; i <= 6; i++) {
    last = await append(`s-${i}`)
    await sleep(10)
  }
  t.same(seen, ['s-1', 's-2', 's-3', 's-4', 's-5', 's-6'], 'each once, in order')
  t.ok((saved() ?? 0) < last, 'batches close together are not each saved')
  await sleep(300)
  t.equal(saved(), last, 'the last one within 250 ms')

  const more = await append('s-7')
  await sleep(20)
  await runner.stop()
  t.equal(saved(), more, 'stop saves what was delivered')

  await append('s-8')
  const again = new ProcessRunner(store, views, 'test', [reactor])
  await again.start()
  await sleep(100)
  await again.stop()
  t.same(seen.slice(6), ['s-7', 's-8'], 'a new runner goes on from the saved position: s-7 is not delivered again')
})

t.test('a runner that never ran begins at the checkpoint it inherits (a reactor moved to a runner of its own), else at the head', async (t) => {
  const { store, views } = openBoth(t)
  const seen: string[] = []
  const reactor: Reactor = { name: 'recorder', handles: ['Tick'], react: async (event: RecordedEvent) => void seen.push(event.stream) }
  const append = async (stream: string) => (await store.appendToStream(stream, [{ type: 'Tick', data: {}, metadata }], 'no_stream')).position
  const old = new ProcessRunner(store, views, 'old', [])
  await old.start()
  await old.stop()
  await append('s-1')
  await append('s-2')
  const moved = new ProcessRunner(store, views, 'moved', [reactor], undefined, { inheritCheckpoint: 'old', maxBatchSize: 1 })
  await moved.start()
  await sleep(100)
  await moved.stop()
  t.same(seen, ['s-1', 's-2'], 'the events after the old checkpoint reach the moved reactor')
  const fresh = new ProcessRunner(store, views, 'fresh', [reactor], undefined, { inheritCheckpoint: 'none-such' })
  await fresh.start()
  await sleep(50)
  await fresh.stop()
  t.same(seen, ['s-1', 's-2'], 'without a checkpoint to inherit: from the head, nothing again')
})

t.test('the checkpoint stays before an event whose reaction has not settled, and later events are delivered meanwhile', async (t) => {
  const { store, views } = openBoth(t)
  const seen: string[] = []
  const settle = new Map<string, () => void>()
  // A reaction to a `held-*` event stays in memory (a call waiting its turn) until the test settles it.
  const reactor: Reactor = {
    name: 'holder',
    handles: ['Tick'],
    react: async (event: RecordedEvent) => {
      seen.push(event.stream)
      if (!event.stream.startsWith('held')) return
      return { settled: new Promise<void>((resolve) => settle.set(event.stream, resolve)) }
    },
  }
  const saved = () => (views.prepare('SELECT position FROM process_checkpoints WHERE name = ?').get('test') as { position: number } | undefined)?.position
  const append = async (stream: string) => (await store.appendToStream(stream, [{ type: 'Tick', data: {}, metadata }], 'no_stream')).position

  const runner = new ProcessRunner(store, views, 'test', [reactor])
  await runner.start()
  const first = await append('done-1')
  await append('held-1')
  await append('done-2')
  const last = await append('done-3')
  await sleep(300)
  t.same(seen, ['done-1', 'held-1', 'done-2', 'done-3'], 'later events are not held back by a reaction in memory')
  t.equal(saved(), first, 'the checkpoint stays just before the event whose reaction is in memory')
  settle.get('held-1')?.()
  await sleep(300)
  t.equal(saved(), last, 'once it settles, the checkpoint moves to the last delivered')

  await append('held-2')
  await append('done-4')
  await sleep(50)
  await runner.stop()
  t.equal(saved(), last, 'stop saves before the reaction still in memory')

  const again = new ProcessRunner(store, views, 'test', [reactor])
  await again.start()
  await sleep(100)
  await again.stop()
  t.same(seen.slice(4), ['held-2', 'done-4', 'held-2', 'done-4'], 'after the stop, delivered again from there')
})
