import type { AllStreamResolvedEvent, AllStreamSubscription } from '@eventstore/db-client'
import type { RecordedEvent } from '../../domain/event.ts'
import type { Subscription } from '../event-store.port.ts'
import { CatchUpProgress, type ProgressLogger } from './catch-up-progress.ts'
import { isTransient, sleep } from './esdb-client.ts'

const RESUBSCRIBE_MAX_DELAY_MS = 5000

/** What a subscription needs of the store it follows. */
export interface SubscriptionSource {
  readonly logger: ProgressLogger
  readonly isClosed: boolean
  /** A live subscription to Leadline's events of $all, strictly after `after` (null: from the start). */
  openSubscription(after: number | null): AllStreamSubscription
  recorded(resolved: AllStreamResolvedEvent): RecordedEvent | null
  headPosition(): Promise<number>
  forget(subscription: EsdbSubscription): void
  unavailable(what: string, error: unknown): Error
}

/**
 * One consumer's view of a server-side filtered catch-up subscription to $all. Events are buffered
 * up to a high-water mark, then the server is paused (gRPC flow control), so a node catching up
 * from zero never holds the whole log in memory. A dropped connection (restart, leader change)
 * resubscribes after the last event received, so nothing is missed or repeated.
 */
export class EsdbSubscription implements Subscription {
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
    private readonly store: SubscriptionSource,
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
