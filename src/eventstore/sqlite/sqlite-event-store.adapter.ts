/**
 * The embedded event store: one SQLite file (better-sqlite3, WAL, synchronous=FULL).
 *
 * Appends are group-committed: every append made during one turn of the event loop is queued and
 * written on the next `setImmediate` inside ONE transaction, so one fsync acknowledges them all.
 * Each append runs in its own SAVEPOINT, so a conflict rolls back and rejects only that append.
 * Promises resolve only after COMMIT has returned.
 *
 * Why a subscriber never sees a gap that later fills: SQLite admits one writer at a time (BEGIN
 * IMMEDIATE takes the database's write lock, across processes too). Positions are rowids, assigned
 * as max(position)+1 inside that write transaction, and a reader (WAL snapshot) sees a transaction
 * all at once or not at all. The next writer can only begin after the previous one committed, so
 * it can only assign positions above everything any reader has already seen.
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import type { NewEvent, RecordedEvent } from '../event.ts'
import {
  StoreUnavailableError,
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type SubscribeOptions,
  type Subscription,
} from '../event-store.port.ts'
import { hashEvent } from '../hash-chain.ts'

/** Bumped by every schema migration; stored in `PRAGMA user_version`. */
export const SCHEMA_VERSION = 1

const DEFAULT_POLL_INTERVAL_MS = 100
const DEFAULT_SUBSCRIPTION_BATCH = 500
const BUSY_TIMEOUT_MS = 5000

export interface SqliteEventStoreOptions {
  /** File of the database; its parent directory is created. */
  readonly path: string
  /** Source of `recordedAt`; defaults to the system clock. */
  readonly clock?: () => Date
  /** How often subscriptions look for commits made by other connections or processes. */
  readonly pollIntervalMs?: number
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
  /** The underlying connection, for tests and diagnostics; do not write to it. */
  readonly database: Database.Database
  readonly stats: SqliteEventStoreStats
  /** Writes the queued appends now instead of on the next `setImmediate`. */
  flush(): Promise<void>
}

/**
 * An event id that is already stored somewhere other than where a retry of this very append would
 * have put it. Ids are unique across the whole log.
 */
export class DuplicateEventIdError extends Error {
  readonly type = 'duplicate_event_id' as const
  constructor(
    readonly eventId: string,
    readonly stream: string,
  ) {
    super(`event id ${eventId} is already stored (append to ${stream})`)
    this.name = 'DuplicateEventIdError'
  }
}

/** Opens (creating if needed) the event store in the SQLite file at `options.path`. */
export function openSqliteEventStore(options: SqliteEventStoreOptions): SqliteEventStore {
  return new SqliteStore(options)
}

interface EventRow {
  position: number
  id: string
  stream: string
  revision: number
  type: string
  data: string
  metadata: string
  recorded_at: string
  prev_hash: string | null
  hash: string
}

interface HeadRow {
  revision: number
  hash: string
  position: number
}

interface PlacedRow {
  stream: string
  revision: number
  position: number
}

interface PendingAppend {
  readonly stream: string
  readonly events: readonly NewEvent[]
  readonly expected: ExpectedRevision
  readonly resolve: (result: AppendResult) => void
  readonly reject: (error: unknown) => void
}

const EVENT_COLUMNS = 'position, id, stream, revision, type, data, metadata, recorded_at, prev_hash, hash'
/** SQLite reads a negative LIMIT as "no limit". */
const NO_LIMIT = -1

function migrate(db: Database.Database): void {
  const version = db.pragma('user_version', { simple: true }) as number
  if (version === SCHEMA_VERSION) return
  if (version > SCHEMA_VERSION) {
    throw new Error(`event store schema version ${version} is newer than this build understands (${SCHEMA_VERSION})`)
  }
  // IMMEDIATE so two processes opening a fresh file at once do not both migrate.
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number
    if (current >= 1) return
    db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        position    INTEGER PRIMARY KEY,
        id          TEXT NOT NULL UNIQUE,
        stream      TEXT NOT NULL,
        revision    INTEGER NOT NULL,
        type        TEXT NOT NULL,
        data        TEXT NOT NULL,
        metadata    TEXT NOT NULL,
        recorded_at TEXT NOT NULL,
        prev_hash   TEXT,
        hash        TEXT NOT NULL,
        UNIQUE (stream, revision)
      );
      PRAGMA user_version = 1;
    `)
  }).immediate()
}

class SqliteStore implements SqliteEventStore {
  readonly kind = 'sqlite' as const
  readonly path: string
  readonly database: Database.Database

  private readonly clock: () => Date
  private readonly pollIntervalMs: number
  private readonly counters = { transactions: 0, appends: 0, events: 0 }

  private queue: PendingAppend[] = []
  private flushScheduled = false
  private closed = false
  private closing: Promise<void> | undefined

  private readonly subscriptions = new Set<SqliteSubscription>()
  private pollTimer: NodeJS.Timeout | undefined
  private lastDataVersion = 0

  private readonly stmt: {
    begin: Database.Statement
    commit: Database.Statement
    rollback: Database.Statement
    savepoint: Database.Statement
    release: Database.Statement
    rollbackTo: Database.Statement
    head: Database.Statement<[string], HeadRow>
    placeOfId: Database.Statement<[string], PlacedRow>
    idsFrom: Database.Statement<[string, number, number], { id: string; position: number }>
    insert: Database.Statement<[string, string, number, string, string, string, string, string | null, string]>
    readForwards: Database.Statement<[string, number, number], EventRow>
    readBackwards: Database.Statement<[string, number, number], EventRow>
    readAll: Database.Statement<[number, number], EventRow>
    readAfter: Database.Statement<[number, number], EventRow>
    headPosition: Database.Statement<[], number | null>
    dataVersion: Database.Statement<[], number>
  }

  constructor(options: SqliteEventStoreOptions) {
    this.path = options.path
    this.clock = options.clock ?? (() => new Date())
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS
    if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true })

    const db = new Database(options.path, { timeout: BUSY_TIMEOUT_MS })
    try {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
      db.pragma('journal_mode = WAL')
      db.pragma('synchronous = FULL')
      migrate(db)
      this.stmt = {
        begin: db.prepare('BEGIN IMMEDIATE'),
        commit: db.prepare('COMMIT'),
        rollback: db.prepare('ROLLBACK'),
        savepoint: db.prepare('SAVEPOINT append'),
        release: db.prepare('RELEASE append'),
        rollbackTo: db.prepare('ROLLBACK TO append'),
        head: db.prepare<[string], HeadRow>(
          'SELECT revision, hash, position FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1',
        ),
        placeOfId: db.prepare<[string], PlacedRow>('SELECT stream, revision, position FROM events WHERE id = ?'),
        idsFrom: db.prepare<[string, number, number], { id: string; position: number }>(
          'SELECT id, position FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?',
        ),
        insert: db.prepare<[string, string, number, string, string, string, string, string | null, string]>(
          'INSERT INTO events (id, stream, revision, type, data, metadata, recorded_at, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        ),
        readForwards: db.prepare<[string, number, number], EventRow>(
          `SELECT ${EVENT_COLUMNS} FROM events WHERE stream = ? AND revision >= ? ORDER BY revision ASC LIMIT ?`,
        ),
        readBackwards: db.prepare<[string, number, number], EventRow>(
          `SELECT ${EVENT_COLUMNS} FROM events WHERE stream = ? AND revision <= ? ORDER BY revision DESC LIMIT ?`,
        ),
        readAll: db.prepare<[number, number], EventRow>(
          `SELECT ${EVENT_COLUMNS} FROM events WHERE position >= ? ORDER BY position LIMIT ?`,
        ),
        readAfter: db.prepare<[number, number], EventRow>(
          `SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`,
        ),
        headPosition: db.prepare<[], number | null>('SELECT max(position) FROM events').pluck(),
        dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
      }
    } catch (error) {
      db.close()
      if (!isSqliteError(error)) throw error
      throw new StoreUnavailableError(`cannot open event store at ${options.path}: ${error.message}`, { cause: error })
    }
    this.database = db
  }

  get stats(): SqliteEventStoreStats {
    return { ...this.counters }
  }

  appendToStream(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new StoreUnavailableError('event store is closed'))
    return new Promise<AppendResult>((resolve, reject) => {
      this.queue.push({ stream, events, expected, resolve, reject })
      if (!this.flushScheduled) {
        this.flushScheduled = true
        setImmediate(() => this.flushQueue())
      }
    })
  }

  async flush(): Promise<void> {
    this.flushQueue()
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
    return this.read(() => this.stmt.headPosition.get()) ?? 0
  }

  subscribe(options: SubscribeOptions = {}): Subscription {
    const subscription = new SqliteSubscription(
      this,
      options.fromCheckpoint ?? 0,
      Math.max(1, options.maxBatchSize ?? DEFAULT_SUBSCRIPTION_BATCH),
    )
    if (this.closed) {
      subscription.end()
      return subscription
    }
    this.subscriptions.add(subscription)
    this.startPolling()
    return subscription
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown()
    return this.closing
  }

  /** Events strictly after `position`, for subscriptions. */
  readAfter(position: number, limit: number): RecordedEvent[] {
    return this.read(() => this.stmt.readAfter.all(position, limit)).map(toRecordedEvent)
  }

  forget(subscription: SqliteSubscription): void {
    this.subscriptions.delete(subscription)
    if (this.subscriptions.size === 0) this.stopPolling()
  }

  private async shutDown(): Promise<void> {
    this.flushQueue()
    this.closed = true
    for (const subscription of this.subscriptions) subscription.end()
    this.subscriptions.clear()
    this.stopPolling()
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

  /**
   * Writes every queued append in one transaction (one fsync), each inside its own savepoint.
   * Synchronous from BEGIN to COMMIT, so no read of this connection ever sees a half-done batch.
   * While another process holds the write lock, BEGIN IMMEDIATE waits (busy_timeout) blocking
   * the event loop; past the timeout the batch fails with StoreUnavailableError.
   */
  private flushQueue(): void {
    this.flushScheduled = false
    const batch = this.queue
    if (batch.length === 0) return
    this.queue = []
    if (this.closed) {
      const error = new StoreUnavailableError('event store is closed')
      for (const append of batch) append.reject(error)
      return
    }

    const outcomes: Array<AppendResult | Error> = []
    let written = 0
    try {
      this.stmt.begin.run()
      for (const append of batch) {
        this.stmt.savepoint.run()
        try {
          const { result, wrote } = this.write(append)
          outcomes.push(result)
          this.stmt.release.run()
          written += wrote
        } catch (error) {
          if (isSqliteError(error) && !error.code.startsWith('SQLITE_CONSTRAINT')) throw error
          this.stmt.rollbackTo.run()
          this.stmt.release.run()
          outcomes.push(this.appendError(error, append))
        }
      }
      this.stmt.commit.run()
    } catch (error) {
      // SQLite may already have rolled back on its own (e.g. SQLITE_FULL, SQLITE_IOERR).
      if (this.database.inTransaction) {
        try {
          this.stmt.rollback.run()
        } catch {
          // the connection will retry on the next batch; nothing of this one was committed
        }
      }
      const failure = isSqliteError(error)
        ? new StoreUnavailableError(`event store write failed: ${error.message}`, { cause: error })
        : error
      for (const append of batch) append.reject(failure)
      return
    }

    this.counters.transactions++
    this.counters.appends += batch.length
    this.counters.events += written
    for (let i = 0; i < batch.length; i++) {
      const append = batch[i] as PendingAppend
      const outcome = outcomes[i] as AppendResult | Error
      if (outcome instanceof Error) append.reject(outcome)
      else append.resolve(outcome)
    }
    if (written > 0) this.wakeSubscribers()
  }

  /** One append, inside the open transaction. Throws to reject only this append. */
  private write(append: PendingAppend): { result: AppendResult; wrote: number } {
    const { stream, events, expected } = append
    const head = this.stmt.head.get(stream)
    const actual = head?.revision ?? -1

    const firstId = events[0]?.id
    if (firstId !== undefined) {
      const placed = this.stmt.placeOfId.get(firstId)
      if (placed !== undefined) return { result: this.replayedAppend(append, placed, actual), wrote: 0 }
    }

    if (!expectationHolds(expected, actual)) throw new WrongExpectedRevisionError(stream, expected, actual)
    if (events.length === 0) return { result: { nextExpectedRevision: actual, position: head?.position ?? 0 }, wrote: 0 }

    const recordedAt = this.clock().toISOString()
    let prevHash = head?.hash ?? null
    let revision = actual
    let position = 0
    for (const event of events) {
      revision++
      const id = event.id ?? randomUUID()
      const data = event.data === undefined ? null : event.data
      const hash = hashEvent({ id, stream, revision, type: event.type, data, metadata: event.metadata, recordedAt }, prevHash)
      const info = this.stmt.insert.run(
        id,
        stream,
        revision,
        event.type,
        JSON.stringify(data),
        JSON.stringify(event.metadata),
        recordedAt,
        prevHash,
        hash,
      )
      position = Number(info.lastInsertRowid)
      prevHash = hash
    }
    return { result: { nextExpectedRevision: revision, position }, wrote: events.length }
  }

  /**
   * The first event id is already stored. If the whole append sits there, consecutively, in this
   * stream and where `expected` would have put it, it is a retry of an append that succeeded:
   * answer as the original did.
   */
  private replayedAppend(append: PendingAppend, placed: PlacedRow, actual: number): AppendResult {
    const { stream, events, expected } = append
    const firstId = placed.stream === stream ? undefined : events[0]?.id
    if (firstId !== undefined) throw new DuplicateEventIdError(firstId, stream)
    const stored = this.stmt.idsFrom.all(stream, placed.revision, events.length)
    events.forEach((event, i) => {
      if (event.id === undefined || stored[i]?.id !== event.id) throw new DuplicateEventIdError(events[0]?.id ?? '', stream)
    })
    if (!expectationHolds(expected, placed.revision - 1)) throw new WrongExpectedRevisionError(stream, expected, actual)
    const last = stored[stored.length - 1] as { position: number }
    return { nextExpectedRevision: placed.revision + events.length - 1, position: last.position }
  }

  /** Why one append failed, once its savepoint has been rolled back. */
  private appendError(error: unknown, append: PendingAppend): Error {
    if (!isSqliteError(error)) return error instanceof Error ? error : new Error(String(error))
    // The only constraint an append can break once its expectation held: an event id that is
    // stored already, or repeated within the append.
    const ids = append.events.flatMap((event) => (event.id === undefined ? [] : [event.id]))
    const duplicate = ids.find((id) => this.stmt.placeOfId.get(id) !== undefined) ?? ids.find((id, i) => ids.indexOf(id) !== i)
    return new DuplicateEventIdError(duplicate ?? '', append.stream)
  }

  private wakeSubscribers(): void {
    for (const subscription of this.subscriptions) subscription.wake()
  }

  /**
   * One timer per store, whatever the number of subscriptions. `PRAGMA data_version` changes only
   * when another connection (this process or another) commits, so an idle tick costs one pragma.
   */
  private startPolling(): void {
    if (this.pollTimer !== undefined) return
    this.lastDataVersion = this.stmt.dataVersion.get() ?? 0
    this.pollTimer = setInterval(() => this.poll(), this.pollIntervalMs)
    this.pollTimer.unref()
  }

  private stopPolling(): void {
    if (this.pollTimer === undefined) return
    clearInterval(this.pollTimer)
    this.pollTimer = undefined
  }

  private poll(): void {
    if (this.closed) return
    let version: number
    try {
      version = this.stmt.dataVersion.get() ?? 0
    } catch {
      return // a transient read failure; the next tick tries again
    }
    if (version === this.lastDataVersion) return
    this.lastDataVersion = version
    this.wakeSubscribers()
  }
}

/**
 * Catch-up then live. Reads straight from the database after its checkpoint, so a wake-up is only
 * a hint: a missed or spurious one costs at most one poll interval or one empty query.
 * One consumer per subscription.
 */
class SqliteSubscription implements Subscription {
  private ended = false
  private waiting: (() => void) | undefined

  constructor(
    private readonly store: SqliteStore,
    private checkpoint: number,
    private readonly maxBatchSize: number,
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<readonly RecordedEvent[]> {
    try {
      while (!this.ended) {
        const batch = this.store.readAfter(this.checkpoint, this.maxBatchSize)
        const last = batch[batch.length - 1]
        if (last !== undefined) {
          this.checkpoint = last.position
          yield batch
          continue
        }
        // Registered synchronously after the empty read: a commit of this process cannot slip in
        // between, and one of another process is caught by the next poll.
        await new Promise<void>((resolve) => {
          this.waiting = resolve
        })
      }
    } finally {
      await this.close()
    }
  }

  wake(): void {
    const waiting = this.waiting
    this.waiting = undefined
    waiting?.()
  }

  end(): void {
    this.ended = true
    this.wake()
  }

  async close(): Promise<void> {
    this.end()
    this.store.forget(this)
  }
}

function expectationHolds(expected: ExpectedRevision, actual: number): boolean {
  switch (expected) {
    case 'any':
      return true
    case 'no_stream':
      return actual === -1
    case 'stream_exists':
      return actual >= 0
    default:
      return actual === expected
  }
}

function isSqliteError(error: unknown): error is Error & { code: string } {
  if (!(error instanceof Error)) return false
  const code: unknown = (error as Error & { code?: unknown }).code
  return typeof code === 'string' && code.startsWith('SQLITE_')
}

function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    id: row.id,
    type: row.type,
    data: JSON.parse(row.data) as unknown,
    metadata: JSON.parse(row.metadata) as RecordedEvent['metadata'],
    stream: row.stream,
    revision: row.revision,
    position: row.position,
    recordedAt: row.recorded_at,
    prevHash: row.prev_hash,
    hash: row.hash,
  }
}
