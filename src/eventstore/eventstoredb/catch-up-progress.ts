/**
 * Progress of a subscription that starts behind the log: a new node catching up from zero says so
 * in its logs, how far along it is (by $all position, which grows with the bytes written, so the
 * percentage is close to the share of the history replayed) and when it has caught up.
 */

/** pino-compatible: `logger.info({ ...fields }, 'message')`. */
export interface ProgressLogger {
  info(fields: Record<string, unknown>, message: string): void
  warn(fields: Record<string, unknown>, message: string): void
}

/** At most one progress line this often, however fast events arrive. */
export const PROGRESS_INTERVAL_MS = 2000

export class CatchUpProgress {
  private events = 0
  private lastLogAt: number
  private readonly startedAt: number
  private done = false

  constructor(
    private readonly logger: ProgressLogger,
    private readonly from: number,
    private readonly head: number,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now()
    this.lastLogAt = this.startedAt
    logger.info({ from, head }, 'catching up with the log')
  }

  /** True once the subscription has delivered the head it started behind. */
  get caughtUp(): boolean {
    return this.done
  }

  /** A batch went to the consumer; `position` is its last event's. */
  delivered(position: number, count: number): void {
    if (this.done) return
    this.events += count
    const at = this.now()
    if (position >= this.head) return this.finish(at)
    if (at - this.lastLogAt < PROGRESS_INTERVAL_MS) return
    this.lastLogAt = at
    const seconds = Math.max((at - this.startedAt) / 1000, 0.001)
    this.logger.info(
      {
        position,
        head: this.head,
        percent: Math.floor((100 * (position - this.from)) / Math.max(1, this.head - this.from)),
        events: this.events,
        eventsPerSecond: Math.round(this.events / seconds),
      },
      'catching up with the log',
    )
  }

  /** The server said the subscription is live (EventStoreDB 23.10+), whatever the positions say. */
  live(): void {
    if (!this.done) this.finish(this.now())
  }

  private finish(at: number): void {
    this.done = true
    this.logger.info({ events: this.events, head: this.head, ms: at - this.startedAt }, 'caught up with the log')
  }
}
