/**
 * A server applies its read models on the embedded store's writer thread (src/writer-thread-read-models.ts):
 * once a batch is committed and before its appends are answered, so a 2xx's write is in the read models
 * already, and the event loop does not insert them. When the read models are behind the batch, or
 * another connection holds their lock, or they fail, the writer leaves the batch to the main thread's
 * projection runner and the append is answered all the same.
 */
import path from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { buildApp, operatorContext } from '../helpers/build-app.ts'
import { dumpReadModels } from '../helpers/read-models.ts'
import { openLeadline } from '../../src/leadline.ts'
import { afterCommitProgress, type AfterCommitProgress, type CommittedLog } from '../../src/eventstore/sqlite/index.ts'
import { openCommittedApplier } from '../../src/read-models/projection-runner.ts'
import { PROJECTIONS } from '../../projections/projections.ts'
import type { RecordedEvent } from '../../src/domain/event.ts'

function lead(i: number): Record<string, string> {
  return { name: `Writer ${i}`, phone: `+1 212 555 ${String(1000 + i).padStart(4, '0')}`, email: `w${i}@example.com`, source: 'writer-test' }
}

/** An event no read model reads: it moves their checkpoints only. */
const MARKER = { type: 'WriterTestMarker', data: {}, metadata: { correlationId: 'c', causationId: null, actor: { kind: 'operator', id: 't' }, schemaVersion: 1 } } as const

/** Reads the views file on a connection of its own, as another process would. */
function peek<T>(file: string, query: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    return query(db)
  } finally {
    db.close()
  }
}

t.test('a served lead is in the read models before its 2xx, written there by the writer thread, and they match a rebuild', async (t) => {
  const served = await buildApp(t, { store: 'sqlite', serving: true })
  const progress = afterCommitProgress(served.leadline.store)
  t.ok(progress, 'the served store has after-commit work')
  const { token, account } = await served.createAccount('Writer Co')
  const leadIds: string[] = []
  for (let i = 0; i < 5; i++) {
    const response = await served.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token }, payload: lead(i) })
    t.equal(response.statusCode, 201)
    leadIds.push(response.json().leadId as string)
  }
  const head = await served.leadline.store.headPosition()
  t.equal(progress?.through(), head, 'the writer applied every batch, through the head of the log')
  const rows = peek(served.viewsPath, (db) => db.prepare('SELECT lead_id FROM inbound_leads WHERE account_id = ? ORDER BY lead_id').pluck().all(account.accountId))
  t.same(rows, [...leadIds].sort(), 'each lead is in Inbound Leads, seen from another connection')

  // In the continuation of the append itself, before this thread's runner could take the batch.
  const store = served.leadline.store
  const seenAtAnswer = await store
    .appendToStream(`lead-${account.accountId}-2125559999`, [MARKER], 'any')
    .then((result) => ({ position: result.position, through: progress?.through(), checkpoints: peek(served.viewsPath, (db) => db.prepare('SELECT min(position) FROM projection_checkpoints').pluck().get()) }))
  t.equal(seenAtAnswer.through, seenAtAnswer.position, 'told how far the read models got with the answer')
  t.equal(seenAtAnswer.checkpoints, seenAtAnswer.position, 'every read model had its checkpoint at the event when the append was answered')

  // The same read models as the main thread builds from the log alone.
  await served.leadline.runner.waitFor(seenAtAnswer.position)
  const built = dumpReadModels(served.leadline)
  const rebuilt = await openLeadline({ store: served.store, viewsPath: path.join(served.dir, 'rebuilt.views.db') })
  t.teardown(() => rebuilt.close())
  await rebuilt.runner.catchUp()
  t.same(dumpReadModels(rebuilt), built, 'identical to a rebuild on the main thread')
})

t.test('read models behind the batch (another process wrote meanwhile): the writer reads the gap from the log; a long one it leaves to the runner', async (t) => {
  const served = await buildApp(t, { store: 'sqlite', serving: true, start: false })
  const store = served.leadline.store
  const progress = afterCommitProgress(store) as AfterCommitProgress
  await store.appendToStream('writer-test-1', [MARKER], 'any')
  t.equal(progress.through(), await store.headPosition(), 'in step with the log: the writer applies')
  // The command line writes to the same log, with read models of its own: the server's have not seen it.
  const cli = await openLeadline({ store: served.store, viewsPath: path.join(served.dir, 'cli.views.db') })
  const { account } = await cli.accounts.create('Elsewhere Co', {}, operatorContext)
  const accounts = () => peek(served.viewsPath, (db) => db.prepare('SELECT count(*) FROM accounts WHERE account_id = ?').pluck().get(account.accountId))
  t.equal(accounts(), 0, 'not in the server\'s read models yet')
  const next = await store.appendToStream('writer-test-2', [MARKER], 'any')
  t.equal(progress.through(), next.position, 'the writer applied the other process\'s events, read from the log, and its own batch')
  t.equal(accounts(), 1, 'the account with them, in order')

  // More than the writer reads back: the runner's.
  await cli.store.appendToStream('writer-test-bulk', Array.from({ length: 2001 }, () => MARKER), 'any')
  await cli.close()
  const behind = await store.appendToStream('writer-test-3', [MARKER], 'any')
  t.equal(progress.through(), next.position, 'a gap of 2,001 events: the writer left the batch')
  t.equal(peek(served.viewsPath, (db) => db.prepare('SELECT min(position) FROM projection_checkpoints').pluck().get()), next.position, 'and applied nothing')
  await served.leadline.runner.catchUp()
  t.equal(served.leadline.runner.appliedPosition, behind.position, 'the runner applied the log through the batch')
  const last = await store.appendToStream('writer-test-4', [MARKER], 'any')
  t.equal(progress.through(), last.position, 'caught up again, the writer applies the next batch itself')
})

t.test('the writer-side applier: applies a batch and the gap before it, never waits for the lock, never applies twice, never throws', async (t) => {
  const dir = t.testdir()
  const log = `sqlite:${path.join(dir, 'log.db')}`
  const viewsFile = path.join(dir, 'served.views.db')
  // Events on the log, written by a command-line Leadline with read models of its own.
  const writer = await openLeadline({ store: log, viewsPath: path.join(dir, 'writer.views.db') })
  await writer.accounts.create('Applier Co', {}, operatorContext)
  await writer.accounts.create('Applier Two', {}, operatorContext)
  const events = await writer.store.readAll()
  await writer.close()
  t.ok(events.length >= 4, `the accounts' events (${events.length})`)
  /** The committed log, as the writer thread reads it: these are the file's events. */
  const committedLog: CommittedLog = { between: (after, before) => events.filter((e) => e.position > after && e.position < before) }
  // The main connection creates the read models (a server's runner does, as it opens).
  const main = await openLeadline({ store: log, viewsPath: viewsFile })
  t.teardown(() => main.close())
  const applier = openCommittedApplier(viewsFile, PROJECTIONS)
  t.teardown(() => applier.close())
  const checkpoints = () => peek(viewsFile, (db) => db.prepare('SELECT min(position) AS low, max(position) AS high FROM projection_checkpoints').get())
  const [first, second, ...rest] = events as [RecordedEvent, RecordedEvent, ...RecordedEvent[]]
  const lastPosition = (rest[rest.length - 1] as RecordedEvent).position

  // Another connection holds the views' write lock: the applier answers at once, having done nothing.
  const holder = new Database(viewsFile)
  holder.prepare('BEGIN IMMEDIATE').run()
  const started = process.hrtime.bigint()
  t.equal(applier.committed([first], committedLog), 0, 'the lock is held: left to the runner')
  const waitedMs = Number(process.hrtime.bigint() - started) / 1e6
  t.ok(waitedMs < 100, `did not wait for the lock (${waitedMs.toFixed(1)} ms)`)
  holder.prepare('ROLLBACK').run()
  holder.close()
  t.same(checkpoints(), { low: 0, high: 0 }, 'nothing applied')

  t.equal(applier.committed([second], committedLog), second.position, 'a batch after a gap: the gap read from the log, both applied')
  t.same(checkpoints(), { low: second.position, high: second.position })
  t.equal(applier.committed([first, second], committedLog), second.position, 'events the read models have passed: nothing left to do')
  t.equal(applier.committed([{ ...first, position: lastPosition + 2001, id: 'far-ahead' }], committedLog), 0, 'a gap longer than it reads back: left to the runner')
  t.equal(applier.committed(rest, committedLog), lastPosition, 'the rest')
  await main.runner.catchUp()
  const cli = await openLeadline({ store: log, viewsPath: path.join(dir, 'cli.views.db') })
  t.teardown(() => cli.close())
  await cli.runner.catchUp()
  t.same(dumpReadModels(main), dumpReadModels(cli), 'the same read models as the runner built from the log: nothing applied twice or skipped')

  // A read model that fails (its table gone): the applier says it did nothing, it does not throw.
  main.views.exec('DROP TABLE accounts')
  t.equal(applier.committed([{ ...first, position: lastPosition + 1, revision: 99, id: 'later-event' }], committedLog), 0, 'a failing read model: left to the runner, which reports it')
})
