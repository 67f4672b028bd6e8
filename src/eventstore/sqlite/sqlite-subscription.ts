/** Following the embedded log: a subscription, and the window of recent commits it reads from first. */
import { setTimeout as sleep } from 'node:timers/promises'
import type { RecordedEvent } from '../../domain/event.ts'
import type { Subscription } from '../event-store.port.ts'

export const DEFAULT_SUBSCRIPTION_BATCH = 500
/**
 * Committed events kept in memory for live subscriptions (the projection runner, the process
 * managers), so they do not read back from the file what this store has just written; a subscriber
 * further behind reads the file. Sized between two costs (docs/performance.md): longer, the events
 * live long enough to reach V8's old generation; shorter, the subscribers fall out of it.
 */
export const RECENT_EVENTS = 256

/** What a subscription needs of its store. */
export interface SubscriptionSource {
  readAfter(position: number, limit: number, reader: { fileMayBeAhead: boolean }): RecordedEvent[]
  forget(subscription: SqliteSubscription): void
}

/**
 * The newest committed events of this store, contiguous in position. A commit by another
 * connection between two of ours leaves a gap in positions, and the window starts over after it,
 * so whatever it answers is exactly what a read of the file after that position would return.
 */
export class RecentEvents {
  private events: RecordedEvent[] = []
  private start = 0

  constructor(private readonly capacity: number) {}

  add(event: RecordedEvent): void {
    const last = this.events[this.events.length - 1]
    if (last !== undefined && event.position !== last.position + 1) this.clear()
    this.events.push(event)
    if (this.events.length - this.start > this.capacity) this.start++
    if (this.start >= this.capacity) {
      this.events = this.events.slice(this.start)
      this.start = 0
    }
  }

  /**
   * Events after `position` when the window holds the very next one, or none when `position` is its
   * last (none of this store's commits follow it); undefined when it cannot say.
   */
  after(position: number, limit: number): RecordedEvent[] | undefined {
    const first = this.events[this.start]
    if (first === undefined) return undefined
    const index = this.start + (position + 1 - first.position)
    if (index < this.start || index > this.events.length) return undefined
    return this.events.slice(index, Math.min(this.events.length, index + limit))
  }

  clear(): void {
    this.events = []
    this.start = 0
  }
}

/**
 * Catch-up then live. Reads whatever follows its checkpoint (from the store's window of recent
 * commits, else from the file), so a wake-up is only a hint: a missed or spurious one costs at most
 * one poll interval or one empty read.
 * One consumer per subscription.
 */
export class SqliteSubscription implements Subscription {
  private ended = false
  /** Another connection may have committed after what this subscription last read from the file. */
  fileMayBeAhead = true
  private waiting: (() => void) | undefined

  constructor(
    private readonly store: SubscriptionSource,
    private checkpoint: number,
    private readonly maxBatchSize: number,
    private readonly lingerMs: number,
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<readonly RecordedEvent[]> {
    try {
      while (!this.ended) {
        const batch = this.store.readAfter(this.checkpoint, this.maxBatchSize, this)
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
        if (this.lingerMs > 0 && !this.ended) await sleep(this.lingerMs)
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

/**
 * Notices commits made by other connections (this process's writer thread, another process) with one
 * timer per store, whatever the number of subscriptions. `PRAGMA data_version` changes only when
 * another connection commits, so an idle tick costs one pragma.
 */
export class CommitWatch {
  private timer: NodeJS.Timeout | undefined
  private last = 0

  constructor(
    private readonly dataVersion: () => number,
    private readonly intervalMs: number,
    private readonly committed: () => void,
  ) {}

  start(): void {
    if (this.timer !== undefined) return
    this.last = this.dataVersion()
    this.timer = setInterval(() => this.poll(), this.intervalMs)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer === undefined) return
    clearInterval(this.timer)
    this.timer = undefined
  }

  private poll(): void {
    let version: number
    try {
      version = this.dataVersion()
    } catch {
      return // a transient read failure (or a closed store); the next tick tries again
    }
    if (version === this.last) return
    this.last = version
    this.committed()
  }
}
