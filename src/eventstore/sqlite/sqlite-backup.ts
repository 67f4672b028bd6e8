/**
 * Backing up and restoring the embedded log's file. Copying the file of a live WAL database is not a
 * backup: recent commits are in the `-wal` file beside it, and a copy taken mid-checkpoint is torn.
 * SQLite's online backup API (better-sqlite3's `db.backup()`) copies the pages as one read
 * transaction sees them: a consistent snapshot, taken while a server keeps appending (in WAL mode a
 * reader never holds a writer up).
 */
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { isSqliteError } from './sqlite-schema.ts'

/**
 * Pages a backup step may copy: all of them. SQLite restarts a backup whose source another connection
 * wrote to between two steps, so a stepwise copy of a log taking a steady stream of leads might never
 * finish; one step is one read transaction, which a writer does not disturb.
 */
const ALL_PAGES = 0x7fffffff

/** The files SQLite keeps beside a database in WAL mode. */
export const SIDE_FILES = ['-wal', '-shm'] as const

/**
 * Copies the database at `source` (also while other processes write to it) into the new file
 * `target`, as one consistent snapshot. The copy is a single self-contained file (rollback journal,
 * no `-wal` beside it), flushed to disk. `target` must not exist.
 */
export async function copyDatabase(source: string, target: string): Promise<void> {
  if (fs.existsSync(target)) throw new Error(`${target} exists already`)
  const db = new Database(source, { readonly: true, fileMustExist: true })
  try {
    await db.backup(target, { progress: () => ALL_PAGES })
  } catch (error) {
    removeDatabase(target)
    throw error
  } finally {
    db.close()
  }
  // The pages carry the source's WAL flag; without it the file opens anywhere, read-only too, without creating side files.
  const copy = new Database(target, { fileMustExist: true })
  try {
    copy.pragma('journal_mode = DELETE')
  } finally {
    copy.close()
  }
  fsyncFile(target)
}

/**
 * True when any connection, in any process, has the database open (a running server holds its log
 * and its views open as long as it runs). Asks for exclusive access without waiting: SQLite refuses
 * it while another connection has a WAL database open, even an idle one. False for no file.
 */
export function databaseInUse(file: string): boolean {
  if (!fs.existsSync(file)) return false
  let db: Database.Database
  try {
    db = new Database(file, { fileMustExist: true, timeout: 0 })
  } catch (error) {
    if (isSqliteError(error) && /^SQLITE_(BUSY|LOCKED)/.test(error.code)) return true
    throw error
  }
  try {
    db.pragma('locking_mode = EXCLUSIVE')
    db.exec('BEGIN EXCLUSIVE')
    db.exec('COMMIT')
    return false
  } catch (error) {
    if (isSqliteError(error) && /^SQLITE_(BUSY|LOCKED)/.test(error.code)) return true
    if (isSqliteError(error) && error.code === 'SQLITE_NOTADB') return false
    throw error
  } finally {
    db.close()
  }
}

/** Moves a database and its side files to `file` + `suffix`; returns the new name of the database. */
export function moveDatabaseAside(file: string, suffix: string): string {
  for (const side of ['', ...SIDE_FILES]) {
    if (fs.existsSync(file + side)) fs.renameSync(file + side, file + suffix + side)
  }
  fsyncDirectory(path.dirname(file))
  return file + suffix
}

/** Deletes a database and its side files, if there. */
export function removeDatabase(file: string): void {
  for (const side of ['', ...SIDE_FILES, '-journal']) fs.rmSync(file + side, { force: true })
}

/**
 * Puts the self-contained database `staged` at `target` (where nothing may be: move it aside first),
 * durably. Side files left at `target` by a crashed process belong to the database that was there
 * and would be replayed into this one, so none may remain.
 */
export function placeDatabase(staged: string, target: string): void {
  for (const side of SIDE_FILES) {
    if (fs.existsSync(target + side)) throw new Error(`${target + side} is still there: move the database it belongs to aside first`)
  }
  // link() refuses an existing name where rename() would replace it silently.
  fs.linkSync(staged, target)
  fs.rmSync(staged)
  fsyncDirectory(path.dirname(target))
}

/** Flushes a finished file to disk. */
export function fsyncFile(file: string): void {
  const fd = fs.openSync(file, 'r+')
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/** Makes a new, renamed or removed name in a directory durable. */
export function fsyncDirectory(dir: string): void {
  const fd = fs.openSync(dir, 'r')
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}
