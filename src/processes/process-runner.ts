/**
 * Feeds process managers (reactors with side effects) from the log, with a checkpoint of their own in
 * the views database. Delivery is at least once: every reactor is idempotent because each decision it
 * takes is an append with an expected revision. A runner that has never run starts at the head of
 * the log: history is never acted on again (no one is rung for a lead received long ago).
 */
import type { Logger } from 'pino'
import type { RecordedEvent } from '../eventstore/event.ts'
import type { EventStore, Subscription } from '../eventstore/event-store.port.ts'
import { upcast } from '../domain/upcasters.ts'
import type { ViewsDatabase } from '../read-models/views-database.ts'
import { statement } from '../read-models/statement-cache.ts'

export interface Reactor {
  readonly name: string
  readonly handles: readonly string[]
  /** Must not throw for a single bad event (the runner logs and moves on); must be idempotent. */
  react(event: RecordedEvent): Promise<void>
}

export class ProcessRunner {
  private subscription: Subscription | null = null
  private loop: Promise<void> | null = null

  constructor(
    private readonly store: EventStore,
    private readonly db: ViewsDatabase,
    private readonly name: string,
    private readonly reactors: readonly Reactor[],
    private readonly logger?: Pick<Logger, 'error' | 'info'>,
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
    const head = await this.store.headPosition()
    this.save(head)
    this.logger?.info({ processes: this.name, from: head }, 'process managers start at the head of the log')
    return head
  }

  async start(): Promise<void> {
    if (this.loop) return
    const from = await this.prepare()
    const subscription = this.store.subscribe({ fromCheckpoint: from, maxBatchSize: 500 })
    this.subscription = subscription
    this.loop = (async () => {
      try {
        for await (const batch of subscription) {
          await this.deliver(batch.map(upcast))
          this.save((batch[batch.length - 1] as RecordedEvent).position)
        }
      } catch (error) {
        this.logger?.error({ err: error, processes: this.name }, 'process runner stopped')
      }
    })()
  }

  private async deliver(batch: readonly RecordedEvent[]): Promise<void> {
    // Reactions to one batch run together (their appends share a group commit); a reactor enqueues
    // synchronously on entry, so per-account order is kept.
    await Promise.all(
      this.reactors.flatMap((reactor) =>
        batch
          .filter((event) => reactor.handles.includes(event.type))
          .map((event) =>
            reactor.react(event).catch((error: unknown) => {
              this.logger?.error({ err: error, reactor: reactor.name, eventId: event.id, stream: event.stream }, 'reaction failed')
            }),
          ),
      ),
    )
  }

  async stop(): Promise<void> {
    await this.subscription?.close()
    await this.loop
    this.subscription = null
    this.loop = null
  }
}
