/**
 * Another OS process appending to an EventStoreDB store (the double or a real server) through the
 * adapter, for the contract's cross-process test.
 *
 *   node --import tsx test/doubles/esdb/append-in-child.ts <connection string> <stream> <count> [stream prefix]
 *     appends <count> events, one append each, to <stream> (expected revision `any`), then exits.
 */
import { openEsdbEventStore } from '../../../src/eventstore/eventstoredb/esdb-event-store.adapter.ts'

const [url, stream, countText, prefix] = process.argv.slice(2)
if (url === undefined || stream === undefined || countText === undefined) {
  process.stderr.write('usage: append-in-child.ts <connection string> <stream> <count> [stream prefix]\n')
  process.exit(2)
}

const store = openEsdbEventStore({ connectionString: url, ...(prefix ? { streamPrefix: prefix } : {}) })
for (let n = 0; n < Number(countText); n++) {
  await store.appendToStream(
    stream,
    [
      {
        type: 'ChildAppended',
        data: { n, pid: process.pid },
        metadata: { correlationId: `child-${process.pid}`, causationId: null, actor: { kind: 'process', id: 'append-in-child' }, schemaVersion: 1 },
      },
    ],
    'any',
  )
}
await store.close()
