/**
 * Another OS process writing to the same SQLite event store, for the cross-process and crash tests.
 *
 *   node --import tsx test/helpers/append-in-child.ts <path> <stream> <count>
 *     appends <count> events, one append each, to <stream> (expected revision `any`), then exits.
 *
 *   node --import tsx test/helpers/append-in-child.ts <path> <stream> <writers> --crash-loop
 *     runs <writers> concurrent appenders on <stream>-0 … <stream>-(writers-1), each with exact
 *     expected revisions, forever; prints `ack <stream> <revision> <id>` for every acknowledged
 *     event (stdout to a pipe is synchronous on Linux, so a printed ack reached the parent).
 *
 *   node --import tsx test/helpers/append-in-child.ts <path> <stream> <writers> --loop-any
 *     like --crash-loop, but all writers append to <stream> itself with expected revision `any`.
 *
 *   node --import tsx test/helpers/append-in-child.ts <path> <stream> <count> --then-subscribe
 *     appends like the first form, then leaves a live subscription open without closing anything:
 *     the process must still exit by itself (the store's poll timer is unref'd).
 */
import type { NewEvent } from '../../src/domain/event.ts'
import type { ExpectedRevision } from '../../src/eventstore/event-store.port.ts'
import { openSqliteEventStore } from '../../src/eventstore/sqlite/index.ts'

const [path, stream, countText, mode] = process.argv.slice(2)
if (path === undefined || stream === undefined || countText === undefined) {
  process.stderr.write('usage: append-in-child.ts <path> <stream> <count> [--crash-loop | --loop-any | --then-subscribe]\n')
  process.exit(2)
}
const count = Number(countText)

function childEvent(n: number): NewEvent {
  return {
    type: 'ChildAppended',
    data: { n, pid: process.pid },
    metadata: {
      correlationId: `child-${process.pid}`,
      causationId: null,
      actor: { kind: 'process', id: 'append-in-child' },
      schemaVersion: 1,
    },
  }
}

const store = openSqliteEventStore({ path })

async function appendSequentially(): Promise<void> {
  for (let n = 0; n < count; n++) await store.appendToStream(stream as string, [childEvent(n)], 'any')
}

async function appendForever(shared: boolean): Promise<void> {
  process.stdout.write('ready\n')
  await Promise.all(
    Array.from({ length: count }, async (_, writer) => {
      const target = shared ? (stream as string) : `${stream as string}-${writer}`
      let expected: ExpectedRevision = shared ? 'any' : 'no_stream'
      for (let n = 0; ; n++) {
        const event = { ...childEvent(n), id: crypto.randomUUID() }
        const result = await store.appendToStream(target, [event], expected)
        process.stdout.write(`ack ${target} ${result.nextExpectedRevision} ${event.id}\n`)
        if (!shared) expected = result.nextExpectedRevision
      }
    }),
  )
}

if (mode === '--crash-loop' || mode === '--loop-any') {
  await appendForever(mode === '--loop-any')
} else if (mode === '--then-subscribe') {
  await appendSequentially()
  const subscription = store.subscribe()
  void (async () => {
    for await (const batch of subscription) process.stdout.write(`batch ${batch.length}\n`)
  })()
} else {
  await appendSequentially()
  await store.close()
}
