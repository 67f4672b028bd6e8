/**
 * The event store on an EventStoreDB / KurrentDB cluster, over `@eventstore/db-client` (gRPC).
 * Many Leadline nodes share one log this way; each keeps its read models locally.
 *
 * The hash chain with concurrent writers: the hash of revision n covers the hash of revision n-1,
 * so an append must know the event it goes after. It computes the chain on top of that event and
 * appends with EXACTLY that event's revision as the expectation; if anyone (another node, another
 * client of this process) wrote in between, EventStoreDB rejects the append, so no event is ever
 * stored on top of a hash it was not computed from.
 * - Exact / no_stream: the event is the one at the expected revision, whose hash is known when this
 *   client has just read the stream (the command handler loads a stream before deciding), else read.
 *   A rejection is the caller's conflict (WrongExpectedRevisionError; the handler reloads, decides again).
 * - any / stream_exists promise to append whatever is there: read the stream's last event, append
 *   after it, and on a rejection read again and retry until the append lands.
 *
 * Idempotency: event ids are set (the caller's, or generated once per call and kept when we send
 * again after a dropped connection), so a retried append is not stored twice. With an exact or
 * no_stream expectation EventStoreDB itself recognises a retry (the same ids where the expectation
 * puts them) and answers as it did the first time; for any / stream_exists, which it cannot check
 * that way, we look the first id up in the stream before appending.
 *
 * $all: Leadline's events are every event outside EventStoreDB's system streams (`$…`): reads of
 * $all skip the rest on our side (the client cannot filter reads), subscriptions filter on the
 * server. Positions are commit positions (see toPortPosition). EventStoreDB refuses to read $all
 * from a position where no record starts, while the port (and our projection runner) asks for
 * "from checkpoint + 1": see `readAll`.
 */
import { randomUUID } from 'node:crypto'
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type EventData,
  type Filter,
  type Position,
  type ResolvedEvent,
} from '@eventstore/db-client'
import { pino } from 'pino'
import type { NewEvent, RecordedEvent } from '../../domain/event.ts'
import {
  StoreUnavailableError,
  WrongExpectedRevisionError,
  expectationHolds,
  type AppendResult,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type SubscribeOptions,
  type Subscription,
} from '../event-store.port.ts'
import { hashEvent } from '../hash-chain.ts'
import { KeyedQueue } from '../keyed-queue.ts'
import type { ProgressLogger } from './catch-up-progress.ts'
import { backoff, currentRevision, drain, errorType, isTransient, lastPosition, sleep, type StreamHead } from './esdb-client.ts'
import { toEsdbPosition, toEventData, toRecordedEvent, toPortPosition } from './esdb-events.ts'
import { importRecorded, type ImportResult, type ImportTarget } from './esdb-import.ts'
import { clientConnectionString, redactConnectionString, type EsdbEventStore, type EsdbEventStoreOptions } from './esdb-options.ts'
import { EsdbSubscription } from './esdb-subscription.ts'

// The import and the subscription live in their own files; the adapter's exports stay here.
export { DivergedStreamError, type ImportResult } from './esdb-import.ts'
export { clientConnectionString, redactConnectionString, type EsdbEventStore, type EsdbEventStoreOptions } from './esdb-options.ts'

/** Opens a client on the cluster the connection string names; nothing is sent before the first call. */
export function openEsdbEventStore(options: EsdbEventStoreOptions): EsdbEventStore {
  return new EsdbStore(options)
}

const READ_PAGE = 500
const HEAD_PAGE = 100
/** Append retries for `any` / `stream_exists` racing other writers, and for a connection that dropped. */
const MAX_APPEND_ATTEMPTS = 50
const MAX_TRANSIENT_ATTEMPTS = 4
const DEFAULT_SUBSCRIPTION_BATCH = 500
const MAX_KNOWN_HEADS = 20_000
/** System events never reach Leadline: the server drops every stream whose name starts with `$`. */
const LEADLINE_STREAMS = streamNameFilter({ regex: '^[^$]' })

class EsdbStore implements EsdbEventStore {
  readonly kind = 'esdb' as const
  readonly target: string
  private readonly client: EventStoreDBClient
  private readonly clock: () => Date
  private readonly prefix: string
  private readonly filter: Filter
  private readonly givenLogger: ProgressLogger | undefined
  private defaultLogger: ProgressLogger | undefined
  private readonly subscriptions = new Set<EsdbSubscription>()
  /** Positions where an event of the log starts, as seen by this client: safe places to read $all from. */
  private readonly knownPositions = new Set<number>()
  /** What imports use of this store; `tails`: where this client's own imports left each stream (so the next import there needs no read first). */
  private readonly importer: ImportTarget = {
    tails: new Map<string, StreamHead>(),
    readStream: (stream, options) => this.readStream(stream, options),
    appendRaw: (stream, events, options) => this.client.appendToStream(this.prefix + stream, events, options),
    positionOf: (stream, revision) => this.positionOf(stream, revision),
    unavailable: (what, error) => this.unavailable(what, error),
  }
  private readonly appendLanes = new KeyedQueue()
  /** The latest event this client has read of each stream (revision and hash), to chain on without reading again. */
  private readonly heads = new Map<string, StreamHead>()
  private closed = false
  private closing: Promise<void> | undefined

  constructor(options: EsdbEventStoreOptions) {
    this.target = redactConnectionString(options.connectionString)
    try {
      this.client = EventStoreDBClient.connectionString(clientConnectionString(options.connectionString))
    } catch (error) {
      throw new Error(`invalid EventStoreDB connection string ${this.target}: ${(error as Error).message}`, { cause: error })
    }
    this.clock = options.clock ?? (() => new Date())
    this.prefix = options.streamPrefix ?? ''
    this.filter = this.prefix === '' ? LEADLINE_STREAMS : streamNameFilter({ prefixes: [this.prefix] })
    this.givenLogger = options.logger
  }

  get logger(): ProgressLogger {
    if (this.givenLogger) return this.givenLogger
    this.defaultLogger ??= pino({ level: process.env.LOG_LEVEL || 'info', base: { component: 'eventstore', store: this.target } })
    return this.defaultLogger
  }

  // ----- appends ------------------------------------------------------------------------------

  appendToStream(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new StoreUnavailableError('event store is closed'))
    // An exact or no_stream race is settled by the server in one round; any / stream_exists appends
    // retry until they land, so from one client they go one at a time per stream instead of racing.
    if (typeof expected === 'number' || expected === 'no_stream') return this.append(stream, events, expected)
    return this.appendLanes.run(stream, () => this.append(stream, events, expected))
  }

  private async append(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const ids = events.map((event) => event.id ?? randomUUID())
    if (events.length === 0) {
      const head = await this.streamHead(stream)
      const actual = head?.revision ?? -1
      if (!expectationHolds(expected, actual)) throw new WrongExpectedRevisionError(stream, expected, actual)
      return { nextExpectedRevision: actual, position: head?.position ?? 0 }
    }
    if (typeof expected === 'number' || expected === 'no_stream') return this.appendAt(stream, events, ids, expected)
    return this.appendAnywhere(stream, events, ids, expected)
  }

  /**
   * An exact or no_stream expectation: the chain goes on top of the event at that revision (known
   * from an earlier read, or read now), and EventStoreDB checks the expectation. It also recognises
   * a retry of an append it stored (same ids where this expectation puts them) and answers as the
   * original did, so a resend after a dropped connection is safe.
   */
  private async appendAt(stream: string, events: readonly NewEvent[], ids: readonly string[], expected: number | 'no_stream'): Promise<AppendResult> {
    const base = expected === 'no_stream' ? -1 : expected
    let previous: { revision: number; hash: string } | null = null
    if (base >= 0) {
      previous = await this.eventAt(stream, base)
      if (previous === null) {
        // The stream has no event there: it is shorter than the caller thinks (or missing).
        throw new WrongExpectedRevisionError(stream, expected, (await this.streamHead(stream))?.revision ?? -1)
      }
    }
    for (let transientFailures = 0; ; ) {
      try {
        return await this.send(stream, this.chain(stream, events, ids, base, previous?.hash ?? null), base)
      } catch (error) {
        if (errorType(error) === 'wrong-expected-version') throw new WrongExpectedRevisionError(stream, expected, currentRevision(error))
        if (!isTransient(error) || ++transientFailures >= MAX_TRANSIENT_ATTEMPTS) throw this.unavailable(`append to ${stream} failed`, error)
        await sleep(100 * transientFailures)
      }
    }
  }

  /**
   * `any` / `stream_exists`: read the head, chain on it, append with exactly its revision; when
   * another writer got in between, read again and retry. A retry of an append already stored (ids
   * the caller set, or ours after a dropped connection) is found by id and answered as the original.
   */
  private async appendAnywhere(stream: string, events: readonly NewEvent[], ids: readonly string[], expected: 'any' | 'stream_exists'): Promise<AppendResult> {
    const idsGiven = events.every((event) => event.id !== undefined)
    let mayBeStored = false
    let transientFailures = 0
    for (let attempt = 1; ; attempt++) {
      const head = await this.streamHead(stream)
      const actual = head?.revision ?? -1
      if ((idsGiven || mayBeStored) && actual >= 0) {
        const stored = await this.findStored(stream, ids, expected, actual)
        if (stored) return stored
      }
      if (!expectationHolds(expected, actual)) throw new WrongExpectedRevisionError(stream, expected, actual)
      try {
        return await this.send(stream, this.chain(stream, events, ids, actual, head?.hash ?? null), actual)
      } catch (error) {
        if (errorType(error) === 'wrong-expected-version') {
          if (attempt >= MAX_APPEND_ATTEMPTS) throw new StoreUnavailableError(`could not append to ${stream}: ${attempt} attempts lost the race`)
          await backoff(attempt)
          continue
        }
        if (!isTransient(error) || ++transientFailures >= MAX_TRANSIENT_ATTEMPTS) throw this.unavailable(`append to ${stream} failed`, error)
        mayBeStored = true
        await sleep(100 * transientFailures)
      }
    }
  }

  /** Appends expecting `base` as the stream's last revision (-1: no stream). */
  private async send(stream: string, proposed: EventData[], base: number): Promise<AppendResult> {
    const result = await this.client.appendToStream(this.prefix + stream, proposed, {
      expectedRevision: base === -1 ? NO_STREAM : BigInt(base),
    })
    const nextExpectedRevision = Number(result.nextExpectedRevision)
    // Not remembered as the stream's head: an idempotent answer means the stored events are the
    // original's, whose hashes differ from the ones just computed. The next read learns the truth.
    this.heads.delete(stream)
    const position = result.position ? toPortPosition(result.position.commit) : await this.positionOf(stream, nextExpectedRevision)
    this.knownPositions.add(position)
    return { nextExpectedRevision, position }
  }

  /** The hash of the event at `revision`: from what this client last read of the stream, or read now. */
  private async eventAt(stream: string, revision: number): Promise<{ revision: number; hash: string } | null> {
    const known = this.heads.get(stream)
    if (known?.revision === revision) return known
    const [event] = await this.readStream(stream, { from: revision, limit: 1 })
    return event?.revision === revision ? { revision, hash: event.hash } : null
  }

  /** Remembers the latest event this client has read of a stream: a fact that never changes. */
  private learnHead(event: RecordedEvent): void {
    const known = this.heads.get(event.stream)
    if (known && known.revision >= event.revision) return
    if (this.heads.size >= MAX_KNOWN_HEADS) this.heads.delete(this.heads.keys().next().value as string)
    this.heads.delete(event.stream)
    this.heads.set(event.stream, { revision: event.revision, hash: event.hash, position: event.position })
  }

  /** The events to send, each hashed on top of the previous one, after revision `base` whose hash is `prevHash`. */
  private chain(stream: string, events: readonly NewEvent[], ids: readonly string[], base: number, prevHash: string | null): EventData[] {
    const recordedAt = this.clock().toISOString()
    let revision = base
    return events.map((event, i) => {
      revision++
      const id = ids[i] as string
      const data = event.data === undefined ? null : event.data
      const hash = hashEvent({ id, stream, revision, type: event.type, data, metadata: event.metadata, recordedAt }, prevHash)
      const proposed = toEventData(id, event.type, data, event.metadata, { recordedAt, prevHash, hash })
      prevHash = hash
      return proposed
    })
  }

  /**
   * Is this any / stream_exists append already stored (a retry of one that succeeded)? Found by its
   * first id, where the expectation would have allowed it, followed by the rest in order.
   */
  private async findStored(stream: string, ids: readonly string[], expected: 'any' | 'stream_exists', actual: number): Promise<AppendResult | null> {
    const from = await this.revisionOfId(stream, ids[0] as string, actual)
    if (from === null || !expectationHolds(expected, from - 1)) return null
    const stored = await this.readStream(stream, { from, limit: ids.length })
    if (stored.length !== ids.length || stored.some((event, i) => event.id !== ids[i])) return null
    const last = stored[stored.length - 1] as RecordedEvent
    return { nextExpectedRevision: last.revision, position: last.position }
  }

  /** Where in the stream an event id is, scanning back from the end (Leadline's streams are short). */
  private async revisionOfId(stream: string, id: string, actual: number): Promise<number | null> {
    for (let from = actual; from >= 0; from -= READ_PAGE) {
      const page = await this.readStream(stream, { from, direction: 'backwards', limit: READ_PAGE })
      const hit = page.find((event) => event.id === id)
      if (hit) return hit.revision
      if (page.length < READ_PAGE) return null
    }
    return null
  }

  async positionOf(stream: string, revision: number): Promise<number> {
    const [event] = await this.readStream(stream, { from: revision, limit: 1 })
    if (!event) throw new StoreUnavailableError(`the append to ${stream} succeeded but revision ${revision} cannot be read back`)
    return event.position
  }

  importRecorded(stream: string, events: readonly RecordedEvent[]): Promise<ImportResult> {
    this.assertOpen()
    return importRecorded(this.importer, stream, events)
  }

  // ----- reads --------------------------------------------------------------------------------

  async streamRevision(stream: string): Promise<number> {
    const [last] = await this.readStream(stream, { direction: 'backwards', limit: 1 })
    return last?.revision ?? -1
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen()
    const direction = options.direction ?? 'forwards'
    const limit = options.limit ?? Number.MAX_SAFE_INTEGER
    if (limit <= 0) return []
    let fromRevision: bigint | typeof START | typeof END
    if (options.from === undefined) fromRevision = direction === 'backwards' ? END : START
    else if (options.from < 0) {
      if (direction === 'backwards') return []
      fromRevision = START
    } else fromRevision = BigInt(options.from)
    return this.guard(`read of ${stream}`, async () => {
      const events: RecordedEvent[] = []
      try {
        const resolved = await drain(
          this.client.readStream(this.prefix + stream, {
            fromRevision,
            direction: direction === 'backwards' ? BACKWARDS : FORWARDS,
            maxCount: limit,
          }),
        )
        for (const one of resolved) {
          const event = this.recorded(one)
          if (event) events.push(event)
        }
        const latest = direction === 'backwards' ? events[0] : events[events.length - 1]
        if (latest) this.learnHead(latest)
      } catch (error) {
        if (errorType(error) === 'stream-not-found') return []
        throw error
      }
      return events
    })
  }

  /**
   * Events at or after `fromPosition`. EventStoreDB reads $all only from where a record starts, and
   * our callers pass either an event's position or "a checkpoint + 1". So we start at the position
   * before it (a checkpoint is an event's position) and drop what is before `fromPosition`; if the
   * server refuses that, at the position itself; if it refuses both, from the start (correct, slow,
   * logged). Positions this client has seen are tried first.
   */
  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen()
    const limit = options.limit ?? Number.MAX_SAFE_INTEGER
    if (limit <= 0) return []
    const from = options.fromPosition ?? 0
    if (from <= 0) return this.guard('read of $all', () => this.readAllFrom(START, 0, limit))
    const candidates = this.knownPositions.has(from) ? [from] : this.knownPositions.has(from - 1) ? [from - 1] : [from - 1, from]
    for (const candidate of candidates) {
      try {
        return await this.withRetries('read of $all', () => this.readAllFrom(toEsdbPosition(candidate), from, limit))
      } catch (error) {
        if (error instanceof StoreUnavailableError) throw error
        // The server cannot read from there (not where a record starts): try the next place.
      }
    }
    this.logger.warn({ fromPosition: from }, 'no record starts at or just before this position: reading $all from the start')
    return this.guard('read of $all', () => this.readAllFrom(START, from, limit))
  }

  /** Pages through $all forwards from `start`, keeping Leadline's events at or after `minPosition`. */
  private async readAllFrom(start: Position | typeof START, minPosition: number, limit: number): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = []
    let cursor = start
    let floor = minPosition
    for (;;) {
      // The server counts system events too, and a page after the first repeats its start.
      const page = Math.min(READ_PAGE, Math.max(64, limit - events.length + 1))
      const resolved = await drain(this.client.readAll({ fromPosition: cursor, maxCount: page }))
      for (const one of resolved) {
        const event = this.recorded(one)
        if (event && event.position >= floor) {
          events.push(event)
          if (events.length >= limit) return events
        }
      }
      const last = lastPosition(resolved)
      const read = resolved.length
      if (read < page || last === undefined) return events
      cursor = last
      floor = Math.max(floor, toPortPosition(last.commit) + 1)
    }
  }

  /** The position of the last Leadline event: read back from the end of $all past any system events. */
  async headPosition(): Promise<number> {
    this.assertOpen()
    return this.guard('read of the head of $all', async () => {
      let cursor: Position | typeof END = END
      // Usually the last record is ours: ask for one, then for more when system events are in the way.
      for (let page = 1; ; page = Math.min(HEAD_PAGE, page * 10)) {
        const resolved = await drain(this.client.readAll({ fromPosition: cursor, direction: BACKWARDS, maxCount: page }))
        for (const one of resolved) {
          const event = this.recorded(one)
          if (event) return event.position
        }
        const last = lastPosition(resolved)
        if (resolved.length < page || last === undefined) return 0
        cursor = last
      }
    })
  }

  /** The stream's last event, or null when it does not exist. */
  private async streamHead(stream: string): Promise<StreamHead | null> {
    const [last] = await this.readStream(stream, { direction: 'backwards', limit: 1 })
    return last ? { revision: last.revision, hash: last.hash, position: last.position } : null
  }

  /** Maps a resolved event and remembers its position as a place $all can be read from. */
  recorded(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null {
    const event = toRecordedEvent(resolved)
    if (event === null) return null
    if (this.knownPositions.size >= 100_000) this.knownPositions.clear()
    this.knownPositions.add(event.position)
    if (this.prefix === '') return event
    return event.stream.startsWith(this.prefix) ? { ...event, stream: event.stream.slice(this.prefix.length) } : null
  }

  /** Like withRetries, and whatever else goes wrong talking to the server is StoreUnavailableError. */
  private async guard<T>(what: string, read: () => Promise<T>): Promise<T> {
    try {
      return await this.withRetries(what, read)
    } catch (error) {
      throw this.unavailable(`${what} failed`, error)
    }
  }

  /** Runs a read again while the connection (not the request) fails; other errors pass through. */
  private async withRetries<T>(what: string, read: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await read()
      } catch (error) {
        if (!isTransient(error)) throw error
        if (attempt >= MAX_TRANSIENT_ATTEMPTS || this.closed) throw this.unavailable(`${what} failed`, error)
        await sleep(100 * attempt)
      }
    }
  }

  // ----- subscriptions ------------------------------------------------------------------------

  subscribe(options: SubscribeOptions = {}): Subscription {
    const subscription = new EsdbSubscription(this, options.fromCheckpoint ?? null, Math.max(1, options.maxBatchSize ?? DEFAULT_SUBSCRIPTION_BATCH), Math.max(0, options.lingerMs ?? 0))
    if (this.closed) subscription.end()
    else this.subscriptions.add(subscription)
    return subscription
  }

  /** A live subscription to Leadline's events of $all, strictly after `after` (null: from the start). */
  openSubscription(after: number | null): AllStreamSubscription {
    return this.client.subscribeToAll({
      fromPosition: after === null || after <= 0 ? START : toEsdbPosition(after),
      filter: this.filter,
    })
  }

  forget(subscription: EsdbSubscription): void {
    this.subscriptions.delete(subscription)
  }

  get isClosed(): boolean {
    return this.closed
  }

  // ----- lifecycle ----------------------------------------------------------------------------

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true
      await Promise.all([...this.subscriptions].map((subscription) => subscription.close()))
      await this.client.dispose()
    })()
    return this.closing
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreUnavailableError('event store is closed')
  }

  unavailable(what: string, error: unknown): Error {
    if (error instanceof StoreUnavailableError || error instanceof WrongExpectedRevisionError) return error
    if (errorType(error) === 'maximum-append-size-exceeded') {
      // Not a passing outage: the same append will never fit.
      return new Error(`${what}: larger than the maximum append size of EventStoreDB at ${this.target}`, { cause: error })
    }
    return new StoreUnavailableError(`${what}: EventStoreDB at ${this.target}: ${(error as Error).message}`, { cause: error })
  }
}
