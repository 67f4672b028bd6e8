/**
 * A serving process's views database is checkpointed on a thread of its own. SQLite's default has the
 * connection that commits copy the WAL back into the file, and sync both, once the WAL passes a
 * thousand pages: that is the projection runner on the event loop, every few dozen leads, with an
 * fsync inside (docs/performance.md). Here the main connection stops checkpointing and this thread
 * checkpoints every `intervalMs` without waiting on anyone (PASSIVE); commits never wait on it.
 * Should the thread stop, the main connection checkpoints again as before.
 */
import type { Logger } from 'pino'
import { startWorker } from '../config/worker-thread.ts'
import type { ViewsDatabase } from './views-database.ts'

/** How often the thread checkpoints: a quiet database costs a few microseconds a time. */
const VIEWS_CHECKPOINT_INTERVAL_MS = 100
/** How long a stop waits for the thread's last checkpoint before it ends the thread: the WAL is on disk either way. */
const STOP_WAIT_MS = 2000

export interface ViewsCheckpointerData {
  readonly file: string
  readonly intervalMs: number
}

export type FromCheckpointer = { readonly type: 'ready' } | { readonly type: 'failed'; readonly message: string }

export interface ViewsCheckpointer {
  /** Whether the thread is checkpointing (false once it stopped, on its own or by stop()). */
  readonly running: boolean
  /** Stops the thread (after a last checkpoint); the main connection checkpoints again. */
  stop(): Promise<void>
}

/** Starts the thread for `db` (opened on `file`); resolves once it checkpoints, with the main connection's checkpoints off. */
export function startViewsCheckpointer(
  db: ViewsDatabase,
  file: string,
  options: { readonly intervalMs?: number; readonly logger?: Pick<Logger, 'error'> } = {},
): Promise<ViewsCheckpointer> {
  const data: ViewsCheckpointerData = { file, intervalMs: options.intervalMs ?? VIEWS_CHECKPOINT_INTERVAL_MS }
  const worker = startWorker(import.meta.url, 'views-checkpointer.worker', { workerData: data, resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 } })
  let running = false
  let stopping = false
  // What the main connection did before the thread (SQLite's default: every 1,000 pages), and does again without it.
  const ownPages = db.pragma('wal_autocheckpoint', { simple: true }) as number
  const backToMain = (): void => {
    running = false
    if (db.open) db.pragma(`wal_autocheckpoint = ${ownPages}`)
  }
  return new Promise<ViewsCheckpointer>((resolve, reject) => {
    const exited = new Promise<void>((settled) => worker.once('exit', () => settled()))
    worker.on('message', (message: FromCheckpointer) => {
      if (message.type === 'ready') {
        db.pragma('wal_autocheckpoint = 0')
        running = true
        worker.unref()
        resolve({
          get running() {
            return running
          },
          async stop() {
            stopping = true
            backToMain()
            // Held open until the thread has made its last checkpoint and exited, or STOP_WAIT_MS (a disk that hangs).
            worker.ref()
            worker.postMessage('stop')
            const timer = setTimeout(() => void worker.terminate(), STOP_WAIT_MS)
            await exited
            clearTimeout(timer)
          },
        })
      } else {
        options.logger?.error({ reason: message.message }, 'views checkpoint failed: trying again')
      }
    })
    worker.on('error', (error) => options.logger?.error({ err: error }, 'views checkpoint thread failed: the main connection checkpoints again'))
    worker.once('exit', (code) => {
      const wasRunning = running
      backToMain()
      if (!wasRunning && !stopping) reject(new Error(`views checkpoint thread did not start (exit code ${code})`))
    })
  })
}
