/**
 * writeUnlessBusy: a write on the event loop that can wait a moment never waits in SQLite's busy
 * handler for another connection's write lock (a server's read models thread applying a batch).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { VIEWS_BUSY_TIMEOUT_MS, openViewsDatabase, writeUnlessBusy } from '../../src/read-models/views-database.ts'

t.test('a held write lock: false at once, nothing written; a free one: written; other errors are thrown', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-views-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'views.db')
  const db = openViewsDatabase(file)
  t.teardown(() => db.close())
  db.exec('CREATE TABLE notes (n INTEGER)')
  const count = () => (db.prepare('SELECT count(*) AS n FROM notes').get() as { n: number }).n
  const other = new Database(file)
  t.teardown(() => other.close())

  // No busy wait: the write is tried with SQLite's busy timeout off (a clock would measure the machine's load too).
  let timeoutWhileWriting: unknown
  t.equal(writeUnlessBusy(db, () => (timeoutWhileWriting = db.pragma('busy_timeout', { simple: true }))), true, 'free: written')
  t.equal(timeoutWhileWriting, 0, 'the write is tried without waiting for locks')
  other.prepare('BEGIN IMMEDIATE').run()
  t.equal(writeUnlessBusy(db, () => db.prepare('INSERT INTO notes VALUES (1)').run()), false, 'the lock is held')
  t.equal(db.pragma('busy_timeout', { simple: true }), VIEWS_BUSY_TIMEOUT_MS, 'the connection waits for locks again afterwards')
  other.prepare('COMMIT').run()
  t.equal(count(), 0, 'nothing was written')

  t.equal(writeUnlessBusy(db, () => db.prepare('INSERT INTO notes VALUES (1)').run()), true)
  t.equal(count(), 1, 'written once the lock was free')
  t.throws(() => writeUnlessBusy(db, () => db.prepare('INSERT INTO missing VALUES (1)').run()), /no such table/, 'any other failure is thrown')
  t.equal(db.pragma('busy_timeout', { simple: true }), VIEWS_BUSY_TIMEOUT_MS)
})
