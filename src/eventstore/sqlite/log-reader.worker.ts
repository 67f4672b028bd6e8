/**
 * The replay's reader thread (see log-reader.ts): reads an embedded log in position order on a
 * read-only connection of its own, upcasts, and hands the events over a page at a time as one JSON
 * text, so that SQLite's reads, the building of rows and the parsing of metadata run on the other
 * core while the main thread applies the page before. Pages are read on credit only: a few at most
 * are in flight, whatever the size of the log.
 */
import { parentPort, workerData } from 'node:worker_threads'
import Database from 'better-sqlite3'
import { schemaVersionOf, upcast } from '../../domain/upcasters.ts'
import type { RecordedEvent } from '../../domain/event.ts'
import type { FromReader, ReaderData, ToReader } from './log-reader.ts'

const port = parentPort
if (port === null) throw new Error('log-reader.worker.ts runs only as a worker thread')
const { path, after, until, pageSize, types } = workerData as ReaderData

// The columns of the events table (src/eventstore/sqlite/sqlite-schema.ts) a projection may read,
// positionally: raw rows are cheaper to build than named ones. The rest of an event is
// read only if a projection asks for it (see ReplayedEvent).
type Row = [position: number, type: string, revision: number, stream: string, recordedAt: string, data: string, metadata: string]

const db = new Database(path, { readonly: true, fileMustExist: true })
const read = db
  .prepare<[number, number, number], Row>(
    'SELECT position, type, revision, stream, recorded_at, data, metadata FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?',
  )
  .raw()
const wanted = types === null ? null : new Set(types)
const quote = JSON.stringify

/**
 * One page as the text of a JSON array of `[position, type, revision, stream, recordedAt,
 * schemaVersion, data]` (log-reader.ts's PageEntry), upcast. `data` is stored as JSON text, so it goes in as it is (the
 * main thread's one JSON.parse of the page decodes it exactly as a JSON.parse of its own would),
 * unless an upcaster changes it. Events no projection reads are left out (only counted).
 */
function page(rows: readonly Row[]): string {
  let text = '['
  for (const [position, type, revision, stream, recordedAt, data, metadata] of rows) {
    if (wanted !== null && !wanted.has(type)) continue
    const schemaVersion = (JSON.parse(metadata) as RecordedEvent['metadata']).schemaVersion
    let json = data
    let version = schemaVersion
    if (schemaVersion !== schemaVersionOf(type)) {
      const upcasted = upcast({ type, data: JSON.parse(data), metadata: { schemaVersion } } as RecordedEvent)
      json = JSON.stringify(upcasted.data)
      version = upcasted.metadata.schemaVersion
    }
    if (text.length > 1) text += ','
    text += `[${position},${quote(type)},${revision},${quote(stream)},${quote(recordedAt)},${version},${json}]`
  }
  return `${text}]`
}

let position = after
let credit = 0
let ended = false

function produce(): void {
  try {
    while (credit > 0 && !ended) {
      const rows = read.all(position, until, pageSize)
      const last = rows[rows.length - 1]
      if (last === undefined) {
        ended = true
        db.close()
        port?.postMessage({ type: 'end' } satisfies FromReader)
        return
      }
      position = last[0]
      credit--
      port?.postMessage({ type: 'page', text: page(rows), count: rows.length, last: position } satisfies FromReader)
    }
  } catch (error) {
    ended = true
    port?.postMessage({ type: 'failed', message: (error as Error).message } satisfies FromReader)
  }
}

port.on('message', (message: ToReader) => {
  credit += message.credit
  produce()
})
