/**
 * Takes the views database's WAL checkpoints off the thread that writes the read models. SQLite
 * copies the WAL back into the database file every 1,000 pages, on the connection whose COMMIT
 * crossed the mark: with the read models applied on the server's main thread, that was a pause of
 * several milliseconds (page writes and two fsyncs) every few dozen batches, a twelfth of the main
 * thread under webhook load. Here the main connection never checkpoints (`wal_autocheckpoint = 0`)
 * and a small thread of its own runs a PASSIVE checkpoint every `intervalMs`: PASSIVE never waits
 * for a writer or a reader, so neither ever waits for it. Should the thread stop, the main
 * connection checkpoints for itself again, so the WAL cannot grow without bound.
 *
 * PASSIVE alone does not bound the WAL under steady writes: SQLite rewinds the WAL only when a
 * writer starts after a checkpoint that copied every frame, and with commits every few milliseconds
 * one nearly always lands while a checkpoint runs. The WAL then grew by every page the read models
 * wrote (200 MB in a minute of webhook load), and its index, mapped into both connections, with it.
 * So once the WAL holds `restartAtPages` frames, the thread follows its PASSIVE checkpoint with a
 * RESTART one: that one takes the write lock, but only to copy the few frames committed since the
 * PASSIVE one and wait out the readers, after which the next commit writes from the WAL's start.
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import type { ViewsDatabase } from './views-database.ts'

/** SQLite's own default, restored when the thread is not there to do it. */
const AUTOCHECKPOINT_PAGES = 1000

/**
 * The thread's whole program: plain JavaScript with no module of ours, so it starts without the
 * TypeScript loader, from the sources and from the build alike.
 */
const PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.file)
db.pragma('busy_timeout = 5000')
const checkpoint = () => {
  const [passive] = db.pragma('wal_checkpoint(PASSIVE)')
  if (passive.log >= workerData.restartAtPages) db.pragma('wal_checkpoint(RESTART)')
}
const timer = setInterval(checkpoint, workerData.intervalMs)
parentPort.on('message', () => {
  clearInterval(timer)
  try { checkpoint() } finally { db.close(); parentPort.close() }
})
`

export interface ViewsCheckpointer {
  /** Takes a last checkpoint and ends the thread; the main connection checkpoints for itself again. */
  stop(): Promise<void>
}

/** 16 MB of 4 KB pages: a RESTART about once a second under full webhook load. */
const RESTART_AT_PAGES = 4096

/** Null for an in-memory database, which has no WAL. */
export function startViewsCheckpointer(
  db: ViewsDatabase,
  options: { intervalMs?: number; restartAtPages?: number; logger?: Pick<Logger, 'error'> } = {},
): ViewsCheckpointer | null {
  if (db.memory) return null
  const worker = new Worker(PROGRAM, {
    eval: true,
    workerData: {
      file: db.name,
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      intervalMs: options.intervalMs ?? 200,
      restartAtPages: options.restartAtPages ?? RESTART_AT_PAGES,
    },
    // A few megabytes of heap are all it needs; keep its share of the server's memory small.
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
  })
  worker.unref()
  db.pragma('wal_autocheckpoint = 0')
  let stopping = false
  worker.on('error', (error) => options.logger?.error({ err: error }, 'views checkpointer failed: the main connection checkpoints again'))
  const ended = new Promise<void>((resolve) => {
    worker.once('exit', () => {
      if (db.open) db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`)
      if (!stopping) options.logger?.error({}, 'views checkpointer stopped: the main connection checkpoints again')
      resolve()
    })
  })
  return {
    async stop() {
      stopping = true
      // Held open until its last checkpoint is done, even if nothing else keeps the process alive.
      worker.ref()
      worker.postMessage('stop')
      await ended
    },
  }
}
