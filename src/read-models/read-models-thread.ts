/**
 * The read models, applied on a thread of their own beside the event store's writer thread (a
 * server's embedded store): what the writer commits is applied there shortly after its appends were
 * answered (the batches of a few milliseconds together: see FEED_DELAY_MS in sqlite-writer.worker.ts),
 * from the events as the writer recorded them, so the main thread neither reads them back nor spends
 * its time on the views' SQLite writes, and no commit waits for them (sqlite-follower.worker.ts). The
 * thread has its own connection to the views database and shares it the way the CLI and a server
 * do: every batch re-reads the checkpoints in its transaction. A projection whose checkpoint is
 * behind the batch (another process committed in between, or the runner is still catching up) is
 * left to the main thread's ProjectionRunner, which reads the log from its checkpoint; the runner is
 * told how far the thread took them all (appliedElsewhere).
 */
import { FALLBACK_AUTOCHECKPOINT_PAGES } from '../eventstore/sqlite/wal-checkpointer.ts'
import type { CommitFollower } from '../eventstore/sqlite/sqlite-writer-thread.ts'
import type { RecordedEvent } from '../domain/event.ts'
import { PROJECTIONS } from '../../projections/projections.ts'
import { applyToReadModels, handledTypes } from './projection-runner.ts'
import { openViewsDatabase } from './views-database.ts'

/** This module, for the follower thread to load (the built .js or the .ts source, as it runs). */
export const READ_MODELS_THREAD = new URL(import.meta.url)

export interface ReadModelsThreadOptions {
  readonly viewsPath: string
  /** A checkpoint thread copies the views' WAL back (wal-checkpointer.ts): this connection leaves it. */
  readonly checkpointedElsewhere: boolean
}

/** Runs on the follower thread: the follower the writer thread feeds (see CommitFollower). */
export function follow(options: unknown): CommitFollower {
  const { viewsPath, checkpointedElsewhere } = options as ReadModelsThreadOptions
  const db = openViewsDatabase(viewsPath)
  // Then a batch of read models never waits for a checkpoint (unless that thread is gone).
  if (checkpointedElsewhere) db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`)
  const handled = handledTypes(PROJECTIONS)
  return {
    committed(events: readonly RecordedEvent[]): number {
      const first = events[0] as RecordedEvent
      // Positions within a commit are contiguous, and the first follows the log's head before it.
      return applyToReadModels(db, handled, events, (events[events.length - 1] as RecordedEvent).position, first.position - 1)
    },
    close(): void {
      db.close()
    },
  }
}
