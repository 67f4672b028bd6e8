/**
 * The event store's SQLite file: how a connection is opened (WAL, synchronous=FULL, busy timeout)
 * and the schema it holds. Shared by the reading connection and the writer, whichever thread the
 * writer runs on.
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import type { RecordedEvent } from '../../domain/event.ts'

/** Bumped by every schema migration; stored in `PRAGMA user_version`. */
export const SCHEMA_VERSION = 1

export const BUSY_TIMEOUT_MS = 5000

/** The columns of an event as read, in EventRow's order. */
export const EVENT_COLUMNS = 'position, id, stream, revision, type, data, metadata, recorded_at, prev_hash, hash'

/** A row as read: positional (better-sqlite3's raw mode, cheaper to build than named rows), in EVENT_COLUMNS order. */
export type EventRow = [position: number, id: string, stream: string, revision: number, type: string, data: string, metadata: string, recordedAt: string, prevHash: string | null, hash: string]

export function toRecordedEvent([position, id, stream, revision, type, data, metadata, recordedAt, prevHash, hash]: EventRow): RecordedEvent {
  return {
    id,
    type,
    data: JSON.parse(data) as unknown,
    metadata: JSON.parse(metadata) as RecordedEvent['metadata'],
    stream,
    revision,
    position,
    recordedAt,
    prevHash,
    hash,
  }
}

/** Opens a connection with the store's pragmas and brings the schema up to date. */
export function openEventsDatabase(path: string): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const db = new Database(path, { timeout: BUSY_TIMEOUT_MS })
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
    db.pragma('journal_mode = WAL')
    // A commit returns only once the WAL is fsynced: an acknowledged event survives power loss.
    db.pragma('synchronous = FULL')
    migrate(db)
    return db
  } catch (error) {
    db.close()
    throw error
  }
}

function migrate(db: Database.Database): void {
  const version = db.pragma('user_version', { simple: true }) as number
  if (version === SCHEMA_VERSION) return
  if (version > SCHEMA_VERSION) {
    throw new Error(`event store schema version ${version} is newer than this build understands (${SCHEMA_VERSION})`)
  }
  // IMMEDIATE so two processes opening a fresh file at once do not both migrate.
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number
    if (current >= 1) return
    db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        position    INTEGER PRIMARY KEY,
        id          TEXT NOT NULL UNIQUE,
        stream      TEXT NOT NULL,
        revision    INTEGER NOT NULL,
        type        TEXT NOT NULL,
        data        TEXT NOT NULL,
        metadata    TEXT NOT NULL,
        recorded_at TEXT NOT NULL,
        prev_hash   TEXT,
        hash        TEXT NOT NULL,
        UNIQUE (stream, revision)
      );
      PRAGMA user_version = 1;
    `)
  }).immediate()
}

export function isSqliteError(error: unknown): error is Error & { code: string } {
  if (!(error instanceof Error)) return false
  const code: unknown = (error as Error & { code?: unknown }).code
  return typeof code === 'string' && code.startsWith('SQLITE_')
}
