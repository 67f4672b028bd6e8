/**
 * A WAL is checkpointed by a thread of its own while the server runs, for the views database and for
 * the log: the connections that write never checkpoint, the thread copies the frames back into the
 * database file, and once it stops the connection given checkpoints for itself again.
 */
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import type { Test } from 'tap'
import { openViewsDatabase, type ViewsDatabase } from '../../src/read-models/views-database.ts'
import { startWalCheckpointer } from '../../src/eventstore/sqlite/wal-checkpointer.ts'
import type { NewEvent } from '../../src/domain/event.ts'
import { openSqliteEventStore, type SqliteEventStore } from '../../src/eventstore/sqlite/sqlite-event-store.adapter.ts'

const PAGE = 4096
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A views database with about 3,000 pages committed through its main connection, in 60 transactions. */
function written(t: Test, before: (db: ViewsDatabase) => void): { db: ViewsDatabase; file: string } {
  const file = path.join(t.testdir(), 'views.db')
  const db = openViewsDatabase(file)
  t.teardown(() => db.open && db.close())
  db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
  before(db)
  const insert = db.prepare('INSERT INTO rows (body) VALUES (?)')
  for (let batch = 0; batch < 60; batch++) {
    db.transaction(() => {
      for (let i = 0; i < 50; i++) insert.run('x'.repeat(3000))
    })()
  }
  return { db, file }
}

/** Pages in the database file itself: only a checkpoint puts committed pages there. */
const filePages = (file: string) => Math.floor(fs.statSync(file).size / PAGE)

t.test('the main connection writes, the thread checkpoints', async (t) => {
  let checkpointer: ReturnType<typeof startWalCheckpointer> = null
  const { db, file } = written(t, (db) => {
    checkpointer = startWalCheckpointer(db, { intervalMs: 20 })
    t.equal(db.pragma('wal_autocheckpoint', { simple: true }), 0, 'the main connection never checkpoints')
  })
  for (let i = 0; i < 250 && filePages(file) < 3000; i++) await sleep(20)
  t.ok(filePages(file) >= 3000, `the thread copied the commits into the database file (${filePages(file)} pages)`)
  await (checkpointer as unknown as { stop(): Promise<void> }).stop()
  t.equal(db.pragma('wal_autocheckpoint', { simple: true }), 1000, 'stopped: the main connection checkpoints for itself again')
  t.equal((db.prepare('SELECT COUNT(*) AS n FROM rows').get() as { n: number }).n, 3000, 'every row is there')
})

t.test('the control: with no thread and no checkpoints of its own, the commits stay in the WAL', async (t) => {
  const { file } = written(t, (db) => db.pragma('wal_autocheckpoint = 0'))
  await sleep(200)
  t.ok(filePages(file) < 10, `the database file holds only the schema (${filePages(file)} pages)`)
  t.ok(fs.statSync(`${file}-wal`).size >= 3000 * PAGE, 'and the WAL everything else')
})

/**
 * Commits steadily for `ms` on the main connection, a millisecond apart (as the server's batches
 * are, with requests between them), while the thread's checkpoints run; returns the WAL file's
 * largest size seen, in pages.
 */
async function writeSteadily(db: ViewsDatabase, file: string, ms: number): Promise<number> {
  const insert = db.prepare('INSERT INTO rows (body) VALUES (?)')
  const until = Date.now() + ms
  let largest = 0
  while (Date.now() < until) {
    db.transaction(() => {
      for (let i = 0; i < 10; i++) insert.run('x'.repeat(3000))
    })()
    largest = Math.max(largest, Math.floor(fs.statSync(`${file}-wal`).size / PAGE))
    await sleep(1)
  }
  return largest
}

t.test('under steady commits the WAL is rewound once it passes the mark, so it stays small', async (t) => {
  const file = path.join(t.testdir(), 'views.db')
  const db = openViewsDatabase(file)
  t.teardown(() => db.open && db.close())
  db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
  const checkpointer = startWalCheckpointer(db, { intervalMs: 10, restartAtPages: 500 })
  const largest = await writeSteadily(db, file, 1500)
  await checkpointer?.stop()
  const committed = (db.prepare('SELECT COUNT(*) AS n FROM rows').get() as { n: number }).n
  // Each row is a page of its own: the WAL would otherwise come to hold most of them.
  t.ok(committed > 3000, `the main connection committed steadily (${committed} pages)`)
  t.ok(largest < 1500, `the WAL never grew far past the mark of 500 pages (${largest} at most)`)
  t.ok(filePages(file) >= committed, 'and every committed page reached the database file')
})

t.test('an in-memory views database has no WAL and no thread', async (t) => {
  const db = openViewsDatabase(':memory:')
  t.teardown(() => db.close())
  t.equal(startWalCheckpointer(db), null)
})

/** `count` events of about a page each. */
function pageEvents(count: number): NewEvent[] {
  return Array.from({ length: count }, (_, n) => ({
    id: randomUUID(),
    type: 'Filled',
    data: { n, body: 'x'.repeat(3000) },
    metadata: { correlationId: 'c', causationId: null, actor: { kind: 'operator', id: 't' }, schemaVersion: 1 },
  }))
}

/** Appends `appends` batches of 300 events of about a page each, one transaction each; returns the WAL file's largest size seen, in pages. */
async function appendPages(store: SqliteEventStore, file: string, appends: number): Promise<number> {
  let largest = 0
  for (let i = 0; i < appends; i++) {
    await store.appendToStream(`fill-${i}`, pageEvents(300), 'no_stream')
    largest = Math.max(largest, Math.floor(fs.statSync(`${file}-wal`).size / PAGE))
  }
  return largest
}

t.test("the log's writer thread never checkpoints: its WAL grows past SQLite's 1,000-page mark until the store's checkpoint thread copies it back", async (t) => {
  const file = path.join(t.testdir(), 'log.db')
  // A checkpoint thread that does not come round during the appends: what the WAL holds is the writer's doing alone.
  const store = openSqliteEventStore({ path: file, writer: 'thread', checkpoints: { intervalMs: 60_000 } })
  t.teardown(() => store.close())
  const largest = await appendPages(store, file, 10)
  t.ok(largest >= 2900, `ten commits of 300 pages stayed in the WAL (${largest} pages): SQLite's own checkpoint at 1,000 would have rewound it`)
  t.ok(filePages(file) < 10, `the database file holds only the schema (${filePages(file)} pages)`)
  await store.close()
  t.ok(filePages(file) >= 3000, `closing the store copied every commit into the database file (${filePages(file)} pages)`)
})

t.test("the control: the inline writer (tests, the CLI) checkpoints for itself at SQLite's mark", async (t) => {
  const file = path.join(t.testdir(), 'log.db')
  const store = openSqliteEventStore({ path: file, writer: 'inline' })
  t.teardown(() => store.close())
  const largest = await appendPages(store, file, 10)
  t.ok(largest < 1500, `the WAL was rewound after about 1,000 pages (${largest} at most)`)
  t.ok(filePages(file) >= 2000, `the commits reached the database file as they went (${filePages(file)} pages)`)
})

t.test("the log's checkpoint thread copies the writer thread's commits back while the store is open", async (t) => {
  const file = path.join(t.testdir(), 'log.db')
  const store = openSqliteEventStore({ path: file, writer: 'thread', checkpoints: { intervalMs: 20 } })
  t.teardown(() => store.close())
  await appendPages(store, file, 10)
  for (let i = 0; i < 250 && filePages(file) < 3000; i++) await sleep(20)
  t.ok(filePages(file) >= 3000, `the thread copied the commits into the database file (${filePages(file)} pages)`)
  t.equal((await store.readAll()).length, 3000, 'every event reads back')
})

t.test("under steady appends the log's WAL is rewound once it passes the mark, so it stays small", async (t) => {
  const file = path.join(t.testdir(), 'log.db')
  const store = openSqliteEventStore({ path: file, writer: 'thread', checkpoints: { intervalMs: 10, restartAtPages: 500 } })
  t.teardown(() => store.close())
  let largest = 0
  let appended = 0
  const until = Date.now() + 1500
  for (let i = 0; Date.now() < until; i++) {
    const events = pageEvents(10)
    await store.appendToStream(`steady-${i}`, events, 'no_stream')
    appended += events.length
    largest = Math.max(largest, Math.floor(fs.statSync(`${file}-wal`).size / PAGE))
    await sleep(1)
  }
  await store.close()
  t.ok(appended > 3000, `the writer thread committed steadily (${appended} events of a page each)`)
  t.ok(largest < 1500, `the WAL never grew far past the mark of 500 pages (${largest} at most)`)
  t.ok(filePages(file) >= appended, 'and every committed page reached the database file')
})

t.test("a reader that stays in the log (an export) never holds up an append, past the mark too", async (t) => {
  const file = path.join(t.testdir(), 'log.db')
  const store = openSqliteEventStore({ path: file, writer: 'thread', checkpoints: { intervalMs: 10, restartAtPages: 100 } })
  t.teardown(() => store.close())
  await appendPages(store, file, 1)
  // A read transaction held open on another connection, as a long export holds one.
  const reader = new Database(file, { readonly: true })
  t.teardown(() => reader.open && reader.close())
  reader.prepare('BEGIN').run()
  t.equal((reader.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n, 300, 'the reader sees the first commit')
  // A RESTART checkpoint past the mark would take the write lock and hold it while it waits out the
  // reader (its busy timeout is 5 s): the appends below would wait with it.
  let slowest = 0
  for (let i = 0; i < 20; i++) {
    const started = Date.now()
    await store.appendToStream(`held-${i}`, pageEvents(20), 'no_stream')
    slowest = Math.max(slowest, Date.now() - started)
    await sleep(15)
  }
  t.ok(Math.floor(fs.statSync(`${file}-wal`).size / PAGE) > 100, 'the WAL is past the mark (the reader keeps it from being rewound)')
  t.ok(slowest < 1000, `no append waited for the reader (the slowest took ${slowest} ms)`)
  reader.prepare('COMMIT').run()
  t.equal((reader.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n, 700, 'once it lets go, it reads every append')
})
