/**
 * Feeds projections from the log: one ordered, checkpointed subscription for all of them. Several
 * runners may share a views database (the server and the CLI): each batch is applied in an
 * IMMEDIATE transaction that re-reads every checkpoint first, so no event is applied twice.
 */
import { Backoff } from './backoff.ts'
import type { Logger } from 'pino'
import type { RecordedEvent } from '../domain/event.ts'
import { StoreUnavailableError, type EventStore, type Subscription } from '../eventstore/event-store.port.ts'
import { upcast } from '../domain/upcasters.ts'
import type { Projection } from './projection.ts'
import type { AfterCommit, AfterCommitProgress } from '../eventstore/sqlite/index.ts'
import { isViewsFault, openViewsDatabase, type ViewsDatabase } from './views-database.ts'
import { statement } from './statement-cache.ts'

const BATCH = 1000

export interface ProjectionStatus {
  readonly name: string
  readonly version: number
  readonly position: number
}

export class ProjectionRunner {
  private subscription: Subscription | null = null
  private loop: Promise<void> | null = null
  private position = 0
  private waiters: Array<{ position: number; resolve: () => void }> = []
  private failure: Error | null = null
  private stopping = false
  private readonly backoff = new Backoff()
  private readonly handled: ReadonlyMap<Projection, ReadonlySet<string>>

  /**
   * `elsewhere`: a server's writer thread applying the read models to what it commits
   * (src/writer-thread-read-models.ts). A live batch it has covered is not applied again here; one it
   * has not is left to it while it has batches in flight (each of which brings the read models up to
   * its end), and applied here only if it still has not, so the two do not take turns at the lock.
   */
  constructor(
    private readonly store: EventStore,
    private readonly db: ViewsDatabase,
    readonly projections: readonly Projection[],
    private readonly logger?: Pick<Logger, 'info' | 'error'>,
    private readonly elsewhere?: AfterCommitProgress,
  ) {
    this.handled = handledTypes(projections)
    this.prepare()
  }

  /** Creates missing read models and rebuilds those whose version changed. */
  private prepare(): void {
    const read = this.db.prepare('SELECT version FROM projection_checkpoints WHERE name = ?')
    const upsert = this.db.prepare(
      'INSERT INTO projection_checkpoints (name, version, position) VALUES (?, ?, 0) ON CONFLICT(name) DO UPDATE SET version = excluded.version, position = 0',
    )
    this.db
      .transaction(() => {
        for (const projection of this.projections) {
          const row = read.get(projection.name) as { version: number } | undefined
          if (row?.version !== projection.version) {
            for (const table of projection.tables) this.db.exec(`DROP TABLE IF EXISTS ${table}`)
            projection.setup(this.db)
            upsert.run(projection.name, projection.version)
            if (row) this.logger?.info({ projection: projection.name, from: row.version, to: projection.version }, 'projection version changed: rebuilding')
          } else {
            projection.setup(this.db)
          }
        }
      })
      .immediate()
    this.position = this.lowestCheckpoint()
  }

  /** The position this runner has seen every projection reach (no query: for answers keyed on it). */
  get appliedPosition(): number {
    return this.position
  }

  statuses(): ProjectionStatus[] {
    const read = statement(this.db, 'SELECT version, position FROM projection_checkpoints WHERE name = ?')
    return this.projections.map((p) => {
      const row = read.get(p.name) as { version: number; position: number } | undefined
      return { name: p.name, version: row?.version ?? p.version, position: row?.position ?? 0 }
    })
  }

  /** The position every projection has reached. */
  lowestCheckpoint(): number {
    return Math.min(...this.statuses().map((s) => s.position))
  }

  /**
   * Applies a batch in one transaction; events at or below a projection's checkpoint are skipped.
   * `through` is the position the batch covers, when the reader left out events after its last one
   * that no projection reads (a replay's reader thread does): the checkpoints move past them too.
   */
  applyBatch(events: readonly RecordedEvent[], through?: number): void {
    const last = Math.max(events[events.length - 1]?.position ?? 0, through ?? 0)
    if (last === 0) return
    // Applied already, with its checkpoints, by the writer thread before the events were announced here.
    if (this.elsewhere === undefined || this.elsewhere.through() < last) applyToReadModels(this.db, this.handled, events, last)
    this.advance(last)
  }

  /** A live batch: left to the writer thread while it may still cover it, else applied here. */
  private async applyLive(events: readonly RecordedEvent[]): Promise<void> {
    const last = events[events.length - 1]?.position ?? 0
    const inFlight = this.elsewhere !== undefined && this.elsewhere.through() < last ? this.elsewhere.inFlight() : undefined
    if (inFlight !== undefined) await inFlight.then(() => undefined, () => undefined)
    this.applyBatch(events)
  }

  private advance(position: number): void {
    if (position <= this.position) return
    this.position = position
    const ready = this.waiters.filter((w) => w.position <= position)
    this.waiters = this.waiters.filter((w) => w.position > position)
    for (const waiter of ready) waiter.resolve()
  }

  /** Reads and applies everything up to the log's current head (the CLI's way to be up to date). */
  async catchUp(): Promise<void> {
    for (;;) {
      const from = this.lowestCheckpoint()
      const events = await this.store.readAll({ fromPosition: from + 1, limit: BATCH })
      if (events.length === 0) {
        this.advance(from)
        return
      }
      this.applyBatch(events)
    }
  }

  /**
   * Subscribes from the lowest checkpoint and applies live events until stopped. A batch that fails
   * (disk full, read-only, the log unreachable) is not skipped: the loop waits, catches up from the
   * checkpoints (which the failed transaction did not move) and subscribes again, so the read models
   * resume on their own once the disk does. Meanwhile waitFor() rejects and /readyz says not ready.
   */
  start(): void {
    if (this.loop) return
    this.stopping = false
    this.loop = (async () => {
      while (!this.stopping) {
        try {
          if (this.failure) {
            await this.catchUp()
            this.failure = null
            this.backoff.reset()
            this.logger?.info({ position: this.position }, 'projection runner resumed')
          }
          // Live batches are applied as soon as they are announced, in the turn of the event loop that
          // answered their appends: a client that has its 2xx reads its write on this server.
          const subscription = this.store.subscribe({ fromCheckpoint: this.lowestCheckpoint(), maxBatchSize: BATCH })
          this.subscription = subscription
          for await (const batch of subscription) await this.applyLive(batch)
          return // closed: the runner or the store is stopping
        } catch (error) {
          if (this.stopping) return
          this.failure = error as Error
          this.logger?.error({ err: error, retryInMs: this.backoff.delayMs }, 'projection runner failed: retrying')
          await this.backoff.pause()
        }
      }
    })()
  }

  /** Resolves once every projection has applied the event at `position`. */
  waitFor(position: number, timeoutMs = 5000): Promise<void> {
    if (this.failure) return Promise.reject(this.failure)
    if (position <= this.position) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const waiter = { position, resolve: () => { clearTimeout(timer); resolve() } }
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter)
        reject(new Error(`read models did not reach position ${position} within ${timeoutMs} ms`))
      }, timeoutMs)
      this.waiters.push(waiter)
    })
  }

  /** True when the read models have applied everything on the log (for /readyz). */
  async caughtUp(): Promise<boolean> {
    if (this.failure) return false
    return this.lowestCheckpoint() >= (await this.store.headPosition())
  }

  async stop(): Promise<void> {
    this.stopping = true
    this.backoff.interrupt()
    await this.subscription?.close()
    await this.loop
    this.subscription = null
    this.loop = null
  }
}

/**
 * Applies `events` (ending at or before `last`, the position the batch covers) to the read models in
 * one IMMEDIATE transaction that re-reads every checkpoint first, so runners sharing a views database
 * (the server's, the CLI's) never apply an event twice; events at or below a projection's checkpoint
 * are skipped.
 */
function applyToReadModels(
  db: ViewsDatabase,
  handled: ReadonlyMap<Projection, ReadonlySet<string>>,
  events: readonly RecordedEvent[],
  last: number,
  before?: (lowest: number) => readonly RecordedEvent[] | undefined,
): boolean {
  const read = statement(db, 'SELECT position FROM projection_checkpoints WHERE name = ?')
  const write = statement(db, 'UPDATE projection_checkpoints SET position = ? WHERE name = ?')
  const apply = db.transaction((): boolean => {
    let batch = events
    if (before !== undefined) {
      // The events between the lowest checkpoint and the batch, or undefined: leave it all.
      let lowest = Number.MAX_SAFE_INTEGER
      for (const projection of handled.keys()) lowest = Math.min(lowest, (read.get(projection.name) as { position: number } | undefined)?.position ?? -1)
      const earlier = lowest < 0 ? undefined : before(lowest)
      if (earlier === undefined) return false
      if (earlier.length > 0) batch = [...earlier, ...events]
    }
    const upcasted = batch.map(upcast)
    for (const [projection, handles] of handled) {
      const checkpoint = (read.get(projection.name) as { position: number }).position
      if (checkpoint >= last) continue
      for (const event of upcasted) {
        if (event.position > checkpoint && handles.has(event.type)) projection.apply(db, event)
      }
      write.run(last, projection.name)
    }
    return true
  })
  try {
    return apply.immediate()
  } catch (error) {
    // The views file is on the same disk as the log: full, read-only or failing, it is the store
    // being unavailable (503), and the transaction left nothing behind, checkpoints included.
    if (!isViewsFault(error)) throw error
    throw new StoreUnavailableError(`read models cannot be written: ${(error as Error).message}`, { cause: error })
  }
}

/** At most this many events between the read models and a batch are read back by the writer thread; more are the runner's. */
const CATCH_UP_ON_WRITER = 2000

/**
 * The writer thread's applier (src/writer-thread-read-models.ts): applies what a batch committed to
 * the read models on a connection of its own, with whatever events came between the lowest
 * checkpoint and the batch (another process's, a batch it left before), read from the log. It does
 * nothing and says so (0) when another connection holds the views' write lock, when that gap is
 * longer than CATCH_UP_ON_WRITER, or when a read model fails: the main thread's runner then applies
 * the batch as ever. It never waits for the lock and never throws.
 */
export function openCommittedApplier(file: string, projections: readonly Projection[]): AfterCommit {
  const db = openViewsDatabase(file)
  db.pragma('busy_timeout = 0')
  const handled = handledTypes(projections)
  return {
    committed(events, log) {
      const first = events[0]?.position
      const last = events[events.length - 1]?.position
      if (first === undefined || last === undefined) return 0
      const before = (lowest: number) => (lowest >= first - 1 ? [] : first - 1 - lowest > CATCH_UP_ON_WRITER ? undefined : log.between(lowest, first))
      try {
        return applyToReadModels(db, handled, events, last, before) ? last : 0
      } catch {
        return 0
      }
    },
    close: () => db.close(),
  }
}

/** Each projection with the event types it reads. */
function handledTypes(projections: readonly Projection[]): ReadonlyMap<Projection, ReadonlySet<string>> {
  return new Map(projections.map((projection) => [projection, new Set(projection.handles)]))
}
