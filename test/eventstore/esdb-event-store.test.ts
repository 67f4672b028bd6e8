/**
 * The EventStoreDB adapter: the event store contract against the in-memory gRPC test double
 * (always), and against a real EventStoreDB / KurrentDB when EVENTSTORE_TEST_URL is set, e.g.
 *
 *   docker compose up -d eventstore
 *   EVENTSTORE_TEST_URL='esdb://127.0.0.1:2113?tls=false' npx tap test/eventstore/esdb-event-store.test.ts
 *
 * The "server semantics" tests use the client directly: on a real server they check that the
 * double behaves like EventStoreDB where Leadline depends on it.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import type { Test } from 'tap'
import {
  EventStoreDBClient,
  NO_STREAM,
  START,
  END,
  BACKWARDS,
  excludeSystemEvents,
  jsonEvent,
  type ResolvedEvent,
} from '@eventstore/db-client'
import type { NewEvent, RecordedEvent } from '../../src/domain/event.ts'
import { StoreUnavailableError, WrongExpectedRevisionError, type EventStore } from '../../src/eventstore/event-store.port.ts'
import {
  DivergedStreamError,
  clientConnectionString,
  openEsdbEventStore,
  redactConnectionString,
  type EsdbEventStore,
} from '../../src/eventstore/eventstoredb/esdb-event-store.adapter.ts'
import { esdbEventId } from '../../src/eventstore/eventstoredb/esdb-events.ts'
import type { ProgressLogger } from '../../src/eventstore/eventstoredb/catch-up-progress.ts'
import { openEventStore } from '../../src/eventstore/open-event-store.ts'
import { startEsdbDouble, type EsdbDouble, type EsdbDoubleOptions } from '../doubles/esdb/esdb-double.ts'
import { chainIsIntact, consume, eventStoreContract, sleep, waitUntil, type EventStoreHarness } from '../contract/event-store.contract.ts'

const projectRoot = fileURLToPath(new URL('../../', import.meta.url))
const childScript = fileURLToPath(new URL('../doubles/esdb/append-in-child.ts', import.meta.url))
const REAL_SERVER = process.env.EVENTSTORE_TEST_URL?.trim() || undefined

const SILENT: ProgressLogger = { info() {}, warn() {} }

/** A logger that keeps what it is told. */
function recordingLogger(): ProgressLogger & { lines: Array<{ level: string; message: string; fields: Record<string, unknown> }> } {
  const lines: Array<{ level: string; message: string; fields: Record<string, unknown> }> = []
  return {
    lines,
    info: (fields, message) => void lines.push({ level: 'info', message, fields }),
    warn: (fields, message) => void lines.push({ level: 'warn', message, fields }),
  }
}

const doubles: EsdbDouble[] = []
t.teardown(() => Promise.all(doubles.map((d) => d.close())))

async function double(options: EsdbDoubleOptions = {}): Promise<EsdbDouble> {
  const started = await startEsdbDouble(options)
  doubles.push(started)
  return started
}

interface Placement {
  readonly url: string
  readonly prefix: string
}
const placements = new WeakMap<EventStore, Placement>()

function open(placement: Placement, logger: ProgressLogger = SILENT): EsdbEventStore {
  const store = openEsdbEventStore({ connectionString: placement.url, logger, ...(placement.prefix ? { streamPrefix: placement.prefix } : {}) })
  placements.set(store, placement)
  return store
}

function runChild(args: string[], timeoutMs = 30_000): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', childScript, ...args], { cwd: projectRoot, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stderr })
    })
  })
}

function harness(name: string, place: () => Promise<Placement>): EventStoreHarness {
  return {
    name,
    async open() {
      return open(await place())
    },
    async openSecondClient(store) {
      return open(placements.get(store) as Placement)
    },
    async appendFromAnotherProcess(store, stream, count) {
      const { url, prefix } = placements.get(store) as Placement
      const { code, stderr } = await runChild([url, stream, String(count), ...(prefix ? [prefix] : [])])
      if (code !== 0) throw new Error(`append-in-child exited with ${String(code)}: ${stderr}`)
    },
  }
}

let runs = 0
/** On a real server nothing can be emptied: each "fresh store" is a fresh stream prefix. */
const realPlacement = async (): Promise<Placement> => ({ url: REAL_SERVER as string, prefix: `t${Date.now().toString(36)}${++runs}-` })

const METADATA = { correlationId: 'corr-esdb', causationId: null, actor: { kind: 'operator', id: 'esdb-test' }, schemaVersion: 1 } as const

function ev(type: string, data: unknown = {}, id?: string): NewEvent {
  return id === undefined ? { type, data, metadata: METADATA } : { id, type, data, metadata: METADATA }
}

async function outcome(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  )
}

// ---- the contract ------------------------------------------------------------------------------

await eventStoreContract(t, harness('esdb (test double)', async () => ({ url: (await double()).url, prefix: '' })))

if (REAL_SERVER) {
  await eventStoreContract(t, harness(`esdb (real server ${redactConnectionString(REAL_SERVER)})`, realPlacement))
} else {
  t.comment('real-server leg skipped: set EVENTSTORE_TEST_URL (e.g. esdb://127.0.0.1:2113?tls=false after `docker compose up -d eventstore`)')
  t.test('esdb (real server) event store contract', { skip: 'real-server leg skipped: EVENTSTORE_TEST_URL is not set' }, async () => {})
}

// ---- EventStoreDB's own behaviour, as Leadline relies on it (double, and the real server when set) --

async function serverSemantics(t: Test, name: string, url: () => Promise<string>): Promise<unknown> {
  return t.test(`server semantics: ${name}`, async (t) => {
    const client = EventStoreDBClient.connectionString(clientConnectionString(await url()))
    t.teardown(() => client.dispose())
    const unique = (what: string) => `${what}-${crypto.randomUUID()}`
    const event = (type: string, id = crypto.randomUUID()) => jsonEvent({ id, type, data: { type } })
    const collect = async (read: AsyncIterable<ResolvedEvent>) => {
      const out: ResolvedEvent[] = []
      for await (const resolved of read) out.push(resolved)
      return out
    }

    t.test('re-appending the same event ids is idempotent; a partial match is a wrong expected version', async (t) => {
      const stream = unique('lead')
      const batch = [event('A'), event('B')]
      const first = await client.appendToStream(stream, batch, { expectedRevision: NO_STREAM })
      const again = await client.appendToStream(stream, batch, { expectedRevision: NO_STREAM })
      t.equal(again.nextExpectedRevision, first.nextExpectedRevision, 'no_stream retry answers the original revision')
      const viaAny = await client.appendToStream(stream, batch, { expectedRevision: 'any' })
      t.equal(viaAny.nextExpectedRevision, 1n, 'any retry found by id')
      t.equal((await collect(client.readStream(stream))).length, 2, 'stored once')
      const partial = await outcome(client.appendToStream(stream, [batch[0] as ReturnType<typeof event>, event('C')], { expectedRevision: NO_STREAM }))
      t.match(partial, { type: 'wrong-expected-version' }, 'first id matches, second does not')
      const conflict = await outcome(client.appendToStream(stream, [event('D')], { expectedRevision: 0n }))
      t.match(conflict, { type: 'wrong-expected-version', actualVersion: 1n, expectedVersion: 0n })
    })

    t.test('every event has its own $all position, commit == prepare, increasing', async (t) => {
      const stream = unique('lead')
      await client.appendToStream(stream, [event('A'), event('B'), event('C')], { expectedRevision: NO_STREAM })
      const events = await collect(client.readStream(stream))
      const positions = events.map((e) => e.event?.position)
      t.ok(positions.every((p) => p !== undefined && p.commit === p.prepare), 'commit == prepare, also on stream reads')
      const commits = positions.map((p) => p?.commit ?? 0n)
      t.ok(commits.every((c, i) => i === 0 || c > (commits[i - 1] as bigint)), 'increasing')
      t.ok(commits.some((c, i) => i > 0 && c - (commits[i - 1] as bigint) > 1n), 'not contiguous')
      const [tail] = await collect(client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 }))
      t.ok(tail?.event !== undefined, 'reads $all backwards from the end')
    })

    t.test('a missing stream is StreamNotFound; $all cannot be read from inside a record', async (t) => {
      t.match(await outcome(collect(client.readStream(unique('lead-missing')))), { type: 'stream-not-found' })
      const stream = unique('lead')
      const written = await client.appendToStream(stream, [event('A')], { expectedRevision: NO_STREAM })
      const at = written.position as { commit: bigint }
      const from = await collect(client.readAll({ fromPosition: { commit: at.commit, prepare: at.commit }, maxCount: 1 }))
      t.equal(from[0]?.event?.streamId, stream, 'reading from an event position includes that event')
      const inside = await outcome(collect(client.readAll({ fromPosition: { commit: at.commit + 1n, prepare: at.commit + 1n }, maxCount: 1 })))
      t.ok(inside instanceof Error, `reading from inside a record fails (${String(inside)})`)
    })

    t.test('a filtered $all subscription skips system events and reports being caught up', async (t) => {
      const stream = unique('lead')
      await client.appendToStream(stream, [event('A')], { expectedRevision: NO_STREAM })
      const subscription = client.subscribeToAll({ fromPosition: START, filter: excludeSystemEvents() })
      t.teardown(() => subscription.unsubscribe())
      let caughtUp = false
      subscription.on('caughtUp', () => (caughtUp = true))
      const seen: string[] = []
      subscription.on('data', (resolved: ResolvedEvent) => void seen.push(resolved.event?.type ?? ''))
      t.ok(await waitUntil(() => seen.includes('A'), 10_000), 'catch-up delivered')
      await client.appendToStream(stream, [event('Live')], { expectedRevision: 0n })
      t.ok(await waitUntil(() => seen.includes('Live'), 5000), 'live delivered')
      t.ok(seen.every((type) => !type.startsWith('$')), 'no system events')
      t.ok(caughtUp, 'caughtUp was emitted')
    })
  })
}

await serverSemantics(t, 'test double', async () => (await double()).url)
await serverSemantics(t, 'test double, without BatchAppend (client falls back to Append)', async () => (await double({ batchAppend: false })).url)
if (REAL_SERVER) await serverSemantics(t, 'real server', async () => REAL_SERVER)

// ---- the adapter beyond the contract (double) ---------------------------------------------------

t.test('esdb adapter', async (t) => {
  async function fresh(t: Test, options: EsdbDoubleOptions = {}, logger: ProgressLogger = SILENT): Promise<{ store: EsdbEventStore; server: EsdbDouble }> {
    const server = await double(options)
    const store = open({ url: server.url, prefix: '' }, logger)
    t.teardown(() => store.close())
    return { store, server }
  }

  t.test('is what LEADLINE_STORE=esdb://… and kurrentdb://… open', async (t) => {
    const server = await double()
    for (const url of [server.url, server.url.replace(/^esdb/, 'kurrentdb')]) {
      const store = await openEventStore(url, { logger: SILENT })
      t.equal(store.kind, 'esdb')
      await store.appendToStream('lead-x', [ev('A')], 'any')
      t.ok((await store.headPosition()) > 0)
      await store.close()
    }
    t.equal(redactConnectionString('esdb://admin:changeit@db:2113?tls=true'), 'esdb://admin:***@db:2113?tls=true')
  })

  t.test('the contract through the Append RPC (servers without BatchAppend)', async (t) => {
    const { store } = await fresh(t, { batchAppend: false })
    t.equal((await store.appendToStream('lead-a', [ev('A'), ev('B')], 'no_stream')).nextExpectedRevision, 1)
    const conflict = await outcome(store.appendToStream('lead-a', [ev('C')], 0))
    t.ok(conflict instanceof WrongExpectedRevisionError && conflict.actual === 1)
    const ids = [ev('C', {}, crypto.randomUUID())]
    const first = await store.appendToStream('lead-a', ids, 1)
    t.same(await store.appendToStream('lead-a', ids, 1), first, 'a retry is idempotent')
    t.same(await store.appendToStream('lead-a', ids, 'any'), first)
    const events = await store.readStream('lead-a')
    t.same(events.map((e) => e.type), ['A', 'B', 'C'])
    t.ok(chainIsIntact(events))
  })

  t.test('after a retry answered from what was stored, the chain goes on from the stored events', async (t) => {
    let now = Date.parse('2030-01-01T00:00:00.000Z')
    const server = await double()
    const store = openEsdbEventStore({ connectionString: server.url, logger: SILENT, clock: () => new Date((now += 1000)) })
    t.teardown(() => store.close())
    const first = [ev('A', {}, crypto.randomUUID())]
    await store.appendToStream('lead-a', first, 'no_stream')
    await store.readStream('lead-a') // what the command handler does before deciding
    await store.appendToStream('lead-a', first, 'no_stream') // a retry: hashed with a later time, not stored
    await store.appendToStream('lead-a', [ev('B')], 0)
    await store.readStream('lead-a')
    await store.appendToStream('lead-a', [ev('C')], 1)
    await store.appendToStream('lead-a', [ev('D')], 'any')
    const events = await store.readStream('lead-a')
    t.same(events.map((e) => e.type), ['A', 'B', 'C', 'D'])
    t.ok(chainIsIntact(events), 'every event links to the one stored before it')
  })

  t.test('ids that are not UUIDs round-trip and still make retries idempotent', async (t) => {
    const { store } = await fresh(t)
    const events = [ev('A', {}, 'evt_one'), ev('B', {}, 'EVT-TWO'), ev('C', {}, 'F3A2B1C0-0000-4000-8000-000000000000')]
    const first = await store.appendToStream('lead-a', events, 'no_stream')
    t.same(await store.appendToStream('lead-a', events, 'no_stream'), first)
    const stored = await store.readStream('lead-a')
    t.same(stored.map((e) => e.id), ['evt_one', 'EVT-TWO', 'F3A2B1C0-0000-4000-8000-000000000000'])
    t.ok(chainIsIntact(stored))
    t.equal(esdbEventId('evt_one'), esdbEventId('evt_one'), 'the derived id is stable')
    t.match(esdbEventId('evt_one'), /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })

  t.test('system events between ours are never seen: reads, subscriptions, head', async (t) => {
    const { store, server } = await fresh(t)
    const live = consume(store.subscribe())
    t.teardown(() => live.subscription.close())
    await store.appendToStream('lead-a', [ev('A')], 'no_stream')
    server.log.writeSystemEvent('$stats-127.0.0.1:2113', '$statistics-collected', {})
    await store.appendToStream('lead-b', [ev('B')], 'no_stream')
    for (let i = 0; i < 150; i++) server.log.writeSystemEvent('$scavenges', '$scavengeStarted', { i })
    const all = await store.readAll()
    t.same(all.map((e) => e.type), ['A', 'B'])
    t.equal(await store.headPosition(), all[1]?.position, 'the head is our last event, 150 system events later')
    t.ok(await waitUntil(() => live.events.length >= 2, 5000))
    await sleep(100)
    t.same(live.events.map((e) => e.type), ['A', 'B'], 'the subscription saw only ours')
  })

  t.test('readAll from "checkpoint + 1" and from odd positions, on a client that has seen nothing', async (t) => {
    const { store, server } = await fresh(t)
    for (let i = 0; i < 10; i++) await store.appendToStream(`lead-${i % 3}`, [ev(String(i), { pad: 'x'.repeat(i * 7) })], 'any')
    const positions = (await store.readAll()).map((e) => e.position)
    const logger = recordingLogger()
    const other = open({ url: server.url, prefix: '' }, logger)
    t.teardown(() => other.close())
    const at = (i: number) => positions[i] as number
    t.same((await other.readAll({ fromPosition: at(3) + 1 })).map((e) => e.type), ['4', '5', '6', '7', '8', '9'], 'checkpoint + 1')
    const fresh2 = open({ url: server.url, prefix: '' }, logger)
    t.teardown(() => fresh2.close())
    t.same((await fresh2.readAll({ fromPosition: at(6), limit: 2 })).map((e) => e.type), ['6', '7'], 'an event position itself')
    t.same((await fresh2.readAll({ fromPosition: at(6) + 5 })).map((e) => e.type), ['7', '8', '9'], 'inside a record')
    t.match(logger.lines.at(-1), { level: 'warn', message: /reading \$all from the start/ })
    t.same(await fresh2.readAll({ fromPosition: at(9) + 1 }), [], 'past the head')
  })

  t.test('a subscription after a checkpoint the server cannot start at falls back without gaps', async (t) => {
    const { store } = await fresh(t)
    for (let i = 0; i < 5; i++) await store.appendToStream('lead-a', [ev(String(i))], 'any')
    const positions = (await store.readAll()).map((e) => e.position)
    const resumed = consume(store.subscribe({ fromCheckpoint: (positions[1] as number) + 3 }))
    t.teardown(() => resumed.subscription.close())
    t.ok(await waitUntil(() => resumed.events.length >= 3, 5000))
    await sleep(100)
    t.same(resumed.events.map((e) => e.type), ['2', '3', '4'])
  })

  t.test('a subscription survives a server restart: nothing missed, nothing twice', async (t) => {
    const logger = recordingLogger()
    const { store, server } = await fresh(t, {}, logger)
    await store.appendToStream('lead-a', [ev('0'), ev('1')], 'no_stream')
    const live = consume(store.subscribe({ maxBatchSize: 10 }))
    t.teardown(() => live.subscription.close())
    t.ok(await waitUntil(() => live.events.length >= 2, 5000))
    await server.restart()
    await sleep(50)
    const writer = open({ url: server.url, prefix: '' })
    t.teardown(() => writer.close())
    await writer.appendToStream('lead-a', [ev('2')], 1)
    await writer.appendToStream('lead-b', [ev('3'), ev('4')], 'no_stream')
    t.ok(await waitUntil(() => live.events.length >= 5, 10_000), 'events written after the restart arrive')
    await sleep(150)
    t.same(live.events.map((e) => e.type), ['0', '1', '2', '3', '4'])
    t.equal(live.error, undefined)
    t.ok(logger.lines.some((l) => l.message === 'subscription to $all dropped: resubscribing'), 'the drop was logged')
    t.equal((await store.appendToStream('lead-a', [ev('5')], 2)).nextExpectedRevision, 3, 'appends work again too')
  })

  t.test('a subscription that starts behind logs its catch-up', async (t) => {
    const logger = recordingLogger()
    const { store } = await fresh(t, {}, logger)
    for (let i = 0; i < 20; i++) await store.appendToStream(`lead-${i}`, [ev('E', { i })], 'no_stream')
    const consumer = consume(store.subscribe({ maxBatchSize: 5 }))
    t.teardown(() => consumer.subscription.close())
    t.ok(await waitUntil(() => consumer.events.length >= 20, 5000))
    t.ok(await waitUntil(() => logger.lines.some((l) => l.message === 'caught up with the log'), 2000))
    t.match(logger.lines[0], { level: 'info', message: 'catching up with the log', fields: { from: 0, head: consumer.events[19]?.position } })
    t.match(logger.lines.find((l) => l.message === 'caught up with the log'), { fields: { events: 20 } })

    const upToDate = recordingLogger()
    const second = open({ url: (placements.get(store) as Placement).url, prefix: '' }, upToDate)
    t.teardown(() => second.close())
    const fromHead = consume(second.subscribe({ fromCheckpoint: await second.headPosition() }))
    t.teardown(() => fromHead.subscription.close())
    await sleep(150)
    t.same(upToDate.lines, [], 'nothing to catch up, nothing logged')
  })

  t.test('any / stream_exists appends from many writers all land, on one intact chain', async (t) => {
    const { store, server } = await fresh(t)
    const others = [store, open({ url: server.url, prefix: '' }), open({ url: server.url, prefix: '' })]
    t.teardown(() => Promise.all(others.slice(1).map((s) => s.close())))
    await store.appendToStream('lead-shared', [ev('Created')], 'no_stream')
    const settled = await Promise.allSettled(
      Array.from({ length: 45 }, (_, i) => (others[i % 3] as EsdbEventStore).appendToStream('lead-shared', [ev(`W${i}`)], i % 2 ? 'any' : 'stream_exists')),
    )
    t.same(settled.filter((s) => s.status === 'rejected'), [], 'none failed')
    const events = await store.readStream('lead-shared')
    t.equal(events.length, 46)
    t.ok(chainIsIntact(events), 'one chain, whoever won each race')
  })

  t.test('importRecorded keeps ids, times and hashes; repeats are no-ops; divergence is refused', async (t) => {
    const { store: source } = await fresh(t)
    await source.appendToStream('lead-a', [ev('A'), ev('B')], 'no_stream')
    await source.appendToStream('lead-a', [ev('C')], 1)
    const recorded = await source.readStream('lead-a')
    const { store: target } = await fresh(t)
    await target.importRecorded('lead-a', recorded.slice(0, 2))
    const reopened = open({ url: (placements.get(target) as Placement).url, prefix: '' })
    t.teardown(() => reopened.close())
    const again = await reopened.importRecorded('lead-a', recorded)
    t.match(again, { nextExpectedRevision: 2, imported: 1 }, 'resumed after what was there')
    t.same(await reopened.importRecorded('lead-a', recorded), { ...again, imported: 0 }, 'a repeat changes nothing')
    const copied = await target.readStream('lead-a')
    const withoutPositions = (events: RecordedEvent[]) => events.map(({ position: _p, ...rest }) => rest)
    t.same(withoutPositions(copied), withoutPositions(recorded), 'identical but for positions')
    await target.appendToStream('lead-b', [ev('Other')], 'no_stream')
    const { store: elsewhere } = await fresh(t)
    await elsewhere.appendToStream('lead-b', [ev('Mine')], 'no_stream')
    const diverged = await outcome(target.importRecorded('lead-b', await elsewhere.readStream('lead-b')))
    t.ok(diverged instanceof DivergedStreamError, 'a stream holding other events is refused')
    const tampered = { ...(recorded[2] as RecordedEvent), data: { forged: true } }
    const { store: empty } = await fresh(t)
    t.ok((await outcome(empty.importRecorded('lead-a', [...recorded.slice(0, 2), tampered]))) instanceof DivergedStreamError, 'a broken chain is refused')
    t.same(await empty.readStream('lead-a'), [], 'and nothing of it written')
  })

  t.test('an unreachable server is StoreUnavailableError, quickly', async (t) => {
    const server = await double()
    await server.close()
    const store = open({ url: server.url, prefix: '' })
    t.teardown(() => store.close())
    const started = Date.now()
    t.ok((await outcome(store.appendToStream('lead-a', [ev('A')], 'any'))) instanceof StoreUnavailableError)
    t.ok((await outcome(store.readAll())) instanceof StoreUnavailableError)
    t.ok(Date.now() - started < 15_000, `within ${Date.now() - started} ms`)
  })
})
