/** A server's views database is checkpointed by a thread of its own, never by the connection that commits on the event loop. */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { openLeadline } from '../../src/leadline.ts'
import { startViewsCheckpointer } from '../../src/read-models/views-checkpointer.ts'
import { openViewsDatabase, type ViewsDatabase } from '../../src/read-models/views-database.ts'

const PAGE = 4096

/** Commits `rows` rows of about a page each, one transaction each: several thousand pages of WAL. */
function write(db: ViewsDatabase, rows: number): void {
  db.exec('CREATE TABLE IF NOT EXISTS filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
  const insert = db.prepare('INSERT INTO filler (body) VALUES (?)')
  for (let i = 0; i < rows; i++) insert.run('x'.repeat(PAGE))
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

function scratch(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-checkpointer-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return path.join(dir, 'views.db')
}

t.test('the thread copies the WAL into the file while the main connection commits without checkpointing', async (t) => {
  const file = scratch(t)
  const db = openViewsDatabase(file)
  t.teardown(() => db.close())
  const checkpointer = await startViewsCheckpointer(db, file, { intervalMs: 20 })
  t.equal(db.pragma('wal_autocheckpoint', { simple: true }), 0, 'the main connection no longer checkpoints')
  t.equal(checkpointer.running, true)
  const before = fs.statSync(file).size
  write(db, 3000)
  // Only a checkpoint moves pages from the WAL into the file.
  await until(() => fs.statSync(file).size >= before + 3000 * PAGE, 'the WAL to be checkpointed into the file')
  t.pass('the rows reached the database file')
  await checkpointer.stop()
  t.equal(checkpointer.running, false)
  t.equal(db.pragma('wal_autocheckpoint', { simple: true }), 1000, 'stopped: the main connection checkpoints again')
  t.equal((db.prepare('SELECT count(*) AS n FROM filler').get() as { n: number }).n, 3000, 'nothing lost')
})

t.test('without the thread, a main connection that does not checkpoint leaves the file as it was (what the first test measures)', async (t) => {
  const file = scratch(t)
  const db = openViewsDatabase(file)
  t.teardown(() => db.close())
  db.pragma('wal_autocheckpoint = 0')
  const before = fs.statSync(file).size
  write(db, 3000)
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.equal(fs.statSync(file).size, before, 'every page still in the WAL')
})

t.test('a serving Leadline checkpoints its views on the thread; a command-line one as SQLite does', async (t) => {
  const dir = path.dirname(scratch(t))
  const served = await openLeadline({ store: `sqlite:${path.join(dir, 'served.db')}`, viewsPath: path.join(dir, 'served.views.db'), serving: true })
  t.equal(served.views.pragma('wal_autocheckpoint', { simple: true }), 0)
  await served.close()
  const cli = await openLeadline({ store: `sqlite:${path.join(dir, 'cli.db')}`, viewsPath: path.join(dir, 'cli.views.db') })
  t.equal(cli.views.pragma('wal_autocheckpoint', { simple: true }), 1000)
  await cli.close()
})

t.test('a thread that cannot open the file does not start, and the main connection keeps checkpointing', async (t) => {
  const file = scratch(t)
  const db = openViewsDatabase(file)
  t.teardown(() => db.close())
  await t.rejects(startViewsCheckpointer(db, path.join(path.dirname(file), 'missing', 'views.db')), /did not start/)
  t.equal(db.pragma('wal_autocheckpoint', { simple: true }), 1000)
})
