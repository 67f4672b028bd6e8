/**
 * The in-memory event store: the whole log in one process's memory, nothing on disk. It is the
 * default double for domain, command, process and tool tests (they run in milliseconds, with no
 * files to open), and passes the same contract suite as the embedded SQLite and EventStoreDB
 * adapters. Not for production: a stop loses everything.
 */
import { randomUUID } from 'node:crypto'
import type { EventMetadata, NewEvent, RecordedEvent } from '../../domain/event.ts'
import {
  expectationHolds,
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

/** What every client of one in-memory store shares: the log, and who to wake when it grows. */
class MemoryLog {
  readonly all: RecordedEvent[] = []
  readonly streams = new Map<string, RecordedEvent[]>()
  readonly byId = new Map<string, RecordedEvent>()
  private readonly waiting = new Set<() => void>()

  /** Resolves at the next append (or when `cancel` is called). */
  next(): { appended: Promise<void>; cancel: () => void } {
    let wake!: () => void
    const appended = new Promise<void>((resolve) => {
      wake = resolve
    })
    this.waiting.add(wake)
    return { appended, cancel: () => (this.waiting.delete(wake), wake()) }
  }

  announce(): void {
    const woken = [...this.waiting]
    this.waiting.clear()
    for (const wake of woken) wake()
  }
}

/** An id reused by another append (not a retry of the one that stored it). */
export class DuplicateEventIdError extends Error {
  readonly type = 'duplicate_event_id' as const
  constructor(
    readonly eventId: string,
    readonly stream: string,
  ) {
    super(`event id ${eventId} is already stored`)
    this.name = 'DuplicateEventIdError'
  }
}

/** Stored as JSON, as every other adapter stores it: what a caller later changes does not change the log. */
function asJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T
}

export class MemoryEventStore implements EventStore {
  readonly kind = 'memory'
  private closed = false
  private readonly open = new Set<MemorySubscription>()

  constructor(
    private readonly log: MemoryLog = new MemoryLog(),
    /** Source of `recordedAt`, as for the other adapters; defaults to the system clock. */
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Another client on the same log, as a second connection to a database would be. */
  secondClient(): MemoryEventStore {
    return new MemoryEventStore(this.log, this.clock)
  }

  async appendToStream(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    this.assertOpen()
    const existing = this.log.streams.get(stream) ?? []
    const actual = existing.length - 1
    const first = events[0]?.id !== undefined ? this.log.byId.get(events[0].id) : undefined
    if (first !== undefined) return this.replayed(stream, events, expected, first, actual)
    if (!expectationHolds(expected, actual)) throw new WrongExpectedRevisionError(stream, expected, actual)
    if (events.length === 0) return { nextExpectedRevision: actual, position: existing.at(-1)?.position ?? 0 }
    const ids = events.map((event) => event.id ?? randomUUID())
    const repeated = ids.find((id, i) => this.log.byId.has(id) || ids.indexOf(id) !== i)
    if (repeated !== undefined) throw new DuplicateEventIdError(repeated, stream)

    const recordedAt = this.clock().toISOString()
    let prevHash = existing.at(-1)?.hash ?? null
    const written = events.map((event, i) => {
      const fields = {
        id: ids[i] as string,
        stream,
        revision: actual + 1 + i,
        type: event.type,
        data: asJson(event.data),
        metadata: asJson<EventMetadata>(event.metadata),
        recordedAt,
      }
      const hash = hashEvent(fields, prevHash)
      const recorded: RecordedEvent = { ...fields, position: this.log.all.length + 1 + i, prevHash, hash }
      prevHash = hash
      return recorded
    })
    this.log.streams.set(stream, [...existing, ...written])
    for (const event of written) {
      this.log.all.push(event)
      this.log.byId.set(event.id, event)
    }
    this.log.announce()
    const last = written.at(-1) as RecordedEvent
    return { nextExpectedRevision: last.revision, position: last.position }
  }

  /** The first id is stored: a retry of an append that succeeded is answered as the original was. */
  private replayed(stream: string, events: readonly NewEvent[], expected: ExpectedRevision, first: RecordedEvent, actual: number): AppendResult {
    const stored = (this.log.streams.get(stream) ?? []).slice(first.revision, first.revision + events.length)
    const same = first.stream === stream && events.every((event, i) => event.id !== undefined && stored[i]?.id === event.id)
    if (!same) throw new DuplicateEventIdError(first.id, stream)
    if (!expectationHolds(expected, first.revision - 1)) throw new WrongExpectedRevisionError(stream, expected, actual)
    const last = stored.at(-1) as RecordedEvent
    return { nextExpectedRevision: last.revision, position: last.position }
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen()
    const events = this.log.streams.get(stream) ?? []
    const limit = options.limit ?? Number.POSITIVE_INFINITY
    if (options.direction === 'backwards') {
      const from = Math.min(options.from ?? events.length - 1, events.length - 1)
      return events.slice(Math.max(0, from + 1 - limit), from + 1).reverse()
    }
    const from = options.from ?? 0
    return events.slice(from, from + limit)
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen()
    return this.readFrom(options.fromPosition ?? 1, options.limit ?? Number.POSITIVE_INFINITY)
  }

  /** Positions are 1, 2, 3…: the event at position p is `all[p - 1]`. */
  private readFrom(fromPosition: number, limit: number): RecordedEvent[] {
    const start = Math.max(0, fromPosition - 1)
    return this.log.all.slice(start, start + limit)
  }

  subscribe(options: SubscribeOptions = {}): Subscription {
    const subscription = new MemorySubscription(
      this.log,
      options.fromCheckpoint ?? 0,
      options.maxBatchSize ?? 500,
      options.lingerMs ?? 0,
      (from, limit) => this.readFrom(from, limit),
      () => this.open.delete(subscription),
    )
    if (this.closed) void subscription.close()
    else this.open.add(subscription)
    return subscription
  }

  async headPosition(): Promise<number> {
    this.assertOpen()
    return this.log.all.length
  }

  async streamRevision(stream: string): Promise<number> {
    this.assertOpen()
    return (this.log.streams.get(stream)?.length ?? 0) - 1
  }

  async close(): Promise<void> {
    this.closed = true
    await Promise.all([...this.open].map((subscription) => subscription.close()))
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the event store is closed')
  }
}

class MemorySubscription implements Subscription {
  private closed = false
  private cancelWait: (() => void) | null = null

  constructor(
    private readonly log: MemoryLog,
    private position: number,
    private readonly maxBatchSize: number,
    private readonly lingerMs: number,
    private readonly read: (from: number, limit: number) => RecordedEvent[],
    private readonly onClose: () => void,
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<readonly RecordedEvent[]> {
    try {
      while (!this.closed) {
        const batch = this.read(this.position + 1, this.maxBatchSize)
        if (batch.length > 0) {
          this.position = (batch.at(-1) as RecordedEvent).position
          yield batch
          continue
        }
        const { appended, cancel } = this.log.next()
        this.cancelWait = cancel
        await appended
        this.cancelWait = null
        // Caught up: appends made close together are read as one batch.
        if (this.lingerMs > 0 && !this.closed) await new Promise((resolve) => setTimeout(resolve, this.lingerMs))
      }
    } finally {
      await this.close()
    }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.cancelWait?.()
    this.onClose()
  }
}

/** A fresh, empty in-memory store. */
export function openMemoryEventStore(options: { readonly clock?: () => Date } = {}): MemoryEventStore {
  return new MemoryEventStore(new MemoryLog(), options.clock)
}
