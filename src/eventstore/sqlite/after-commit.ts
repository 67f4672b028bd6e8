/**
 * Work the writer thread does with a batch once it is committed, before the appends are answered:
 * a server applies its read models there (src/writer-read-models.ts), off the event loop and with the
 * events the writer already holds parsed, so a client that has its 2xx still reads its write.
 *
 * The store knows only this shape and a module to import on the writer thread; what the work is, is
 * the composition root's business (the event store is below the read models).
 */
import type { RecordedEvent } from '../../domain/event.ts'

/** A module the writer thread imports for a store (its URL), and what its `openAfterCommit` is given. */
export interface AfterCommitModule {
  /** The module's URL (file: URL of a `.ts` or `.js` file), imported on the writer thread. */
  readonly url: string
  /** Plain data handed to its `openAfterCommit` (it crosses a thread boundary). */
  readonly options: unknown
}

export interface AfterCommit {
  /**
   * Called with the events a batch committed, in the order of their positions (never empty), and the
   * log as the writer's connection reads it (committed events only: whatever the work needs from
   * before the batch). Returns the position through which its work is done (the last event's, when it
   * did it), or 0 when it left the batch to the main thread's own applier. Must not throw: the batch
   * is committed, and its appends are answered whatever happens here.
   */
  committed(events: readonly RecordedEvent[], log: CommittedLog): number
  close(): void
}

/** The committed log, read on the writer thread. */
export interface CommittedLog {
  /** The events after position `after` and before `before`, in order. */
  between(after: number, before: number): RecordedEvent[]
}

/** How far a store's after-commit work has got, for the main thread's side of it. */
export interface AfterCommitProgress {
  /** The position through which the work is done, as the writer's answers said (raised before the batch's appends are answered). */
  through(): number
  /** Settles once the batches now at the writer thread are answered (undefined: none is). */
  inFlight(): Promise<unknown> | undefined
}

/** What such a module exports. */
export type OpenAfterCommit = (options: unknown) => AfterCommit | Promise<AfterCommit>
