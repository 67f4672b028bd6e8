import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import type { Test } from 'tap'
import type { NewEvent, RecordedEvent } from '../../src/domain/event.ts'
import {
  StoreUnavailableError,
  WrongExpectedRevisionError,
  type EventStore,
} from '../../src/eventstore/event-store.port.ts'
import {
  DuplicateEventIdError,
  SCHEMA_VERSION,
  openSqliteEventStore,
  type SqliteEventStore,
} from '../../src/eventstore/sqlite/sqlite-event-store.adapter.ts'
import {
  chainIsIntact,
  consume,
  eventStoreContract,
  sleep,
  waitUntil,
  type EventStoreHarness,
} from '../contract/event-store.contract.ts'

const projectRoot = fileURLToPath(new URL('../../', import.meta.url))
const childScript = fileURLToPath(new URL('../helpers/append-in-child.ts', import.meta.url))

const root = t.testdir()
let opened = 0

function freshPath(): string {
  opened++
  return join(root, `store-${opened}`, 'events.db')
}

function pathOf(store: EventStore): string {
  return (store as SqliteEventStore).path
}

/** The child script, run by node with tsx, from the project root so `--import tsx` resolves. */
function spawnChild(args: string[]): ReturnType<typeof spawn> {
  return spawn(process.execPath, ['--import', 'tsx', childScript, ...args], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** Runs the child to completion; a child still running after `timeoutMs` is killed and reported. */
function runChild(args: string[], timeoutMs = 30_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnChild(args)
    let stdout = ''
    let stderr = ''
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${timeoutMs} ms]`
      child.kill('SIGKILL')
    }, timeoutMs)
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

interface Ack {
  stream: string
  revision: number
  id: string
}

/** A child appending forever; collects its `ack` lines. */
function startLoopingChild(args: string[]): {
  acks: Ack[]
  isReady: () => boolean
  stderr: () => string
  kill: () => Promise<NodeJS.Signals | null>
} {
  const child = spawnChild(args)
  const acks: Ack[] = []
  let buffered = ''
  let ready = false
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString()
    const lines = buffered.split('\n')
    buffered = lines.pop() ?? ''
    for (const line of lines) {
      if (line === 'ready') ready = true
      const [word, stream, revision, id] = line.split(' ')
      if (word === 'ack' && stream !== undefined && revision !== undefined && id !== undefined) {
        acks.push({ stream, revision: Number(revision), id })
      }
    }
  })
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const closed = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)))
  return {
    acks,
    isReady: () => ready,
    stderr: () => stderr,
    kill: () => {
      child.kill('SIGKILL')
      return closed
    },
  }
}

const harness: EventStoreHarness = {
  name: 'sqlite',
  async open() {
    return openSqliteEventStore({ path: freshPath() })
  },
  async openSecondClient(store) {
    return openSqliteEventStore({ path: pathOf(store) })
  },
  async appendFromAnotherProcess(store, stream, count) {
    const { code, stderr } = await runChild([pathOf(store), stream, String(count)])
    if (code !== 0) throw new Error(`append-in-child exited with ${String(code)}: ${stderr}`)
  },
}

await eventStoreContract(t, harness)

const METADATA = {
  correlationId: 'corr-sqlite',
  causationId: null,
  actor: { kind: 'operator', id: 'sqlite-test' },
  schemaVersion: 1,
} as const

function ev(type: string, data: unknown = {}, id?: string): NewEvent {
  return id === undefined ? { type, data, metadata: METADATA } : { id, type, data, metadata: METADATA }
}

function fresh(t: Test, options: { clock?: () => Date } = {}): SqliteEventStore {
  const store = openSqliteEventStore({ path: freshPath(), ...options })
  t.teardown(() => store.close())
  return store
}

async function outcome(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => value,
    (error: unknown) => error,
  )
}

t.test('sqlite adapter', async (t) => {
  t.test('creates the schema with a version, WAL and full synchronous writes', async (t) => {
    const store = fresh(t)
    t.equal(store.kind, 'sqlite')
    t.equal(store.database.pragma('user_version', { simple: true }), SCHEMA_VERSION)
    t.equal(store.database.pragma('journal_mode', { simple: true }), 'wal')
    t.equal(store.database.pragma('synchronous', { simple: true }), 2, 'synchronous=FULL')
    t.ok((store.database.pragma('busy_timeout', { simple: true }) as number) >= 1000, 'busy_timeout set')
    const first = await store.appendToStream('lead-a', [ev('A')], 'no_stream')
    t.equal(first.position, 1, 'positions start at 1')
  })

  t.test('group commit: concurrent appends share a transaction', async (t) => {
    const store = fresh(t)
    const before = store.stats
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => store.appendToStream(`lead-${i}`, [ev('LeadReceived', { i })], 'no_stream')),
    )
    const after = store.stats
    t.equal(results.length, 200)
    t.equal(after.appends - before.appends, 200, 'all 200 appends settled')
    t.equal(after.events - before.events, 200)
    const transactions = after.transactions - before.transactions
    t.ok(transactions < 200, `fewer transactions than appends (${transactions})`)
    t.equal(transactions, 1, 'appends of one tick go in one transaction')

    // Sequential appends to one stream from concurrent writers still batch.
    const writers = Array.from({ length: 20 }, async (_, w) => {
      for (let n = 0; n < 10; n++) await store.appendToStream('lead-shared', [ev('Tick', { w, n })], 'any')
    })
    const mark = store.stats.transactions
    await Promise.all(writers)
    t.ok(store.stats.transactions - mark <= 11, `20 writers x 10 appends in ${store.stats.transactions - mark} transactions`)
    t.ok(chainIsIntact(await store.readStream('lead-shared')), 'the chain holds under batching')
  })

  t.test('a conflict inside a batch rejects only its own append', async (t) => {
    const store = fresh(t)
    await store.appendToStream('lead-existing', [ev('Seed', {}, 'seed-id')], 'no_stream')
    const mark = store.stats.transactions

    const created = store.appendToStream('lead-a', [ev('A0')], 'no_stream')
    const lostRace = store.appendToStream('lead-a', [ev('LOST')], 'no_stream')
    const other = store.appendToStream('lead-b', [ev('B0'), ev('B1')], 'no_stream')
    const followUp = store.appendToStream('lead-a', [ev('A1')], 0)
    const reusedId = store.appendToStream('lead-c', [ev('C0'), ev('C1', {}, 'seed-id'), ev('C2')], 'no_stream')
    const repeatedId = store.appendToStream('lead-d', [ev('D0', {}, 'same'), ev('D1', {}, 'same')], 'no_stream')
    // One event alone (no savepoint of its own): its INSERT is undone by itself.
    const reusedAlone = store.appendToStream('lead-e', [ev('E0', {}, 'seed-id')], 'no_stream')
    const stale = store.appendToStream('lead-b', [ev('STALE')], 5)
    const last = store.appendToStream('lead-a', [ev('A2')], 'stream_exists')

    t.same(await created, { nextExpectedRevision: 0, position: 2 })
    const lost = await outcome(lostRace)
    t.ok(lost instanceof WrongExpectedRevisionError && lost.actual === 0, 'a no_stream loser inside the batch sees the winner')
    t.equal((await other).nextExpectedRevision, 1)
    t.equal((await followUp).nextExpectedRevision, 1, 'an append sees an earlier one of the same batch')
    const reused = await outcome(reusedId)
    t.ok(reused instanceof DuplicateEventIdError, 'an id stored in another stream is rejected')
    t.equal((reused as DuplicateEventIdError).eventId, 'seed-id')
    t.ok((await outcome(repeatedId)) instanceof DuplicateEventIdError, 'an id repeated within an append is rejected')
    t.ok((await outcome(reusedAlone)) instanceof DuplicateEventIdError, 'an append of one event whose id is stored is rejected')
    const staleError = await outcome(stale)
    t.ok(staleError instanceof WrongExpectedRevisionError && staleError.actual === 1)
    t.equal((await last).nextExpectedRevision, 2)
    t.equal(store.stats.transactions - mark, 1, 'all in one transaction')

    t.same((await store.readStream('lead-a')).map((e) => e.type), ['A0', 'A1', 'A2'])
    t.same((await store.readStream('lead-b')).map((e) => e.type), ['B0', 'B1'])
    t.same(await store.readStream('lead-c'), [], 'the partly inserted append was rolled back to its savepoint')
    t.same(await store.readStream('lead-d'), [])
    t.same(await store.readStream('lead-e'), [], 'the one-event append left nothing')
    const all = await store.readAll()
    t.same(all.map((e) => e.position), all.map((_, i) => i + 1), 'rolled-back appends leave no holes in positions')
  })

  t.test('an event id is unique across the log; only an exact retry is idempotent', async (t) => {
    const store = fresh(t)
    const original = await store.appendToStream('lead-a', [ev('A', {}, 'id-a'), ev('B', {}, 'id-b')], 'no_stream')
    t.same(await store.appendToStream('lead-a', [ev('A', {}, 'id-a'), ev('B', {}, 'id-b')], 'any'), original)
    t.ok((await outcome(store.appendToStream('lead-x', [ev('A', {}, 'id-a')], 'any'))) instanceof DuplicateEventIdError, 'other stream')
    t.ok(
      (await outcome(store.appendToStream('lead-a', [ev('B', {}, 'id-b'), ev('A', {}, 'id-a')], 'any'))) instanceof DuplicateEventIdError,
      'reordered ids',
    )
    t.ok(
      (await outcome(store.appendToStream('lead-a', [ev('A', {}, 'id-a'), ev('B', {}, 'id-b'), ev('C', {}, 'id-c')], 'any'))) instanceof
        DuplicateEventIdError,
      'a retry with an extra event',
    )
    const misplaced = await outcome(store.appendToStream('lead-a', [ev('A', {}, 'id-a'), ev('B', {}, 'id-b')], 3))
    t.ok(misplaced instanceof WrongExpectedRevisionError && misplaced.actual === 1, 'the same ids expected elsewhere in the stream')
    t.same((await store.readAll()).map((e) => e.id), ['id-a', 'id-b'], 'nothing else was written')
  })

  t.test('events survive closing and reopening, and the chain continues', async (t) => {
    const path = freshPath()
    const clock = (): Date => new Date('2030-01-02T03:04:05.678Z')
    const first = openSqliteEventStore({ path, clock })
    await first.appendToStream('lead-a', [ev('A'), ev('B')], 'no_stream')
    await first.appendToStream('account-1', [ev('Opened')], 'no_stream')
    const before = await first.readAll()
    await first.close()

    const reopened = openSqliteEventStore({ path })
    t.teardown(() => reopened.close())
    t.same(await reopened.readAll(), before, 'identical after reopening')
    t.equal(before[0]?.recordedAt, '2030-01-02T03:04:05.678Z', 'recordedAt comes from the injected clock')
    t.same((await reopened.appendToStream('lead-a', [ev('C')], 1)).nextExpectedRevision, 2)
    t.ok(chainIsIntact(await reopened.readStream('lead-a')), 'the chain links across the reopen')
    t.equal(await reopened.headPosition(), 4)
  })

  t.test('close flushes queued appends, is idempotent, and refuses later appends', async (t) => {
    const path = freshPath()
    const store = openSqliteEventStore({ path })
    const pending = store.appendToStream('lead-a', [ev('A')], 'no_stream')
    const live = consume(store.subscribe())
    await Promise.all([store.close(), store.close()])
    t.equal((await pending).nextExpectedRevision, 0, 'the queued append was written before closing')
    t.ok(await waitUntil(() => live.ended, 1000), 'subscriptions ended')
    t.ok((await outcome(store.appendToStream('lead-a', [ev('B')], 0))) instanceof StoreUnavailableError)
    t.ok((await outcome(store.readAll())) instanceof StoreUnavailableError)

    const reopened = openSqliteEventStore({ path })
    t.teardown(() => reopened.close())
    t.same((await reopened.readStream('lead-a')).map((e) => e.type), ['A'])
  })

  t.test('a read-only database rejects the whole batch with StoreUnavailableError, then recovers', async (t) => {
    const store = fresh(t)
    await store.appendToStream('lead-a', [ev('A')], 'no_stream')
    const before = await store.readAll()

    store.database.pragma('query_only = ON') // the connection now fails writes with SQLITE_READONLY
    const batch = [
      store.appendToStream('lead-a', [ev('B')], 0),
      store.appendToStream('lead-b', [ev('X'), ev('Y')], 'no_stream'),
      store.appendToStream('lead-c', [ev('Z')], 'any'),
    ]
    const errors = await Promise.all(batch.map(outcome))
    t.ok(errors.every((e) => e instanceof StoreUnavailableError), 'every append of the batch is rejected')
    t.match((errors[0] as StoreUnavailableError).cause, { code: /^SQLITE_READONLY/ })
    t.same(await store.readAll(), before, 'nothing partially written')

    store.database.pragma('query_only = OFF')
    t.equal((await store.appendToStream('lead-a', [ev('B')], 0)).nextExpectedRevision, 1, 'works again')
    t.ok(chainIsIntact(await store.readStream('lead-a')))
  })

  t.test('a full disk rejects the whole batch with StoreUnavailableError, then recovers', async (t) => {
    const store = fresh(t)
    await store.appendToStream('lead-a', [ev('A')], 'no_stream')
    const before = await store.readAll()

    const pages = store.database.pragma('page_count', { simple: true }) as number
    store.database.pragma(`max_page_count = ${pages}`)
    const small = store.appendToStream('lead-a', [ev('B')], 0)
    const big = store.appendToStream('lead-big', [ev('Huge', { blob: 'x'.repeat(200_000) })], 'no_stream')
    const errors = await Promise.all([outcome(small), outcome(big)])
    t.ok(errors.every((e) => e instanceof StoreUnavailableError), 'both appends of the batch are rejected')
    t.match((errors[1] as StoreUnavailableError).cause, { code: /^SQLITE_FULL/ })
    t.same(await store.readAll(), before, 'nothing partially written')

    store.database.pragma('max_page_count = 1073741823')
    const [again, bigAgain] = await Promise.all([
      store.appendToStream('lead-a', [ev('B')], 0),
      store.appendToStream('lead-big', [ev('Huge', { blob: 'x'.repeat(200_000) })], 'no_stream'),
    ])
    t.equal(again.nextExpectedRevision, 1)
    t.equal(bigAgain.nextExpectedRevision, 0)
    t.equal(store.database.pragma('integrity_check', { simple: true }), 'ok')
  })

  t.test('many subscriptions share one poll timer and all see another client’s append', async (t) => {
    const store = fresh(t)
    const realSetInterval = globalThis.setInterval
    const realClearInterval = globalThis.clearInterval
    let started = 0
    let cleared = 0
    let unrefed = 0
    globalThis.setInterval = ((...args: Parameters<typeof setInterval>) => {
      started++
      const timer = realSetInterval(...args)
      const unref = timer.unref.bind(timer)
      timer.unref = () => {
        unrefed++
        return unref()
      }
      return timer
    }) as typeof setInterval
    globalThis.clearInterval = ((timer: Parameters<typeof clearInterval>[0]) => {
      cleared++
      realClearInterval(timer)
    }) as typeof clearInterval
    t.teardown(() => {
      globalThis.setInterval = realSetInterval
      globalThis.clearInterval = realClearInterval
    })

    const consumers = Array.from({ length: 100 }, () => consume(store.subscribe()))
    t.teardown(() => Promise.all(consumers.map((c) => c.subscription.close())))
    t.equal(started, 1, 'one poll timer for 100 subscriptions')
    t.equal(unrefed, 1, 'the poll timer is unref’d')

    const other = openSqliteEventStore({ path: store.path })
    t.teardown(() => other.close())
    await other.appendToStream('lead-a', [ev('A')], 'no_stream')
    const appendedAt = Date.now()
    t.ok(await waitUntil(() => consumers.every((c) => c.events.length === 1), 2000), 'every subscription got it')
    const latency = Date.now() - appendedAt
    t.ok(latency < 1000, `within a second (${latency} ms)`)

    await Promise.all(consumers.slice(1).map((c) => c.subscription.close()))
    t.equal(cleared, 0, 'the timer runs while a subscription remains')
    await consumers[0]?.subscription.close()
    t.equal(cleared, 1, 'the timer stops with the last subscription')
    t.equal(started, 1)
  })

  t.test('a subscription caught up on this store’s own commits still sees another client’s, in log order', async (t) => {
    const store = fresh(t)
    const consumers = [consume(store.subscribe()), consume(store.subscribe({ lingerMs: 5 }))]
    t.teardown(() => Promise.all(consumers.map((c) => c.subscription.close())))
    const other = openSqliteEventStore({ path: store.path })
    t.teardown(() => other.close())
    const seen = (n: number) => waitUntil(() => consumers.every((c) => c.events.length === n), 2000)

    await store.appendToStream('lead-a', [ev('Own1')], 'no_stream')
    t.ok(await seen(1), 'its own commit, from memory')
    // Caught up in memory: only the file knows of this one.
    await other.appendToStream('lead-b', [ev('Other1')], 'no_stream')
    const appendedAt = Date.now()
    t.ok(await seen(2), 'another client’s commit after its own last one')
    t.ok(Date.now() - appendedAt < 1000, 'within a second')
    await store.appendToStream('lead-a', [ev('Own2')], 0)
    await other.appendToStream('lead-b', [ev('Other2')], 0)
    await store.appendToStream('lead-a', [ev('Own3')], 1)
    t.ok(await seen(5))
    const inOrder = (await store.readAll()).map((e) => e.type)
    for (const c of consumers) t.same(c.events.map((e) => e.type), inOrder, 'every event once, in log order')
    t.same(inOrder, ['Own1', 'Other1', 'Own2', 'Other2', 'Own3'])
  })

  t.test('an open subscription does not keep the process alive', async (t) => {
    const path = freshPath()
    const started = Date.now()
    const { code, stdout, stderr } = await runChild([path, 'lead-idle', '2', '--then-subscribe'])
    t.equal(code, 0, stderr)
    t.match(stdout, /batch 2/, 'the child subscribed and caught up')
    t.ok(Date.now() - started < 20_000, 'and exited by itself')
  })

  t.test('SIGKILL mid-append: every acknowledged event survives and the chains are intact', async (t) => {
    const path = freshPath()
    const child = startLoopingChild([path, 'crash', '8', '--crash-loop'])
    t.teardown(() => child.kill())
    t.ok(await waitUntil(child.isReady, 20_000), `child started ${child.stderr()}`)
    t.ok(await waitUntil(() => child.acks.length >= 2000, 20_000), 'child is appending')
    await sleep(Math.floor(Math.random() * 50))
    t.equal(await child.kill(), 'SIGKILL')
    const acks = child.acks
    t.ok(acks.length >= 2000, `${acks.length} appends acknowledged before the kill`)

    const store = openSqliteEventStore({ path })
    t.teardown(() => store.close())
    t.equal(store.database.pragma('integrity_check', { simple: true }), 'ok', 'database intact')
    const byId = new Map<string, RecordedEvent>((await store.readAll()).map((e) => [e.id, e]))
    const missing = acks.filter((a) => {
      const stored = byId.get(a.id)
      return stored?.stream !== a.stream || stored.revision !== a.revision
    })
    t.equal(missing.length, 0, 'every acknowledged event is stored where it was acknowledged')

    for (let writer = 0; writer < 8; writer++) {
      const events = await store.readStream(`crash-${writer}`)
      t.same(events.map((e) => e.revision), events.map((_, i) => i), `crash-${writer}: revisions without holes`)
      t.ok(chainIsIntact(events), `crash-${writer}: hash chain intact`)
    }
    t.ok((await store.appendToStream('crash-0', [ev('AfterCrash')], 'stream_exists')).nextExpectedRevision > 0, 'appends resume')
  })

  t.test('two processes appending to one stream at once: nothing fails, nothing is lost, one chain', async (t) => {
    const store = fresh(t)
    await store.appendToStream('lead-shared', [ev('Created')], 'no_stream')
    const child = startLoopingChild([store.path, 'lead-shared', '4', '--loop-any'])
    t.teardown(() => child.kill())
    t.ok(await waitUntil(child.isReady, 20_000), `child started ${child.stderr()}`)
    t.ok(await waitUntil(() => child.acks.length >= 50, 20_000), 'child is appending')

    const ours: string[] = []
    const childAcksBefore = child.acks.length
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, async (_, w) => {
        for (let n = 0; n < 30; n++) {
          const id = crypto.randomUUID()
          await store.appendToStream('lead-shared', [ev('Parent', { w, n }, id)], 'any')
          ours.push(id)
        }
      }),
    )
    const childAcksDuring = child.acks.length - childAcksBefore
    await child.kill()
    t.same(outcomes.filter((o) => o.status === 'rejected'), [], 'no append of this process failed')
    t.ok(childAcksDuring > 0, `the child appended meanwhile (${childAcksDuring} acks)`)

    const events = await store.readStream('lead-shared')
    const stored = new Set(events.map((e) => e.id))
    t.ok(ours.every((id) => stored.has(id)), 'all 300 of this process’s events are stored')
    t.ok(child.acks.every((a) => stored.has(a.id)), 'all of the child’s acknowledged events are stored')
    t.same(events.map((e) => e.revision), events.map((_, i) => i), 'one stream, revisions without holes')
    t.ok(chainIsIntact(events), 'one intact hash chain across both writers')
  })
})
