/**
 * The writer thread: owns the write connection of every store of this process that writes through
 * it (see sqlite-writer-thread.ts), so hashing, inserts and the COMMIT's fsync run here while the
 * main thread keeps serving requests. One message in and one out per batch, answered in the order
 * they came: a store may send its next batch before this one is answered (IN_FLIGHT in the adapter).
 */
import { parentPort } from 'node:worker_threads'
import { openEventsDatabase } from './sqlite-schema.ts'
import { SqliteWriter } from './sqlite-writer.ts'
import { FALLBACK_AUTOCHECKPOINT_PAGES } from './wal-checkpointer.ts'
import type { CommitFollower, CommitFollowerModule, FromWriter, ToWriter } from './sqlite-writer-thread.ts'
import type { RecordedEvent } from '../event.ts'
import { outcomesToWire, requestsFromWire } from './sqlite-writer-wire.ts'

const port = parentPort
if (port === null) throw new Error('sqlite-writer.worker.ts runs only as a worker thread')
const send = (message: FromWriter): void => port.postMessage(message)

function describe(error: unknown): { name: string; message: string; code?: string } {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) }
  const code: unknown = (error as Error & { code?: unknown }).code
  return typeof code === 'string' ? { name: error.name, message: error.message, code } : { name: error.name, message: error.message }
}

interface OpenStore {
  readonly writer: SqliteWriter
  close(): void
  /** Fed every batch this store commits, once its module is loaded (see CommitFollower). */
  follower?: CommitFollower
  /** Committed and not yet fed, in runs of contiguous positions (oldest first). */
  unfed: RecordedEvent[][]
}

const stores = new Map<number, OpenStore>()
let feeding = false
/**
 * How long committed batches wait for the ones after them before they reach the follower together.
 * Each transaction of the read models writes every page it changed to their write-ahead log, so a
 * few large ones cost far less than many small ones: under webhook load, applying every batch as it
 * came took about a third of this thread's time, waiting 5 ms a quarter, 20 ms a fifth. Read models
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
  for (const [id, store] of stores) {
    const runs = store.unfed
    store.unfed = []
    for (const run of runs) {
      if (store.follower === undefined) break
      try {
        send({ type: 'followed', store: id, through: store.follower.committed(run) })
      } catch (error) {
        send({ type: 'follow_failed', store: id, error: describe(error) })
      }
    }
  }
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
        const follower = store.follower
        const committed: RecordedEvent[] | undefined = follower === undefined ? undefined : []
        const outcomes = store.writer.write(requestsFromWire(message.requests), committed)
        send({ type: 'done', call: message.call, outcomes: outcomesToWire(outcomes) })
        if (committed !== undefined && committed.length > 0) queueForFollower(store, committed)
        return
      }
      case 'follow': {
        const store = stores.get(message.store)
        if (store === undefined) throw new Error(`store ${message.store} is not open on the writer thread`)
        const { call } = message
        import(message.module).then(
          (loaded: CommitFollowerModule) => {
            store.follower?.close()
            store.follower = loaded.follow(message.options)
            send({ type: 'done', call })
          },
          (error: unknown) => send({ type: 'failed', call, error: describe(error) }),
        )
        return
      }
      case 'close': {
        const store = stores.get(message.store)
        // What it committed last still reaches the read models before they close.
        if (store !== undefined && store.unfed.length > 0) feedFollowers()
        store?.follower?.close()
        store?.close()
        stores.delete(message.store)
        send({ type: 'done', call: message.call })
        return
      }
    }
  } catch (error) {
    send({ type: 'failed', call: message.call, error: describe(error) })
  }
})

send({ type: 'ready' })
