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
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type SubscribeOptions,
  type Subscription,
} from '../event-store.port.ts'
import { hashEvent } from '../hash-chain.ts'
import { KeyedQueue } from '../keyed-queue.ts'
import { CatchUpProgress, type ProgressLogger } from './catch-up-progress.ts'
import { toEsdbPosition, toEventData, toRecordedEvent, toPortPosition } from './esdb-events.ts'

export interface EsdbEventStoreOptions {
  /** Any connection string the client accepts (`esdb://host:2113?tls=false`, `esdb+discover://…`); `kurrentdb` schemes too. */
  readonly connectionString: string
  /** Source of `recordedAt`; defaults to the system clock. */
  readonly clock?: () => Date
  /** Catch-up progress and reconnections. Defaults to a JSON logger on standard output at LOG_LEVEL. */
  readonly logger?: ProgressLogger
  /**
   * Keeps this store's streams under a prefix in EventStoreDB (`prefix` + stream name), and sees
   * only those. For sharing one server between test runs; not part of LEADLINE_STORE. Hashes cover
   * the stream name without the prefix.
   */
  readonly streamPrefix?: string
}

export interface EsdbEventStore extends EventStore {
  readonly kind: 'esdb'
  /** The connection string with any password replaced by `***`. */
  readonly target: string
  /**
   * Appends events recorded by another store (a migration), keeping their ids, recordedAt and hash
   * chain. Idempotent and resumable: events already there (same ids, same hashes) are skipped, the
   * rest is appended after them. Throws DivergedStreamError when the stream holds something else.
   */
  importRecorded(stream: string, events: readonly RecordedEvent[]): Promise<ImportResult>
}

export interface ImportResult extends AppendResult {
  /** How many of the events were appended now (the rest were there already). */
  readonly imported: number
}

/** The target stream already holds different events than the ones being imported. */
export class DivergedStreamError extends Error {
  readonly type = 'diverged_stream' as const
  constructor(
    readonly stream: string,
    readonly revision: number,
    message: string,
  ) {
    super(`${stream} at revision ${revision}: ${message}`)
    this.name = 'DivergedStreamError'
  }
}

/** Opens a client on the cluster the connection string names; nothing is sent before the first call. */
export function openEsdbEventStore(options: EsdbEventStoreOptions): EsdbEventStore {
  return new EsdbStore(options)
}

/** `kurrentdb://` and `kurrentdb+discover://` are the newer names of the same connection strings. */
export function clientConnectionString(connectionString: string): string {
  return connectionString.replace(/^kurrentdb(\+discover)?:\/\//i, (_m, discover: string | undefined) => `esdb${discover ?? ''}://`)
}

/** The connection string without its password, for logs and messages. */
export function redactConnectionString(connectionString: string): string {
  return connectionString.replace(/(:\/\/[^:/@]+:)[^@/]*@/, '$1***@')
}

const READ_PAGE = 500
const HEAD_PAGE = 100
/** Append retries for `any` / `stream_exists` racing other writers, and for a connection that dropped. */
const MAX_APPEND_ATTEMPTS = 50
const MAX_TRANSIENT_ATTEMPTS = 4
const DEFAULT_SUBSCRIPTION_BATCH = 500
const RESUBSCRIBE_MAX_DELAY_MS = 5000
const MAX_KNOWN_HEADS = 20_000
/** System events never reach Leadline: the server drops every stream whose name starts with `$`. */
const LEADLINE_STREAMS = streamNameFilter({ regex: '^[^$]' })

interface StreamHead {
  readonly revision: number
  readonly hash: string
  readonly position: number
}

type ClientError = Error & { type?: string; actualVersion?: bigint | string }

function errorType(error: unknown): string | undefined {
  return error instanceof Error ? (error as ClientError).type : undefined
}

/** The connection (not the request) failed: worth trying again once the client has reconnected. */
function isTransient(error: unknown): boolean {
  const type = errorType(error)
  return type === 'unavailable' || type === 'not-leader' || type === 'deadline-exceeded' || type === 'cancelled' || type === 'timeout'
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Jittered, growing pauses between attempts. */
function backoff(attempt: number, capMs = 200): Promise<void> {
  return sleep(Math.random() * Math.min(capMs, 2 * attempt))
}

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
  /** Where this client's own imports left each stream (so the next import there needs no read first). */
  private readonly importTails = new Map<string, StreamHead>()
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

  private async positionOf(stream: string, revision: number): Promise<number> {
    const [event] = await this.readStream(stream, { from: revision, limit: 1 })
    if (!event) throw new StoreUnavailableError(`the append to ${stream} succeeded but revision ${revision} cannot be read back`)
    return event.position
  }

  async importRecorded(stream: string, events: readonly RecordedEvent[]): Promise<ImportResult> {
    this.assertOpen()
    const first = events[0]
    if (first === undefined) throw new RangeError('nothing to import')
    events.forEach((event, i) => {
      const problem =
        event.stream !== stream
          ? `belongs to ${event.stream}`
          : event.revision !== first.revision + i
            ? 'revisions are not consecutive'
            : i > 0 && event.prevHash !== (events[i - 1] as RecordedEvent).hash
              ? 'does not link to the previous event'
              : hashEvent(event, event.prevHash) !== event.hash
                ? 'its hash does not match its content'
                : null
      if (problem) throw new DivergedStreamError(stream, event.revision, `the event to import ${problem}`)
    })

    let rest = events
    let before = this.importTails.get(stream)
    if (before?.revision !== first.revision - 1 || before.hash !== first.prevHash) {
      // Not where this client left the stream: see what the target holds (a resumed or repeated run).
      const present = await this.readStream(stream, { from: first.revision, limit: events.length })
      present.forEach((stored, i) => {
        const wanted = events[i] as RecordedEvent
        if (stored.id !== wanted.id || stored.hash !== wanted.hash) {
          throw new DivergedStreamError(stream, stored.revision, `the target holds event ${stored.id}, the source ${wanted.id}`)
        }
      })
      rest = events.slice(present.length)
      const lastPresent = present[present.length - 1]
      if (rest.length === 0 && lastPresent) {
        // Not remembered as a tail: what follows was probably copied already too, so look next time.
        this.importTails.delete(stream)
        return { nextExpectedRevision: lastPresent.revision, position: lastPresent.position, imported: 0 }
      }
      const next = rest[0] as RecordedEvent
      if (next.revision > 0) {
        const [previous] = await this.readStream(stream, { from: next.revision - 1, limit: 1 })
        if (!previous) throw new DivergedStreamError(stream, next.revision - 1, 'the target is missing the events before it (import in log order)')
        if (previous.hash !== next.prevHash) throw new DivergedStreamError(stream, previous.revision, 'the target holds a different event there')
        before = { revision: previous.revision, hash: previous.hash, position: previous.position }
      }
    }

    const next = rest[0] as RecordedEvent
    const proposed = rest.map((event) =>
      toEventData(event.id, event.type, event.data, event.metadata, { recordedAt: event.recordedAt, prevHash: event.prevHash, hash: event.hash }),
    )
    try {
      const result = await this.client.appendToStream(this.prefix + stream, proposed, {
        expectedRevision: next.revision === 0 ? NO_STREAM : BigInt(next.revision - 1),
      })
      const last = rest[rest.length - 1] as RecordedEvent
      const position = result.position ? toPortPosition(result.position.commit) : await this.positionOf(stream, last.revision)
      this.importTails.set(stream, { revision: last.revision, hash: last.hash, position })
      return { nextExpectedRevision: last.revision, position, imported: rest.length }
    } catch (error) {
      this.importTails.delete(stream)
      if (errorType(error) === 'wrong-expected-version') {
        throw new DivergedStreamError(stream, next.revision, `another writer appended to the target stream (now at revision ${currentRevision(error)})`)
      }
      throw this.unavailable(`import into ${stream} failed`, error)
    }
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

/**
 * Reads a whole response. Never stop iterating a read midway: the client keeps an abandoned call
 * among the streams `dispose()` waits for, and closing the store would hang.
 */
async function drain<T>(read: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of read) out.push(item)
  return out
}

function lastPosition(resolved: ReadonlyArray<ResolvedEvent | AllStreamResolvedEvent>): Position | undefined {
  for (let i = resolved.length - 1; i >= 0; i--) {
    const position = resolved[i]?.event?.position
    if (position) return position
  }
  return undefined
}

function currentRevision(error: unknown): number {
  const actual = (error as ClientError).actualVersion
  return typeof actual === 'bigint' ? Number(actual) : -1
}

/**
 * One consumer's view of a server-side filtered catch-up subscription to $all. Events are buffered
 * up to a high-water mark, then the server is paused (gRPC flow control), so a node catching up
 * from zero never holds the whole log in memory. A dropped connection (restart, leader change)
 * resubscribes after the last event received, so nothing is missed or repeated.
 */
class EsdbSubscription implements Subscription {
  private source: AllStreamSubscription | null = null
  private buffer: RecordedEvent[] = []
  private waiting: (() => void) | undefined
  private ended = false
  private started = false
  private failure: Error | undefined
  /** Where to resubscribe after (null: from the start), and below which events were delivered already. */
  private resumeAfter: number | null
  private floor: number
  private fellBackToStart = false
  private progress: CatchUpProgress | undefined
  /** The head the subscription starts behind, read before the first batch so progress covers it all. */
  private progressReady: Promise<void> | null = null
  private serverCaughtUp = false
  private paused = false
  private retries = 0
  private readonly highWater: number

  constructor(
    private readonly store: EsdbStore,
    private readonly from: number | null,
    private readonly maxBatchSize: number,
    private readonly lingerMs: number,
  ) {
    this.resumeAfter = from
    this.floor = from ?? -1
    this.highWater = Math.max(2 * maxBatchSize, 1000)
  }

  async *[Symbol.asyncIterator](): AsyncIterator<readonly RecordedEvent[]> {
    try {
      if (!this.started && !this.ended) this.start()
      while (!this.ended) {
        if (this.progressReady) {
          await this.progressReady
          this.progressReady = null
          continue
        }
        if (this.buffer.length > 0) {
          const batch = this.buffer.splice(0, this.maxBatchSize)
          if (this.paused && this.buffer.length < this.maxBatchSize) {
            this.paused = false
            this.source?.resume()
          }
          const last = batch[batch.length - 1] as RecordedEvent
          this.progress?.delivered(last.position, batch.length)
          if (this.serverCaughtUp && this.buffer.length === 0) this.progress?.live()
          yield batch
          continue
        }
        if (this.failure) throw this.failure
        await new Promise<void>((resolve) => {
          this.waiting = resolve
        })
        if (this.lingerMs > 0 && !this.ended) await sleep(this.lingerMs)
      }
    } finally {
      await this.close()
    }
  }

  private start(): void {
    this.started = true
    const from = this.from ?? 0
    this.progressReady = this.store.headPosition().then(
      (head) => {
        if (head > from && !this.ended) this.progress = new CatchUpProgress(this.store.logger, from, head)
      },
      () => undefined, // progress is only for the logs; the subscription itself reports failures
    )
    this.connect()
  }

  private connect(): void {
    if (this.ended) return
    const source = this.store.openSubscription(this.resumeAfter)
    this.source = source
    source.on('data', (resolved: AllStreamResolvedEvent) => {
      if (this.source !== source || this.ended) return
      this.retries = 0
      const event = this.store.recorded(resolved)
      if (!event) return
      this.resumeAfter = event.position
      if (event.position <= this.floor) return
      this.floor = event.position
      this.buffer.push(event)
      if (this.buffer.length >= this.highWater && !this.paused) {
        this.paused = true
        source.pause()
      }
      this.wake()
    })
    source.on('caughtUp', () => {
      this.serverCaughtUp = true
      if (this.buffer.length === 0) this.progress?.live()
    })
    source.on('error', (error: Error) => this.dropped(source, error))
    source.on('end', () => this.dropped(source, null))
  }

  /** The server ended or broke the subscription: resubscribe after the last event received, or fail. */
  private dropped(source: AllStreamSubscription, error: Error | null): void {
    if (this.source !== source || this.ended) return
    this.source = null
    this.paused = false
    if (error !== null && !isTransient(error)) {
      if (this.from !== null && this.resumeAfter === this.from && !this.fellBackToStart) {
        // The server cannot start after this checkpoint (no record starts there): start from the
        // beginning and skip what the consumer has had, rather than stop.
        this.fellBackToStart = true
        this.resumeAfter = null
        this.store.logger.warn({ after: this.from, err: error.message }, 'cannot subscribe after this position: subscribing from the start instead')
        this.connect()
        return
      }
      this.failure = this.store.unavailable('subscription to $all failed', error)
      this.wake()
      return
    }
    if (this.store.isClosed) return
    this.retries++
    const delay = Math.min(RESUBSCRIBE_MAX_DELAY_MS, 100 * 2 ** Math.min(this.retries, 6))
    this.store.logger.warn({ after: this.resumeAfter, inMs: delay, err: error?.message ?? 'ended by the server' }, 'subscription to $all dropped: resubscribing')
    setTimeout(() => this.connect(), delay).unref()
  }

  private wake(): void {
    const waiting = this.waiting
    this.waiting = undefined
    waiting?.()
  }

  end(): void {
    this.ended = true
    this.wake()
  }

  async close(): Promise<void> {
    if (this.ended && this.source === null) {
      this.store.forget(this)
      return
    }
    this.end()
    const source = this.source
    this.source = null
    this.store.forget(this)
    if (source) await source.unsubscribe().catch(() => undefined)
  }
}
