/**
 * The writer thread: owns the write connection of every store of this process that writes through
 * it (see sqlite-writer-thread.ts), so hashing, inserts and the COMMIT's fsync run here while the
 * main thread keeps serving requests. One message in and one out per batch, answered in the order
 * they came: a store may send its next batch before this one is answered (IN_FLIGHT in the adapter).
 */
import { parentPort } from 'node:worker_threads'
import { openEventsDatabase } from './sqlite-schema.ts'
import { SqliteWriter } from './sqlite-writer.ts'
import type { FromWriter, ToWriter } from './sqlite-writer-thread.ts'
import { describeError, outcomesToWire, requestsFromWire } from './sqlite-writer-wire.ts'

const port = parentPort
if (port === null) throw new Error('sqlite-writer.worker.ts runs only as a worker thread')
const send = (message: FromWriter): void => port.postMessage(message)

interface OpenStore {
  readonly writer: SqliteWriter
  close(): void
}

const stores = new Map<number, OpenStore>()

port.on('message', (message: ToWriter) => {
  try {
    switch (message.type) {
      case 'open': {
        const db = openEventsDatabase(message.path)
        stores.set(message.store, { writer: new SqliteWriter(db), close: () => db.close() })
        send({ type: 'done', call: message.call })
        return
      }
      case 'write': {
        const store = stores.get(message.store)
        if (store === undefined) throw new Error(`store ${message.store} is not open on the writer thread`)
        send({ type: 'done', call: message.call, outcomes: outcomesToWire(store.writer.write(requestsFromWire(message.requests))) })
        return
      }
      case 'close': {
        stores.get(message.store)?.close()
        stores.delete(message.store)
        send({ type: 'done', call: message.call })
        return
      }
    }
  } catch (error) {
    send({ type: 'failed', call: message.call, error: describeError(error) })
  }
})

send({ type: 'ready' })
