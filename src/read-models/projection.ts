/**
 * A projection turns events into a read model: `{name, version, handles, apply}`. Its tables and its
 * checkpoint live in the views database and are written in one transaction, so each event is
 * applied exactly once. Bumping `version` drops and rebuilds the read model from position 0.
 */
import type { Database } from 'better-sqlite3'
import type { RecordedEvent } from '../domain/event.ts'

export interface Projection {
  readonly name: string
  readonly version: number
  /** Event types this projection reads; others only advance its checkpoint. */
  readonly handles: readonly string[]
  /** Tables it owns (dropped on a version change or a rebuild). */
  readonly tables: readonly string[]
  /** Creates its tables and indexes; must be idempotent (`IF NOT EXISTS`). */
  setup(db: Database): void
  /**
   * Applies one event. Rows are found by their table's primary key only: a replay builds the
   * secondary indexes after the last event (see src/audit/replay.ts), when they are much cheaper.
   */
  apply(db: Database, event: RecordedEvent): void
}
