/**
 * The writer thread: owns the write connection of every store of this process that writes through
 * it (see sqlite-writer-thread.ts), so hashing, inserts and the COMMIT's fsync run here while the
 * main thread keeps serving requests. One message in and one out per batch, answered in the order
 * they came: a store may send its next batch before this one is answered (IN_FLIGHT in the adapter).
 * A store opened with an after-commit module (after-commit.ts) has it run on each batch once the
 * batch is committed and before it is answered; the answer says how far that work got.
 */
import { parentPort } from 'node:worker_threads'
import type { RecordedEvent } from '../../domain/event.ts'
import type { AfterCommit, AfterCommitModule, CommittedLog, OpenAfterCommit } from './after-commit.ts'
import { EVENT_COLUMNS, openEventsDatabase, toRecordedEvent, type EventRow } from './sqlite-schema.ts'
import { SqliteWriter } from './sqlite-writer.ts'
import type { FromWriter, ToWriter } from './sqlite-writer-thread.ts'
import { describeError, outcomesToWire, requestsFromWire } from './sqlite-writer-wire.ts'

const port = parentPort
if (port === null) throw new Error('sqlite-writer.worker.ts runs only as a worker thread')
const send = (message: FromWriter): void => port.postMessage(message)

interface OpenStore {
  readonly writer: SqliteWriter
  readonly afterCommit: { readonly work: AfterCommit; readonly log: CommittedLog } | undefined
  close(): void
}

const stores = new Map<number, OpenStore>()

/** Opens a store's connection, and its after-commit work (imported here) when it has one. */
async function open(path: string, module: AfterCommitModule | undefined): Promise<OpenStore> {
  const afterCommit = module === undefined ? undefined : await ((await import(module.url)) as { openAfterCommit: OpenAfterCommit }).openAfterCommit(module.options)
  try {
    const db = openEventsDatabase(path)
    const between = db.prepare<[number, number], EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? AND position < ? ORDER BY position`).raw()
    const log: CommittedLog = { between: (after, before) => between.all(after, before).map(toRecordedEvent) }
    return { writer: new SqliteWriter(db), afterCommit: afterCommit && { work: afterCommit, log }, close: () => { afterCommit?.close(); db.close() } }
  } catch (error) {
    afterCommit?.close()
    throw error
  }
}

/** The after-commit work on a committed batch: whatever it does, the batch is answered as committed. */
function afterCommitted(afterCommit: NonNullable<OpenStore['afterCommit']>, committed: readonly RecordedEvent[]): number {
  try {
    return afterCommit.work.committed(committed, afterCommit.log)
  } catch {
    return 0
  }
}

port.on('message', (message: ToWriter) => {
  try {
    switch (message.type) {
      case 'open': {
        // The store sends nothing else until this is answered, so the import may take its time.
        open(message.path, message.afterCommit).then(
          (store) => {
            stores.set(message.store, store)
            send({ type: 'done', call: message.call })
          },
          (error: unknown) => send({ type: 'failed', call: message.call, error: describeError(error) }),
        )
        return
      }
      case 'write': {
        const store = stores.get(message.store)
        if (store === undefined) throw new Error(`store ${message.store} is not open on the writer thread`)
        const committed: RecordedEvent[] | undefined = store.afterCommit === undefined ? undefined : []
        const outcomes = outcomesToWire(store.writer.write(requestsFromWire(message.requests), committed))
        const appliedThrough = store.afterCommit === undefined || committed === undefined || committed.length === 0 ? undefined : afterCommitted(store.afterCommit, committed)
        send(appliedThrough === undefined ? { type: 'done', call: message.call, outcomes } : { type: 'done', call: message.call, outcomes, appliedThrough })
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
