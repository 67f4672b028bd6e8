/**
 * Takes an SQLite database's WAL checkpoints off the threads that write it. SQLite copies the WAL
 * back into the database file every 1,000 pages, on the connection whose COMMIT crossed the mark:
 * page writes and two fsyncs, several milliseconds and under a busy disk over a hundred, during
 * which that connection commits nothing. On the log's writer thread that held up every append in
 * flight; on the read models' connection, every batch of them. Here the connections that write
 * leave it (`wal_autocheckpoint = 0` on the one given, FALLBACK_AUTOCHECKPOINT_PAGES on the writer
 * threads' own) and a small thread runs a PASSIVE checkpoint every `intervalMs`: PASSIVE never waits
 * for a writer or a reader, so neither ever waits for it. Should the thread stop, the connection
 * given checkpoints for itself again, and the others at their fallback mark, so the WAL cannot grow
 * without bound.
 *
 * PASSIVE alone does not bound the WAL under steady writes: SQLite rewinds the WAL only when a
 * writer starts after a checkpoint that copied every frame, and with commits every few milliseconds
 * one nearly always lands while a checkpoint runs. The WAL then grew by every page the read models
 * wrote (200 MB in a minute of webhook load), and its index, mapped into every connection, with it.
 * So once the WAL holds `restartAtPages` frames, the thread makes it rewind. For the read models it
 * follows its PASSIVE checkpoint with a RESTART one: that one takes the write lock, but only to copy
 * the few frames committed since the PASSIVE one and wait out the readers, after which the next
 * commit writes from the WAL's start. For the log, whose appends must not wait for a reader, it
 * checkpoints again every millisecond until SQLite rewinds the WAL itself (`restart: false`).
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type Database from 'better-sqlite3'

/** SQLite's own default, restored when the thread is not there to do it. */
const AUTOCHECKPOINT_PAGES = 1000

/**
 * The thread's whole program: plain JavaScript with no module of ours, so it starts without the
 * TypeScript loader, from the sources and from the build alike. One thread serves every file this
 * process has it checkpoint (the log and the read models: each thread is an isolate of its own, about
 * 8 MB), each on its own timer.
 */
const PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const files = new Map()
// True when the WAL is past the mark and is left to rewind on its own: look again soon.
const checkpoint = (file) => {
  const [passive] = file.db.pragma('wal_checkpoint(PASSIVE)')
  if (passive.log < file.restartAtPages) return false
  if (!file.restart) return true
  file.db.pragma('wal_checkpoint(RESTART)')
  return false
}
// A checkpoint the disk refuses (full, an I/O error) is tried again at the next tick, not fatal to
// the thread: the WAL then waits in its file, and is copied back once the disk takes writes again.
const attempt = (file) => {
  try {
    const again = checkpoint(file)
    if (file.failing) parentPort.postMessage({ id: file.id, recovered: true })
    file.failing = false
    return again
  } catch (error) {
    if (!file.failing) parentPort.postMessage({ id: file.id, failed: String(error && error.code || error) })
    file.failing = true
    return false
  }
}
const next = (file) => { file.timer = setTimeout(next, attempt(file) ? file.catchUpMs : file.intervalMs, file) }
parentPort.on('message', (message) => {
  if (message.add) {
    const db = new Database(message.add.path)
    db.pragma('busy_timeout = 5000')
    const file = { ...message.add, db, failing: false }
    file.timer = setTimeout(next, file.intervalMs, file)
    files.set(file.id, file)
    return
  }
  const file = files.get(message.remove)
  files.delete(message.remove)
  if (file) {
    clearTimeout(file.timer)
    try { checkpoint(file) } catch {} finally { file.db.close() }
  }
  parentPort.postMessage({ id: message.remove, removed: true })
})
`

/** Where the thread's troubles are told: none loses a commit, so they are warnings. */
export interface CheckpointerLogger {
  info(fields: Record<string, unknown>, message: string): void
  warn(fields: Record<string, unknown>, message: string): void
}

export interface WalCheckpointer {
  /** Takes the file's last checkpoint and checkpoints it no more; the connection given checkpoints for itself again. */
  stop(): Promise<void>
}

/** 16 MB of 4 KB pages: a RESTART about once a second under full webhook load. */
const RESTART_AT_PAGES = 4096

/**
 * Where a connection whose file a checkpointer thread keeps small (a writer thread's) checkpoints
 * for itself after all: four times the RESTART mark, which the WAL passes only if the thread is gone.
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 4 * RESTART_AT_PAGES

/**
 * How soon the thread checkpoints again while a WAL past the mark is left to rewind on its own. Under
 * commits a millisecond apart, 10 ms never let it rewind, 5 ms let it grow to three times the mark,
 * 1 ms to less than twice.
 */
const CATCH_UP_MS = 1

export interface WalCheckpointerOptions {
  /** How often the thread copies the WAL back (default 200 ms). */
  readonly intervalMs?: number
  /** The WAL's size, in pages, past which it is made to rewind (default 4,096: 16 MB). */
  readonly restartAtPages?: number
  /**
   * How it is made to rewind: with a RESTART checkpoint (the default), which holds the write lock
   * until every reader has left the WAL, or, with false, by PASSIVE checkpoints every CATCH_UP_MS
   * until one has copied every frame before the next commit, which SQLite then writes from the WAL's
   * start. The log takes the second way: a reader there may be an export reading for seconds, and
   * no append may wait for it.
   */
  readonly restart?: boolean
  readonly logger?: CheckpointerLogger
}

interface Registered {
  readonly db: Database.Database
  readonly logger: CheckpointerLogger | undefined
  /** Set by stop(): resolved once the thread has taken the file's last checkpoint. */
  removed?: () => void
}

/** The process's checkpoint thread, while it checkpoints any file. */
let shared: { readonly worker: Worker; readonly files: Map<number, Registered> } | undefined
let nextId = 1

function checkpointThread(): NonNullable<typeof shared> {
  if (shared !== undefined) return shared
  const worker = new Worker(PROGRAM, {
    eval: true,
    workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3') },
    // A few megabytes of heap are all it needs; keep its share of the server's memory small.
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
  })
  worker.unref()
  const thread = { worker, files: new Map<number, Registered>() }
  worker.on('message', (report: { id: number; failed?: string; recovered?: true; removed?: true }) => {
    const file = thread.files.get(report.id)
    if (file === undefined) return
    if (report.removed) {
      thread.files.delete(report.id)
      if (file.db.open) file.db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`)
      file.removed?.()
      // No other file's last checkpoint awaited: the thread no longer holds the process open.
      if ([...thread.files.values()].every((f) => f.removed === undefined)) worker.unref()
    } else if (report.failed !== undefined) file.logger?.warn({ file: file.db.name, code: report.failed }, 'WAL checkpoint refused: tried again every interval')
    else file.logger?.info({ file: file.db.name }, 'WAL checkpoints work again')
  })
  worker.on('error', (error) => {
    for (const file of thread.files.values()) file.logger?.warn({ err: error, file: file.db.name }, 'WAL checkpointer failed: the connections that write the file checkpoint for themselves again')
  })
  worker.once('exit', () => {
    if (shared === thread) shared = undefined
    for (const file of thread.files.values()) {
      if (file.db.open) file.db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`)
      if (file.removed === undefined) file.logger?.warn({ file: file.db.name }, 'WAL checkpointer stopped: the connections that write the file checkpoint for themselves again')
      file.removed?.()
    }
    thread.files.clear()
  })
  shared = thread
  return thread
}

/** Null for an in-memory database, which has no WAL. */
export function startWalCheckpointer(db: Database.Database, options: WalCheckpointerOptions = {}): WalCheckpointer | null {
  if (db.memory) return null
  const thread = checkpointThread()
  const id = nextId++
  const file: Registered = { db, logger: options.logger }
  thread.files.set(id, file)
  thread.worker.postMessage({
    add: {
      id,
      path: db.name,
      intervalMs: options.intervalMs ?? 200,
      restartAtPages: options.restartAtPages ?? RESTART_AT_PAGES,
      restart: options.restart ?? true,
      catchUpMs: CATCH_UP_MS,
    },
  })
  db.pragma('wal_autocheckpoint = 0')
  let stopped: Promise<void> | undefined
  return {
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        if (!thread.files.has(id)) return resolve()
        file.removed = resolve
        // Held open until the file's last checkpoint is done, even if nothing else keeps the process alive.
        thread.worker.ref()
        thread.worker.postMessage({ remove: id })
      })
      return stopped
    },
  }
}
