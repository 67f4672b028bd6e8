/**
 * The views database: every read model and its checkpoint, in local SQLite beside the log (embedded
 * store) or on each node (EventStoreDB). It is disposable: delete the file and it rebuilds from the log.
 */
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'

export type ViewsDatabase = Database.Database

/** How long a views connection waits for another's write lock (the server's runner, the CLI's). */
export const VIEWS_BUSY_TIMEOUT_MS = 5000

export function openViewsDatabase(file: string): ViewsDatabase {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true })
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  // Read models can always be rebuilt from the log, so they do not pay for an fsync per commit;
  // WAL still makes each transaction (read model + checkpoint) atomic.
  db.pragma('synchronous = NORMAL')
  db.pragma(`busy_timeout = ${VIEWS_BUSY_TIMEOUT_MS}`)
  db.exec(`CREATE TABLE IF NOT EXISTS projection_checkpoints (
    name TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    position INTEGER NOT NULL
  )`)
  return db
}

/**
 * SQLite's answers for a views file that cannot take writes right now: disk full, read-only, an I/O
 * error, a lock held too long. The views file is on the same disk as the log: to a caller this is the
 * store being unavailable (503, try again later).
 */
export function isViewsFault(error: unknown): boolean {
  return /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY|LOCKED)/.test(sqliteCode(error) ?? '')
}

function sqliteCode(error: unknown): string | undefined {
  const code: unknown = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined
}

/** How soon a write that writeUnlessBusy found the lock held for tries again. */
export const BUSY_RETRY_MS = 5

/**
 * Runs `write` in an IMMEDIATE transaction unless another connection holds the write lock (another
 * process's runner applying a batch), in which case it returns false at
 * once, having written nothing: SQLite's busy wait would block the event loop for milliseconds.
 * For writes that can as well happen a moment later.
 */
export function writeUnlessBusy(db: ViewsDatabase, write: () => void): boolean {
  db.pragma('busy_timeout = 0')
  try {
    db.transaction(write).immediate()
    return true
  } catch (error) {
    if (sqliteCode(error) === 'SQLITE_BUSY') return false
    throw error
  } finally {
    db.pragma(`busy_timeout = ${VIEWS_BUSY_TIMEOUT_MS}`)
  }
}
