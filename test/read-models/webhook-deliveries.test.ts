/**
 * The console's "last deliveries": noted per request, written in batches (one transaction every
 * FLUSH_MS), read with what is pending, pruned to the last 20 per account, and never a reason to fail
 * a lead when the views database refuses writes.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { DELIVERIES_SHOWN, FLUSH_MS, WebhookDeliveries } from '../../src/read-models/webhook-deliveries.ts'
import { VIEWS_BUSY_TIMEOUT_MS, openViewsDatabase } from '../../src/read-models/views-database.ts'
import Database from 'better-sqlite3'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

function views(t: Test) {
  return viewsFile(t).db
}

function viewsFile(t: Test) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-deliveries-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'views.db')
  const db = openViewsDatabase(file)
  t.teardown(() => db.close())
  return { db, file }
}

t.test('deliveries are written together within FLUSH_MS, and a read sees the pending ones', async (t) => {
  const db = views(t)
  const warnings: unknown[] = []
  const deliveries = new WebhookDeliveries(db, { warn: (...args: unknown[]) => warnings.push(args) })
  const count = () => (db.prepare('SELECT count(*) AS n FROM webhook_deliveries').get() as { n: number }).n
  const at = new Date('2026-05-01T12:00:00Z')

  deliveries.record('acc_1', at, 201, 'ld_1', null, 'header', 'Zapier')
  deliveries.record('acc_1', at, 400, null, 'phone required', 'query', undefined)
  t.equal(count(), 0, 'noted, not yet written: no commit on the request path')
  await sleep(FLUSH_MS * 3)
  t.equal(count(), 2, 'written by the timer')

  deliveries.record('acc_1', at, 200, 'ld_1', null, 'console', undefined)
  t.same(deliveries.last('acc_1').map((d) => d.status), [200, 400, 201], 'a read writes what is pending first, newest first')
  t.same(deliveries.last('acc_2'), [], 'per account')

  for (let i = 0; i < 30; i++) deliveries.record('acc_1', at, 201, `ld_${i}`, null, 'header', undefined)
  t.equal(deliveries.last('acc_1').length, DELIVERIES_SHOWN)
  t.ok(count() <= DELIVERIES_SHOWN, 'older rows pruned')

  db.pragma('query_only = ON') // as a read-only or full disk would refuse the write
  t.doesNotThrow(() => deliveries.record('acc_1', at, 201, 'ld_x', null, 'header', undefined), 'noting never fails the request')
  deliveries.flush()
  t.equal(warnings.length, 1, 'the refused batch is dropped with one warning')
  db.pragma('query_only = OFF')
  deliveries.record('acc_1', at, 202, 'ld_y', null, 'header', undefined)
  t.equal(deliveries.last('acc_1')[0]?.status, 202, 'the next batch is written')
  t.equal(deliveries.last('acc_1').filter((d) => d.leadId === 'ld_x').length, 0, 'the dropped one is gone')
})

t.test('a burst is written in batches of at most 500 rows without waiting for the timer', async (t) => {
  const db = views(t)
  const deliveries = new WebhookDeliveries(db)
  for (let i = 0; i < 499; i++) deliveries.record(`acc_${i % 3}`, new Date(), 201, `ld_${i}`, null, 'header', undefined)
  const written = () => (db.prepare('SELECT count(*) AS n FROM webhook_deliveries').get() as { n: number }).n
  t.equal(written(), 0, '499 pending')
  deliveries.record('acc_0', new Date(), 201, 'ld_499', null, 'header', undefined)
  t.equal(written(), 3 * DELIVERIES_SHOWN, 'the 500th writes the batch at once: the newest rows of each account, not those the prune would delete')
  t.same(deliveries.last('acc_0').map((d) => d.leadId).slice(0, 3), ['ld_499', 'ld_498', 'ld_495'], 'newest first')
  for (let i = 500; i < 1200; i++) deliveries.record(`acc_${i % 3}`, new Date(), 201, `ld_${i}`, null, 'header', undefined)
  t.ok(written() <= 3 * DELIVERIES_SHOWN + 500, `pruned on the way (${written()} rows)`)
  deliveries.flush()
  t.same(deliveries.last('acc_0').map((d) => d.leadId), Array.from({ length: DELIVERIES_SHOWN }, (_, i) => `ld_${1197 - 3 * i}`), 'the last 20 of the account, newest first')
})

t.test("the timer's flush never waits for another connection's write lock: it tries again, and nothing is lost", async (t) => {
  const { db, file } = viewsFile(t)
  const deliveries = new WebhookDeliveries(db)
  const count = () => (db.prepare('SELECT count(*) AS n FROM webhook_deliveries').get() as { n: number }).n
  // Another connection holds the write lock, as a server's writer thread does while it applies a batch.
  const other = new Database(file)
  t.teardown(() => other.close())
  other.prepare('BEGIN IMMEDIATE').run()
  deliveries.record('acc_1', new Date('2026-05-01T12:00:00Z'), 201, 'ld_1', null, 'header', undefined)
  // The event loop keeps turning while the lock is held: a flush that waited would stop it for its busy
  // timeout (5 s) at once. Counting turns would measure the machine's load; the longest stop does not.
  const started = Date.now()
  let longestStop = 0
  while (Date.now() - started < FLUSH_MS * 4) {
    const before = Date.now()
    await sleep(5)
    longestStop = Math.max(longestStop, Date.now() - before)
  }
  t.ok(longestStop < VIEWS_BUSY_TIMEOUT_MS, `no flush stopped the event loop for the busy timeout (longest turn ${longestStop} ms)`)
  t.equal(count(), 0, 'not written while the lock is held')
  other.prepare('COMMIT').run()
  await sleep(FLUSH_MS)
  t.equal(count(), 1, 'written once the lock is free')
  t.same(db.pragma('busy_timeout', { simple: true }), 5000, 'the connection waits for locks again as before')
})
