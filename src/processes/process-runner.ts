/**
 * Feeds process managers (reactors with side effects) from the log, with a checkpoint of their own in
 * the views database. Delivery is at least once: every reactor is idempotent because each decision it
 * takes is an append with an expected revision. A runner that has never run starts at the head of
 * the log: history is never acted on again (no one is rung for a lead received long ago).
 *
 * The checkpoint never passes an event whose reaction is still only in memory (a call queued behind
 * the account's pace): it stays just before the oldest such event, so a stop of any kind delivers it
 * again, while later batches are delivered without waiting for it.
 */
import { Backoff } from '../read-models/backoff.ts'
import type { Logger } from 'pino'
import type { RecordedEvent } from '../domain/event.ts'
import { StoreUnavailableError, type EventStore, type Subscription } from '../eventstore/event-store.port.ts'
import { upcast } from '../domain/upcasters.ts'
import { BUSY_RETRY_MS, writeUnlessBusy, type ViewsDatabase } from '../read-models/views-database.ts'
import { statement } from '../read-models/statement-cache.ts'

/**
 * How long a delivered position may wait to be saved as the checkpoint. Most batches hold nothing a
 * reactor handles, and one write to the views database per batch was a visible share of the
 * webhook's main thread; a crash within this time delivers those events again, which reactors
 * take as they take any redelivery (their decisions are appends with an expected revision).
 */
const SAVE_EVERY_MS = 250

/**
 * What a reaction may hand back: work it accepted and has not yet made durable (on the log), with a
 * promise that settles once it has (or once it no longer depends on this process's memory).
 */
export type Reaction = void | { readonly settled: Promise<unknown> }

export interface Reactor {
  readonly name: string
  readonly handles: readonly string[]
  /**
   * Must not throw for a single bad event (the runner logs and moves on); must be idempotent: a
   * batch whose reaction met an unavailable store (StoreUnavailableError) is delivered again, and so
   * is every event whose `settled` had not settled when the process stopped.
   */
  react(event: RecordedEvent): Promise<Reaction>
}

export interface RunnerTuning {
  /** Events a batch holds at most (500). */
  readonly maxBatchSize?: number
  /** A runner that never ran begins at this other runner's checkpoint, when it has one (a reactor moved to a runner of its own). */
  readonly inheritCheckpoint?: string
}

export class ProcessRunner {
  private subscription: Subscription | null = null
  private loop: Promise<void> | null = null
  private stopping = false
  /** After a batch the log could not take (disk full, read-only), it is delivered again after this pause. */
  private readonly backoff = new Backoff()
  /** The last position delivered; whether a save is due; when a save last happened. */
  private deliveredTo: number | null = null
  private unsaved = false
  private savedAt = 0
  /**
   * Events whose reaction has not settled, by position: how many reactions, and the position the
   * checkpoint may hold while they wait (the event delivered just before: a real position, which
   * EventStoreDB can subscribe from). As many as reactors hold in memory, which they keep bounded.
   */
  private readonly unsettled = new Map<number, { count: number; before: number }>()
  private saveTimer: NodeJS.Timeout | null = null

  constructor(
    private readonly store: EventStore,
    private readonly db: ViewsDatabase,
    private readonly name: string,
    private readonly reactors: readonly Reactor[],
    private readonly logger?: Pick<Logger, 'error' | 'info'>,
    private readonly tuning: RunnerTuning = {},
  ) {
    db.exec('CREATE TABLE IF NOT EXISTS process_checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL)')
  }

  private checkpoint(): number | null {
    const row = statement(this.db, 'SELECT position FROM process_checkpoints WHERE name = ?').get(this.name) as { position: number } | undefined
    return row?.position ?? null
  }

  private save(position: number): void {
    statement(this.db, 'INSERT INTO process_checkpoints (name, position) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET position = MAX(position, excluded.position)').run(
      this.name,
      position,
    )
  }

  /** Fixes where a runner that never ran begins (the head now); call before accepting traffic. Idempotent. */
  async prepare(): Promise<number> {
    const saved = this.checkpoint()
    if (saved !== null) return saved
    const inherited = this.tuning.inheritCheckpoint === undefined ? undefined
      : (statement(this.db, 'SELECT position FROM process_checkpoints WHERE name = ?').get(this.tuning.inheritCheckpoint) as { position: number } | undefined)?.position
    if (inherited !== undefined) {
      this.save(inherited)
      return inherited
    }
    const head = await this.store.headPosition()
    this.save(head)
    this.logger?.info({ processes: this.name, from: head }, 'process managers start at the head of the log')
    return head
  }

  /**
   * Delivers from the checkpoint until stopped. A batch whose reaction met an unavailable store is
   * not checkpointed: the loop waits and subscribes again from the last checkpoint, so a call
   * decided just before the disk filled is still dialed once space returns
   * (reactors are idempotent: a decision already made is not made again).
   */
  async start(): Promise<void> {
    if (this.loop) return
    this.stopping = false
    let from = await this.prepare()
    this.loop = (async () => {
      while (!this.stopping) {
        try {
          const subscription = this.store.subscribe({ fromCheckpoint: from, maxBatchSize: this.tuning.maxBatchSize ?? 500 })
          this.subscription = subscription
          for await (const batch of subscription) {
            await this.deliver(batch.map(upcast), from)
            from = (batch[batch.length - 1] as RecordedEvent).position
            this.delivered(from)
            this.backoff.reset()
          }
          return // closed: the runner or the store is stopping
        } catch (error) {
          if (this.stopping) return
          this.logger?.error({ err: error, processes: this.name, retryInMs: this.backoff.delayMs }, 'process runner failed: retrying from its checkpoint')
          await this.backoff.pause()
        }
      }
    })()
  }

  /** Saves `position` now if none was saved for SAVE_EVERY_MS, else within that time. */
  private delivered(position: number): void {
    this.deliveredTo = position
    this.saveSoon()
  }

  private saveSoon(): void {
    this.unsaved = true
    if (Date.now() - this.savedAt >= SAVE_EVERY_MS) return this.saveDelivered()
    this.saveTimer ??= setTimeout(() => this.saveDelivered(), SAVE_EVERY_MS)
    this.saveTimer.unref()
  }

  /** The last position delivered, or, while some reaction has not settled, the position just before the oldest such event. */
  private saveable(): number | null {
    let position = this.deliveredTo
    for (const { before } of this.unsettled.values()) if (position === null || before < position) position = before
    return position
  }

  /**
   * Saves what may be saved (see `saveable`). Unless `wait`, not while another connection holds the
   * views database's write lock (a server's read models thread applying a batch): the save is tried
   * again a moment later rather than blocking the event loop in SQLite's busy wait.
   */
  private saveDelivered(wait = false): void {
    if (this.saveTimer !== null) clearTimeout(this.saveTimer)
    this.saveTimer = null
    if (!this.unsaved) return
    const position = this.saveable()
    this.unsaved = false
    if (position === null) return
    this.savedAt = Date.now()
    try {
      if (wait) this.save(position)
      else if (!writeUnlessBusy(this.db, () => this.save(position))) {
        this.unsaved = true
        this.saveTimer = setTimeout(() => this.saveDelivered(), BUSY_RETRY_MS)
        this.saveTimer.unref()
      }
    } catch (error) {
      // The views database refused (a full or read-only disk): delivered again later, which is harmless.
      this.logger?.error({ err: error, processes: this.name }, 'process checkpoint not saved')
    }
  }

  /** Holds the checkpoint before `event` until `settled` settles (whichever way: a failure is the reactor's to report). */
  private hold(event: RecordedEvent, before: number, settled: Promise<unknown>): void {
    const entry = this.unsettled.get(event.position) ?? { count: 0, before }
    entry.count++
    this.unsettled.set(event.position, entry)
    const release = () => {
      if (--entry.count > 0 || this.unsettled.get(event.position) !== entry) return
      this.unsettled.delete(event.position)
      if (this.loop !== null) this.saveSoon()
    }
    settled.then(release, release)
  }

  private async deliver(batch: readonly RecordedEvent[], from: number): Promise<void> {
    // Reactions to one batch run together (their appends share a group commit); a reactor enqueues
    // synchronously on entry, so per-account order is kept.
    let unavailable: StoreUnavailableError | null = null
    const reactions: Promise<void>[] = []
    for (const reactor of this.reactors) {
      for (let i = 0; i < batch.length; i++) {
        const event = batch[i] as RecordedEvent
        if (!reactor.handles.includes(event.type)) continue
        const before = i === 0 ? from : (batch[i - 1] as RecordedEvent).position
        reactions.push(
          reactor.react(event).then(
            (reaction) => {
              if (reaction) this.hold(event, before, reaction.settled)
            },
            (error: unknown) => {
              if (error instanceof StoreUnavailableError) unavailable = error
              this.logger?.error({ err: error, reactor: reactor.name, eventId: event.id, stream: event.stream }, 'reaction failed')
            },
          ),
        )
      }
    }
    await Promise.all(reactions)
    if (unavailable) throw unavailable
  }

  /** Stops delivering and saves the checkpoint: before any event whose reaction has not settled. */
  async stop(): Promise<void> {
    this.stopping = true
    this.backoff.interrupt()
    await this.subscription?.close()
    await this.loop
    this.unsaved = true
    this.saveDelivered(true)
    this.subscription = null
    this.loop = null
    this.unsettled.clear()
  }
}
