/**
 * The event store port. Every adapter (embedded SQLite, EventStoreDB) implements this and passes
 * test/contract/event-store.contract.ts.
 */
import type { NewEvent, RecordedEvent } from '../domain/event.ts'

/**
 * What the writer believes about the stream before appending:
 * - `no_stream`: the stream must not exist (dedup by phone races on this),
 * - `stream_exists`: it must have at least one event,
 * - `any`: no check,
 * - a number: the revision of the stream's last event must be exactly this.
 */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | number

/** Whether `expected` holds for a stream whose last revision is `actual` (-1: no stream); every adapter asks this. */
export function expectationHolds(expected: ExpectedRevision, actual: number): boolean {
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

export interface AppendResult {
  /** Revision of the last event written; pass it as `expected` for the next append. */
  readonly nextExpectedRevision: number
  /** Global position of the last event written. */
  readonly position: number
}

export interface ReadStreamOptions {
  /** Revision to start at (inclusive). Default: 0 forwards, the last event backwards. */
  readonly from?: number
  readonly direction?: 'forwards' | 'backwards'
  readonly limit?: number
}

export interface ReadAllOptions {
  /** Global position to start at (inclusive). Default: the beginning of the log. */
  readonly fromPosition?: number
  readonly limit?: number
}

export interface SubscribeOptions {
  /** Deliver everything strictly after this position; null or omitted means from the beginning. */
  readonly fromCheckpoint?: number | null
  /** Upper bound on the events in one delivered batch. */
  readonly maxBatchSize?: number
  /**
   * Once caught up, how long to wait after new events are announced before reading them (default
   * 0), so that appends committed close together arrive as one batch: a consumer that pays per
   * batch (a transaction, a checkpoint write) trades this much freshness for fewer batches.
   */
  readonly lingerMs?: number
}

/**
 * Ordered, resumable delivery: first everything already on the log after the checkpoint, then live
 * appends (also those made by other processes on the same store). Each iteration yields a non-empty
 * batch in position order. `close()` ends the iteration.
 */
export interface Subscription extends AsyncIterable<readonly RecordedEvent[]> {
  close(): Promise<void>
}

export interface EventStore {
  /** Human-readable name of the adapter, e.g. `sqlite` or `esdb`. */
  readonly kind: string
  /**
   * Appends atomically. Resolves only once the events are durable (on disk / acknowledged by the
   * cluster). Rejects with WrongExpectedRevisionError when `expected` does not hold.
   * Appending events whose ids are already stored at the same place in the stream succeeds without
   * writing them twice (a retried append is idempotent).
   */
  appendToStream(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult>
  /** A stream that does not exist reads as empty. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>
  subscribe(options?: SubscribeOptions): Subscription
  /** Position of the last event on the log, or 0 when the log is empty. */
  headPosition(): Promise<number>
  /**
   * The revision of the stream's last event, or -1 when it has none: whether a state folded from it
   * is still current. SQLite answers from its index without reading an event; EventStoreDB reads
   * the last one.
   */
  streamRevision(stream: string): Promise<number>
  close(): Promise<void>
}

/** The one error for every expected-revision mismatch. Callers branch on `type`, never on message text. */
export class WrongExpectedRevisionError extends Error {
  readonly type = 'wrong_expected_revision' as const
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    /** The stream's actual last revision, or -1 when the stream does not exist. */
    readonly actual: number,
  ) {
    super(`wrong expected revision on ${stream}: expected ${String(expected)}, actual ${actual === -1 ? 'no stream' : actual}`)
    this.name = 'WrongExpectedRevisionError'
  }
}

export function isWrongExpectedRevision(error: unknown): error is WrongExpectedRevisionError {
  return error instanceof WrongExpectedRevisionError
}

/** The store could not take the write (disk full, read-only, unreachable). Maps to HTTP 503. */
export class StoreUnavailableError extends Error {
  readonly type = 'store_unavailable' as const
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StoreUnavailableError'
  }
}
