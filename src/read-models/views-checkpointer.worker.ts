/**
 * The views checkpoint thread (views-checkpointer.ts): its own connection to the views file, a PASSIVE
 * checkpoint every `intervalMs`, a last one when told to stop.
 */
import { parentPort, workerData } from 'node:worker_threads'
import Database from 'better-sqlite3'
import type { FromCheckpointer, ViewsCheckpointerData } from './views-checkpointer.ts'

const port = parentPort
if (port === null) throw new Error('views-checkpointer.worker.ts runs only as a worker thread')
const { file, intervalMs } = workerData as ViewsCheckpointerData
const send = (message: FromCheckpointer): void => port.postMessage(message)

const db = new Database(file, { fileMustExist: true })
let failing = false
const checkpoint = (): void => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)')
    failing = false
  } catch (error) {
    // A full or failing disk: said once, tried again at the next tick; the main connection's commits are unaffected.
    if (!failing) send({ type: 'failed', message: (error as Error).message })
    failing = true
  }
}
const timer = setInterval(checkpoint, intervalMs)
port.on('message', (message: unknown) => {
  if (message !== 'stop') return
  clearInterval(timer)
  checkpoint()
  db.close()
  port.close()
})
send({ type: 'ready' })
