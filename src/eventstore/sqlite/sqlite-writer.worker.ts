/**
 * The writer thread: owns the write connection of every store of this process that writes through
 * it (see sqlite-writer-thread.ts), so hashing, inserts and the COMMIT's fsync run here while the
 * main thread keeps serving requests. One message in and one out per batch, answered in the order
 * they came: a store may send its next batch before this one is answered (IN_FLIGHT in the adapter).
 * A store's follower (its read models) runs on a thread this one starts (sqlite-follower.worker.ts),
 * so that no commit waits while it works.
 */
import { Worker, parentPort } from 'node:worker_threads'
import { RUNNING_BUILD } from '../../config/project-root.ts'
import { openEventsDatabase } from './sqlite-schema.ts'
import { SqliteWriter } from './sqlite-writer.ts'
import { FALLBACK_AUTOCHECKPOINT_PAGES } from './wal-checkpointer.ts'
import type { FromFollower, FromWriter, ToWriter } from './sqlite-writer-thread.ts'
import type { RecordedEvent } from '../../domain/event.ts'
import { describeError, outcomesToWire, requestsFromWire } from './sqlite-writer-wire.ts'

const port = parentPort
if (port === null) throw new Error('sqlite-writer.worker.ts runs only as a worker thread')
const send = (message: FromWriter): void => port.postMessage(message)

// The build's compiled follower runs as it is; from the sources, a plain module registers tsx first.
const FOLLOWER_ENTRY = new URL(RUNNING_BUILD ? './sqlite-follower.worker.js' : './sqlite-follower.worker.mjs', import.meta.url)

interface OpenStore {
  readonly writer: SqliteWriter
  close(): void
  /** The thread of the store's follower, fed every batch the store commits once it is running. */
  follower?: Worker
  /** Committed and not yet fed, in runs of contiguous positions (oldest first). */
  unfed: RecordedEvent[][]
}

const stores = new Map<number, OpenStore>()
let feeding = false
/**
 * How long committed batches wait for the ones after them before they reach the follower together.
 * Each transaction of the read models writes every page it changed to their write-ahead log, so a
 * few large ones cost far less than many small ones: under webhook load, applying every batch as it
 * came took about a third of the follower's time, waiting 5 ms a quarter, 20 ms a fifth. Read models
 * are this much later; of the answers, only the console's test lead waits for them.
 */
const FEED_DELAY_MS = 10

/**
 * Queues a committed batch for the store's follower, which is fed FEED_DELAY_MS later, after the
 * batch's appends were answered: batches committed meanwhile reach it together, in one transaction
 * of the read models. A batch joins the run before it only when its positions follow on: another
 * process may have committed in between, and the follower must see that gap.
 */
function queueForFollower(store: OpenStore, committed: RecordedEvent[]): void {
  const run = store.unfed[store.unfed.length - 1]
  const last = run?.[run.length - 1]
  if (run !== undefined && last !== undefined && (committed[0] as RecordedEvent).position === last.position + 1) run.push(...committed)
  else store.unfed.push(committed)
  if (feeding) return
  feeding = true
  setTimeout(feedFollowers, FEED_DELAY_MS)
}

function feedFollowers(): void {
  feeding = false
  for (const store of stores.values()) feed(store)
}

/** Hands the store's follower the runs it has not had. */
function feed(store: OpenStore): void {
  const runs = store.unfed
  store.unfed = []
  for (const run of runs) store.follower?.postMessage(run)
}

/**
 * Starts the follower thread of `store` (its module loaded and its follower made there); resolves
 * once it runs. From then on its reports go to the store's main thread, and should it fail, the
 * store is fed no more: its main thread applies what it committed (see ProjectionRunner).
 */
function startFollower(id: number, store: OpenStore, module: string, options: unknown): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const worker = new Worker(FOLLOWER_ENTRY, { workerData: { module, options } })
    let running = false
    worker.on('message', (message: FromFollower) => {
      if (message.type === 'ready') {
        running = true
        store.follower = worker
        resolve()
      } else if (message.type === 'followed') send({ type: 'followed', store: id, through: message.through })
      else send({ type: 'follow_failed', store: id, error: message.error })
    })
    const stopped = (error: Error): void => {
      if (!running) return reject(error)
      if (store.follower !== worker) return
      store.follower = undefined
      send({ type: 'follow_failed', store: id, error: describeError(error) })
    }
    worker.on('error', stopped)
    worker.on('exit', (code) => stopped(new Error(`the follower thread stopped (exit code ${code})`)))
  })
}

/** Ends the follower thread of `store` once it has applied what it was fed. */
function stopFollower(store: OpenStore): Promise<void> {
  const worker = store.follower
  if (worker === undefined) return Promise.resolve()
  store.follower = undefined
  return new Promise<void>((resolve) => {
    worker.once('exit', () => resolve())
    worker.postMessage('close')
  })
}

port.on('message', (message: ToWriter) => {
  try {
    switch (message.type) {
      case 'open': {
        const db = openEventsDatabase(message.path)
        // The store's checkpoint thread copies the WAL back (wal-checkpointer.ts): no commit here waits for that.
        db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`)
        stores.set(message.store, { writer: new SqliteWriter(db), close: () => db.close(), unfed: [] })
        send({ type: 'done', call: message.call })
        return
      }
      case 'write': {
        const store = stores.get(message.store)
        if (store === undefined) throw new Error(`store ${message.store} is not open on the writer thread`)
        const committed: RecordedEvent[] | undefined = store.follower === undefined ? undefined : []
        const outcomes = store.writer.write(requestsFromWire(message.requests), committed)
        send({ type: 'done', call: message.call, outcomes: outcomesToWire(outcomes) })
        if (committed !== undefined && committed.length > 0) queueForFollower(store, committed)
        return
      }
      case 'follow': {
        const store = stores.get(message.store)
        if (store === undefined) throw new Error(`store ${message.store} is not open on the writer thread`)
        const { call } = message
        stopFollower(store)
          .then(() => startFollower(message.store, store, message.module, message.options))
          .then(
            () => send({ type: 'done', call }),
            (error: unknown) => send({ type: 'failed', call, error: describeError(error) }),
          )
        return
      }
      case 'close': {
        const store = stores.get(message.store)
        if (store === undefined) {
          send({ type: 'done', call: message.call })
          return
        }
        stores.delete(message.store)
        store.close()
        // What it committed last still reaches the read models before they close.
        feed(store)
        const { call } = message
        void stopFollower(store).then(() => send({ type: 'done', call }))
        return
      }
    }
  } catch (error) {
    send({ type: 'failed', call: message.call, error: describeError(error) })
  }
})

send({ type: 'ready' })
