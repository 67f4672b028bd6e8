/**
 * `leadline migrate --to esdb://…`: the embedded log copied into EventStoreDB (the gRPC test double)
 * with ids, times and hash chains intact; resumable, idempotent, verified, and refusing a target that
 * already holds something else.
 */
import { existsSync, rmSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import type { Test } from 'tap'
import type { NewEvent, RecordedEvent } from '../../src/domain/event.ts'
import { openSqliteEventStore, type SqliteEventStore } from '../../src/eventstore/sqlite/index.ts'
import { openEsdbEventStore, type EsdbEventStore } from '../../src/eventstore/eventstoredb/esdb-event-store.adapter.ts'
import { runCli } from '../../src/cli/main.ts'
import { startEsdbDouble, type EsdbDouble } from '../doubles/esdb/esdb-double.ts'

const SILENT = { info() {}, warn() {} }
const METADATA = { correlationId: 'corr-migrate', causationId: null, actor: { kind: 'operator', id: 'migrate-test' }, schemaVersion: 1 } as const
const ev = (type: string, data: unknown = {}): NewEvent => ({ type, data, metadata: METADATA })

async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = []
  const err: string[] = []
  const code = await runCli(args, { out: (text) => void out.push(text), err: (text) => void err.push(text), env: { LOG_LEVEL: 'silent', ...env } })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

/** An embedded log with a few accounts' worth of interleaved streams. */
async function embeddedLog(t: Test, events = 120): Promise<{ file: string; store: SqliteEventStore }> {
  const file = path.join(t.testdir(), 'leadline.db')
  const store = openSqliteEventStore({ path: file })
  t.teardown(() => store.close())
  await store.appendToStream('account-acc1', [ev('AccountCreated', { name: 'Acme' })], 'no_stream')
  for (let i = 0; i < events - 1; i++) {
    const stream = `lead-acc1-512555${String(i % 17).padStart(4, '0')}`
    await store.appendToStream(stream, i % 5 === 0 ? [ev('LeadReceived', { i }), ev('LeadAddedToList', { i })] : [ev('LeadUpdated', { i, note: 'é✓' })], 'any')
  }
  return { file, store }
}

async function double(t: Test): Promise<{ server: EsdbDouble; target: EsdbEventStore }> {
  const server = await startEsdbDouble()
  const target = openEsdbEventStore({ connectionString: server.url, logger: SILENT })
  t.teardown(async () => {
    await target.close()
    await server.close()
  })
  return { server, target }
}

const withoutPosition = (events: RecordedEvent[]) => events.map(({ position: _position, ...rest }) => rest)

t.test('copies the embedded log, verifies it, and audits the target', async (t) => {
  const { file, store } = await embeddedLog(t)
  const { server, target } = await double(t)
  const result = await cli(['migrate', '--to', server.url, '--from', `sqlite:${file}`])
  t.equal(result.code, 0, 'exit 0', { stderr: result.err })
  const source = await store.readAll()
  t.match(result.out, new RegExp(`migrated ${source.length} events in 18 streams .*\\(${source.length} copied now, 0 already there\\); every event verified`))
  t.match(result.out, /leadline audit verify on the target: hash chains intact/)
  t.match(result.err, /migrate \[.*\] 100%/, 'progress was shown')
  const copied = await target.readAll()
  t.same(withoutPosition(copied), withoutPosition(source), 'the same events, in the same order, with the same hashes')
  t.ok(existsSync(`${file}.migrate.json`), 'where it stopped is kept beside the log')
})

t.test('a second run copies only what is new; without the resume point, nothing twice', async (t) => {
  const { file, store } = await embeddedLog(t, 40)
  const { server, target } = await double(t)
  t.equal((await cli(['migrate', '--to', server.url], { LEADLINE_STORE: `sqlite:${file}` })).code, 0, 'LEADLINE_STORE is the default source')
  await store.appendToStream('lead-acc1-5125550003', [ev('LeadUpdated', { late: true })], 'any')
  await store.appendToStream('lead-acc1-5125559999', [ev('LeadReceived', { late: true })], 'no_stream')
  const second = await cli(['migrate', '--to', server.url, '--from', `sqlite:${file}`, '--json'])
  t.equal(second.code, 0, 'exit 0', { stderr: second.err })
  t.match(JSON.parse(second.out), { copiedNow: 2, alreadyThere: 0, verified: true, audit: { ok: true } })

  rmSync(`${file}.migrate.json`)
  const third = await cli(['migrate', '--to', server.url, '--from', `sqlite:${file}`, '--json'])
  t.match(JSON.parse(third.out), { copiedNow: 0, alreadyThere: (await store.readAll()).length }, 'every event found already there')
  t.same(withoutPosition(await target.readAll()), withoutPosition(await store.readAll()), 'stored once')
})

t.test('resumes a copy that was cut short', async (t) => {
  const { file, store } = await embeddedLog(t, 60)
  const { server, target } = await double(t)
  // A run that died part way: the first 25 events are in the target, no resume point was saved.
  for (const event of (await store.readAll()).slice(0, 25)) await target.importRecorded(event.stream, [event])
  const result = await cli(['migrate', '--to', server.url, '--from', `sqlite:${file}`, '--json'])
  t.equal(result.code, 0, 'exit 0', { stderr: result.err })
  const total = (await store.readAll()).length
  t.match(JSON.parse(result.out), { events: total, copiedNow: total - 25, alreadyThere: 25 })
  t.same(withoutPosition(await target.readAll()), withoutPosition(await store.readAll()))
})

t.test('refuses a target whose streams hold other events, and bad arguments', async (t) => {
  const { file } = await embeddedLog(t, 10)
  const { server, target } = await double(t)
  await target.appendToStream('lead-acc1-5125550000', [ev('SomethingElse')], 'no_stream')
  const diverged = await cli(['migrate', '--to', server.url, '--from', `sqlite:${file}`])
  t.equal(diverged.code, 1)
  t.match(diverged.err, /leadline: cannot copy lead-acc1-5125550000: .*the target holds event/)

  t.match(await cli(['migrate', '--from', `sqlite:${file}`]), { code: 2, err: /--to is required/ })
  t.match(await cli(['migrate', '--to', `sqlite:${file}`, '--from', `sqlite:${file}`]), { code: 2, err: /--to takes an EventStoreDB connection string/ })
  t.match(await cli(['migrate', '--to', server.url, '--from', server.url]), { code: 2, err: /--from takes the embedded log/ })
  t.match(await cli(['migrate', '--to', server.url, '--from', 'sqlite:/nonexistent/leadline.db']), { code: 2, err: /there is no embedded log/ })
})
