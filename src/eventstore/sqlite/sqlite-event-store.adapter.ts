/**
 * The embedded event store: one SQLite file (better-sqlite3, WAL, synchronous=FULL).
 *
 * Appends are group-committed: every append made while no batch is being written is queued and
 * written on the next `setImmediate` inside ONE transaction, so one fsync acknowledges them all.
 * Each append runs in its own SAVEPOINT, so a conflict rolls back and rejects only that append.
 * Promises resolve only after COMMIT has returned. The transaction runs either on this connection
 * (`writer: 'inline'`) or on a writer thread with its own connection (`writer: 'thread'`), which
 * keeps the hashing, the inserts and the fsync off this thread's event loop; either way it is the
 * same code (sqlite-writer.ts), and the next batch forms here while one is being written.
 * The writer thread may hold two batches at once, written one after the other (IN_FLIGHT); a turn
 * with many appends sends them in parts of SEND_AT, the first before the turn ends.
 *
 * Why a subscriber never sees a gap that later fills: SQLite admits one writer at a time (BEGIN
 * IMMEDIATE takes the database's write lock, across processes too). Positions are rowids, assigned
 * as max(position)+1 inside that write transaction, and a reader (WAL snapshot) sees a transaction
 * all at once or not at all. The next writer can only begin after the previous one committed, so
 * it can only assign positions above everything any reader has already seen.
 */
import type Database from 'better-sqlite3'
import type { NewEvent, RecordedEvent } from '../../domain/event.ts'
import {
  StoreUnavailableError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type SubscribeOptions,
  type Subscription,
} from '../event-store.port.ts'
import { EVENT_COLUMNS, SCHEMA_VERSION, isSqliteError, openEventsDatabase, toRecordedEvent, type EventRow } from './sqlite-schema.ts'
import { SqliteWriter, appendError, type EncodedEvent, type WriteOutcome, type WriteRequest, type WrittenEvents } from './sqlite-writer.ts'
import { CommitWatch, DEFAULT_SUBSCRIPTION_BATCH, RECENT_EVENTS, RecentEvents, SqliteSubscription } from './sqlite-subscription.ts'
import { WriterThread } from './sqlite-writer-thread.ts'
import type { AfterCommitModule, AfterCommitProgress } from './after-commit.ts'

export { SCHEMA_VERSION } from './sqlite-schema.ts'
export { DuplicateEventIdError } from './sqlite-writer.ts'

const DEFAULT_POLL_INTERVAL_MS = 100
/**
 * Batches a store may have at the writer thread at once. With one, the thread idles from its COMMIT
 * until this thread has taken the outcome and sent the next batch; with two, the next one is already
 * there (docs/performance.md). Each is its own transaction, written in the order sent; appends that
 * depend on one another are never in flight together, because a command awaits its append before the
 * next command on that stream runs.
 */
const IN_FLIGHT = 2
/**
 * Appends a batch sent to the writer thread holds before the turn ends: the rest of the turn's
 * appends form the next batch, so the thread inserts and fsyncs the first while this thread is still
 * deciding the others (docs/performance.md). While IN_FLIGHT batches are out, the queue waits as before.
 */
const SEND_AT = 32

export interface SqliteEventStoreOptions {
  /** File of the database; its parent directory is created. */
  readonly path: string
  /** Source of `recordedAt`; defaults to the system clock. */
  readonly clock?: () => Date
  /** How often subscriptions look for commits made by other connections or processes. */
  readonly pollIntervalMs?: number
  /**
   * Where the write transactions run: `inline` on this connection, in this thread (the default:
   * tests and short-lived commands), or `thread`, a worker thread started on the first append (a
   * server: its event loop keeps serving while a batch is hashed, inserted and fsynced).
   */
  readonly writer?: 'inline' | 'thread'
  /**
   * With the writer thread: a module run there on each batch once it is committed, before its appends
   * are answered (after-commit.ts); a server applies its read models with it. Ignored inline.
   */
  readonly afterCommit?: AfterCommitModule
}

/** Counters for tests and benchmarks: group commit means `transactions` stays well below `appends`. */
export interface SqliteEventStoreStats {
  /** Write transactions committed. */
  readonly transactions: number
  /** Append calls settled by those transactions (succeeded or rejected by their own conflict). */
  readonly appends: number
  /** Events written. */
  readonly events: number
}

export interface SqliteEventStore extends EventStore {
  readonly kind: 'sqlite'
  readonly path: string
  /**
   * This store's connection, for tests and diagnostics; do not write to it. With the inline
   * writer it is also the connection appends are written on.
   */
  readonly database: Database.Database
  readonly stats: SqliteEventStoreStats
  /** Writes the queued appends now instead of on the next `setImmediate`; resolves once written. */
  flush(): Promise<void>
  /**
   * Resolves once a batch can be written without delay: at once inline; once the writer thread is
   * up and connected otherwise (a server waits for this before it listens).
   */
  ready(): Promise<void>
}

/** Opens (creating if needed) the event store in the SQLite file at `options.path`. */
export function openSqliteEventStore(options: SqliteEventStoreOptions): SqliteEventStore {
  return new SqliteStore(options)
}

/** How far the writer thread's after-commit work has got, for a store opened with such work; undefined for any other store. */
export function afterCommitProgress(store: EventStore): AfterCommitProgress | undefined {
  return store instanceof SqliteStore && store.hasAfterCommit ? store : undefined
}

/** The file of an embedded store on disk (a replay reads it on a thread of its own); undefined for any other store. */
export function embeddedLogFile(store: EventStore): string | undefined {
  return store instanceof SqliteStore && store.path !== ':memory:' ? store.path : undefined
}

interface PendingAppend {
  readonly stream: string
  readonly events: readonly NewEvent[]
  readonly expected: ExpectedRevision
  readonly resolve: (result: AppendResult) => void
  readonly reject: (error: unknown) => void
}

/** SQLite reads a negative LIMIT as "no limit". */
const NO_LIMIT = -1

class SqliteStore implements SqliteEventStore, AfterCommitProgress {
  readonly kind = 'sqlite' as const
  readonly path: string
  readonly database: Database.Database

  private readonly clock: () => Date
  private readonly pollIntervalMs: number
  private readonly counters = { transactions: 0, appends: 0, events: 0 }
  /** Exactly one of these writes: this connection's writer, or the writer thread. */
  private readonly inlineWriter: SqliteWriter | undefined
  private readonly writerThread: WriterThread | undefined
  /** The highest position the writer thread's after-commit work reported done (0: none). */
  private appliedAfterCommit = 0

  private queue: PendingAppend[] = []
  private flushScheduled = false
  /** Batches handed to the writer thread and not yet settled, oldest first. */
  private readonly writing: Array<Promise<void>> = []
  private closed = false
  private closing: Promise<void> | undefined

  private readonly subscriptions = new Set<SqliteSubscription>()
  private readonly recent = new RecentEvents(RECENT_EVENTS)
  /** Notices other connections' commits (this store's writer thread's, another process's) for the subscriptions. */
  private readonly commits: CommitWatch
  /** The last head position read, and the data_version it was read at. */
  private head: { position: number; dataVersion: number } | undefined
  private headSeenThisTurn = false

  private readonly stmt: {
    readForwards: Database.Statement<[string, number, number], EventRow>
    readBackwards: Database.Statement<[string, number, number], EventRow>
    readAll: Database.Statement<[number, number], EventRow>
    readAfter: Database.Statement<[number, number], EventRow>
    headPosition: Database.Statement<[], number | null>
    streamRevision: Database.Statement<[string], number | null>
    dataVersion: Database.Statement<[], number>
  }

  constructor(options: SqliteEventStoreOptions) {
    this.path = options.path
    this.clock = options.clock ?? (() => new Date())
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS

    let db: Database.Database
    try {
      db = openEventsDatabase(options.path)
    } catch (error) {
      if (!isSqliteError(error)) throw error
      throw new StoreUnavailableError(`cannot open event store at ${options.path}: ${error.message}`, { cause: error })
    }
    try {
      this.stmt = {
        readForwards: db.prepare<[string, number, number], EventRow>(
          `SELECT ${EVENT_COLUMNS} FROM events WHERE stream = ? AND revision >= ? ORDER BY revision ASC LIMIT ?`,
        ).raw(),
        readBackwards: db.prepare<[string, number, number], EventRow>(
          `SELECT ${EVENT_COLUMNS} FROM events WHERE stream = ? AND revision <= ? ORDER BY revision DESC LIMIT ?`,
        ).raw(),
        readAll: db.prepare<[number, number], EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE position >= ? ORDER BY position LIMIT ?`).raw(),
        readAfter: db.prepare<[number, number], EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`).raw(),
        headPosition: db.prepare<[], number | null>('SELECT max(position) FROM events').pluck(),
        // Answered from the (stream, revision) index alone.
        streamRevision: db.prepare<[string], number | null>('SELECT max(revision) FROM events WHERE stream = ?').pluck(),
        dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
      }
      if (options.writer === 'thread' && options.path !== ':memory:') {
        this.writerThread = new WriterThread(options.path, options.afterCommit)
        // Start it now, so the first append does not wait for a thread (a failure shows on that append).
        this.writerThread.ready().catch(() => undefined)
      } else {
        this.inlineWriter = new SqliteWriter(db)
      }
    } catch (error) {
      db.close()
      if (!isSqliteError(error)) throw error
      throw new StoreUnavailableError(`cannot open event store at ${options.path}: ${error.message}`, { cause: error })
    }
    this.database = db
    this.commits = new CommitWatch(() => this.stmt.dataVersion.get() ?? 0, this.pollIntervalMs, () => {
      if (this.closed) return
      // Another connection committed: this store's writer, or another process. Only the file can say which.
      for (const subscription of this.subscriptions) subscription.fileMayBeAhead = true
      this.wakeSubscribers()
    })
  }

  get hasAfterCommit(): boolean {
    return this.writerThread?.hasAfterCommit ?? false
  }

  through(): number {
    return this.appliedAfterCommit
  }

  inFlight(): Promise<unknown> | undefined {
    return this.writing[this.writing.length - 1]
  }

  get stats(): SqliteEventStoreStats {
    return { ...this.counters }
  }

  appendToStream(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new StoreUnavailableError('event store is closed'))
    return new Promise<AppendResult>((resolve, reject) => {
      this.queue.push({ stream, events, expected, resolve, reject })
      if (this.queue.length >= SEND_AT && this.writerThread !== undefined) this.flushQueue()
      else this.scheduleFlush()
    })
  }

  async ready(): Promise<void> {
    await this.writerThread?.ready()
  }

  async flush(): Promise<void> {
    for (;;) {
      this.flushQueue()
      const last = this.writing[this.writing.length - 1]
      if (last === undefined) return
      await last
    }
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const limit = options.limit ?? NO_LIMIT
    if (limit === 0) return []
    const rows = this.read(() =>
      options.direction === 'backwards'
        ? this.stmt.readBackwards.all(stream, options.from ?? Number.MAX_SAFE_INTEGER, limit)
        : this.stmt.readForwards.all(stream, options.from ?? 0, limit),
    )
    return rows.map(toRecordedEvent)
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const limit = options.limit ?? NO_LIMIT
    if (limit === 0) return []
    return this.read(() => this.stmt.readAll.all(options.fromPosition ?? 0, limit)).map(toRecordedEvent)
  }

  async headPosition(): Promise<number> {
    // Asked on every request (authentication, shared read answers). Requests handled in the same
    // turn of the event loop arrived together, so one look at the other connections' commits serves
    // them all; this connection's own commits reset it in settle().
    if (this.head !== undefined && this.headSeenThisTurn) return this.head.position
    return this.read(() => {
      // While no other connection has committed, the head is where it was.
      const dataVersion = this.stmt.dataVersion.get() ?? 0
      if (this.head === undefined || this.head.dataVersion !== dataVersion) this.head = { position: this.stmt.headPosition.get() ?? 0, dataVersion }
      this.headSeenThisTurn = true
      setImmediate(() => (this.headSeenThisTurn = false))
      return this.head.position
    })
  }

  async streamRevision(stream: string): Promise<number> {
    return this.read(() => this.stmt.streamRevision.get(stream) ?? -1)
  }

  subscribe(options: SubscribeOptions = {}): Subscription {
    const subscription = new SqliteSubscription(
      this,
      options.fromCheckpoint ?? 0,
      Math.max(1, options.maxBatchSize ?? DEFAULT_SUBSCRIPTION_BATCH),
      Math.max(0, options.lingerMs ?? 0),
    )
    if (this.closed) {
      subscription.end()
      return subscription
    }
    this.subscriptions.add(subscription)
    this.commits.start()
    return subscription
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown()
    return this.closing
  }

  /**
   * Events strictly after `position`, for subscriptions: from memory when this store committed
   * them itself (the common, live case), from the file otherwise (catch-up, other processes).
   * "Nothing after" comes from memory too, unless another connection may have committed since the
   * reader last read the file (`fileMayBeAhead`, set by the poll): a query of a file another
   * connection has just written costs this connection its page cache.
   */
  readAfter(position: number, limit: number, reader: { fileMayBeAhead: boolean }): RecordedEvent[] {
    if (this.closed) throw new StoreUnavailableError('event store is closed')
    const recent = this.recent.after(position, limit)
    if (recent !== undefined && (recent.length > 0 || !reader.fileMayBeAhead)) return recent
    reader.fileMayBeAhead = false
    return this.read(() => this.stmt.readAfter.all(position, limit)).map(toRecordedEvent)
  }

  forget(subscription: SqliteSubscription): void {
    this.subscriptions.delete(subscription)
    if (this.subscriptions.size === 0) {
      this.commits.stop()
      this.recent.clear()
    }
  }

  private async shutDown(): Promise<void> {
    await this.flush()
    this.closed = true
    for (const subscription of this.subscriptions) subscription.end()
    this.subscriptions.clear()
    this.recent.clear()
    this.commits.stop()
    await this.writerThread?.close()
    this.database.close()
  }

  private read<T>(query: () => T): T {
    if (this.closed) throw new StoreUnavailableError('event store is closed')
    try {
      return query()
    } catch (error) {
      if (!isSqliteError(error)) throw error
      throw new StoreUnavailableError(`event store read failed: ${error.message}`, { cause: error })
    }
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return
    this.flushScheduled = true
    setImmediate(() => this.flushQueue())
  }

  /**
   * Hands every queued append to the writer as one batch. Inline, the batch is written before this
   * returns, so no read of this connection ever sees a half-done batch; while another process
   * holds the write lock, BEGIN IMMEDIATE waits (busy_timeout) blocking the event loop. On the
   * writer thread only that thread waits, and appends made meanwhile form the next batch, sent while
   * this one is written (up to IN_FLIGHT batches), or when the oldest is answered.
   */
  private flushQueue(): void {
    this.flushScheduled = false
    if (this.writing.length >= IN_FLIGHT || this.queue.length === 0) return
    const batch = this.queue
    this.queue = []
    if (this.closed) {
      const error = new StoreUnavailableError('event store is closed')
      for (const append of batch) append.reject(error)
      return
    }

    const appends: PendingAppend[] = []
    const requests: WriteRequest[] = []
    for (const append of batch) {
      const request = this.encode(append)
      if (request === undefined) continue
      appends.push(append)
      requests.push(request)
    }
    if (requests.length === 0) return

    if (this.inlineWriter !== undefined) {
      let outcomes: WriteOutcome[]
      try {
        outcomes = this.inlineWriter.write(requests)
      } catch (error) {
        this.fail(appends, error)
        return
      }
      this.settle(appends, requests, outcomes)
      return
    }
    const written = (this.writerThread as WriterThread).write(requests).then(
      ({ outcomes, appliedThrough }) => {
        // Before the appends are answered and their events announced: a subscriber told of them sees how far the after-commit work got.
        if (appliedThrough > this.appliedAfterCommit) this.appliedAfterCommit = appliedThrough
        this.settle(appends, requests, outcomes)
      },
      (error: unknown) => this.fail(appends, error),
    )
    this.writing.push(written)
    void written.finally(() => {
      this.writing.splice(this.writing.indexOf(written), 1)
      // Appends queued meanwhile (and those made by the continuations just resolved) go next.
      if (this.queue.length > 0) this.scheduleFlush()
    })
  }

  /** The append as the writer takes it: its JSON text is made here, once. Rejects it when it has none. */
  private encode(append: PendingAppend): WriteRequest | undefined {
    try {
      const events: EncodedEvent[] = append.events.map((event) => ({
        id: event.id,
        type: event.type,
        data: jsonOf(event.data === undefined ? null : event.data),
        metadata: jsonOf(event.metadata),
      }))
      const recordedAt = events.length === 0 ? '' : this.clock().toISOString()
      return { stream: append.stream, expected: append.expected, recordedAt, events }
    } catch (error) {
      append.reject(error)
      return undefined
    }
  }

  private fail(appends: readonly PendingAppend[], error: unknown): void {
    const failure = isSqliteError(error) ? new StoreUnavailableError(`event store write failed: ${error.message}`, { cause: error }) : error
    for (const append of appends) append.reject(failure)
  }

  private settle(appends: readonly PendingAppend[], requests: readonly WriteRequest[], outcomes: readonly WriteOutcome[]): void {
    const live = this.subscriptions.size > 0
    let written = 0
    for (let i = 0; i < appends.length; i++) {
      const outcome = outcomes[i] as WriteOutcome
      if (!outcome.ok || outcome.written === null) continue
      written += outcome.written.ids.length
      if (live) this.remember(appends[i] as PendingAppend, requests[i] as WriteRequest, outcome.written)
    }
    if (!live) this.recent.clear()
    if (written > 0) this.head = undefined
    this.counters.transactions++
    this.counters.appends += appends.length
    this.counters.events += written
    for (let i = 0; i < appends.length; i++) {
      const append = appends[i] as PendingAppend
      const outcome = outcomes[i] as WriteOutcome
      if (outcome.ok) append.resolve({ nextExpectedRevision: outcome.nextExpectedRevision, position: outcome.position })
      else append.reject(appendError(outcome.failure))
    }
    if (written > 0) this.wakeSubscribers()
  }

  /**
   * Keeps what was just committed for live subscriptions, as a reader of the file would get it. Its
   * data and metadata are the objects appended, not their JSON read back: events are never changed
   * once made, and what an appender's objects hold (plain JSON values; an undefined member is as good
   * as an absent one to every reader) is what was written.
   */
  private remember(append: PendingAppend, request: WriteRequest, written: WrittenEvents): void {
    let prevHash = written.prevHash
    append.events.forEach((event, i) => {
      const hash = written.hashes[i] as string
      this.recent.add({
        id: written.ids[i] as string,
        type: event.type,
        data: event.data === undefined ? null : event.data,
        metadata: event.metadata,
        stream: request.stream,
        revision: written.firstRevision + i,
        position: written.firstPosition + i,
        recordedAt: request.recordedAt,
        prevHash,
        hash,
      })
      prevHash = hash
    })
  }

  private wakeSubscribers(): void {
    for (const subscription of this.subscriptions) subscription.wake()
  }
}

function jsonOf(value: unknown): string {
  const text = JSON.stringify(value)
  if (typeof text !== 'string') throw new TypeError('event is not serialisable as JSON')
  return text
}
