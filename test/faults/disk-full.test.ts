/**
 * A full or read-only disk: writes are refused with 503 (Retry-After, a JSON body with a stable
 * code), nothing half-written reaches the log, and appends, read models and speed to lead resume on
 * their own once space returns; the hash chain and a fresh rebuild of the read models agree after.
 *
 * For real where the machine allows it: a child `leadline serve` (writer thread, as in production)
 * on a size-limited tmpfs that is filled up and freed again. Everywhere: the in-process store's
 * connection limited with `PRAGMA max_page_count` (SQLITE_FULL) and `PRAGMA query_only`
 * (SQLITE_READONLY), which are SQLite's own errors on the same code path.
 */
import path from 'node:path'
import Database from 'better-sqlite3'
import t, { type Test } from 'tap'
import { StoreUnavailableError } from '../../src/eventstore/event-store.port.ts'
import { openSqliteEventStore, type SqliteEventStore } from '../../src/eventstore/sqlite/index.ts'
import { buildApp, operatorContext } from '../helpers/build-app.ts'
import { runLeadline, startServer } from '../helpers/cli.ts'
import { DIALING_SETTINGS, callTool, eventually, filesIn, postLead, serverEnv, setUpAccount, sleep, verifyLog, type Answer } from './fault-kit.ts'
import { smallDisk } from './small-disk.ts'

/** A lead with some bulk, so a full disk is reached in a few hundred requests. */
function leadFields(n: number): Record<string, unknown> {
  return { phone: `737${String(2_000_000 + n).padStart(7, '0')}`, name: `Disk Lead ${n}`, notes: 'x'.repeat(2000) }
}

function phoneOf(n: number): string {
  return leadFields(n).phone as string
}

function check503(t: Test, answer: Answer): void {
  t.equal(answer.status, 503, '503 Service Unavailable')
  t.equal(answer.headers.get('retry-after'), '5', 'Retry-After: 5')
  t.match(answer.headers.get('content-type'), /^application\/json/, 'a JSON body')
  t.match(answer.body, { error: 'store unavailable', detail: /nothing was recorded/ }, 'the stable error text')
}

t.test('real full disk under a child server: 503, nothing partial, and everything resumes when space returns', async (t) => {
  const disk = smallDisk(t, 8 * 1024)
  if (disk === null) {
    t.pass('skipped: cannot mount a tmpfs here (needs CAP_SYS_ADMIN); the PRAGMA max_page_count test below covers the code path')
    return
  }
  const files = filesIn(disk.dir)
  const account = await setUpAccount(files, DIALING_SETTINGS)
  const server = await startServer(serverEnv(files, { LEADLINE_SIMULATED_DELAY_MS: '20' }))
  t.teardown(() => server.stop('SIGKILL'))

  const acknowledged = new Set<string>()
  const refused = new Set<string>()
  let n = 0
  const post = async (): Promise<Answer> => {
    const i = n++
    const answer = await postLead(server.url, account.token, leadFields(i))
    if (answer.status === 201) acknowledged.add(phoneOf(i))
    else refused.add(phoneOf(i))
    return answer
  }
  for (let i = 0; i < 10; i++) t.equal((await post()).status, 201)

  disk.fill()
  let full: Answer | undefined
  for (let i = 0; i < 2000 && full === undefined; i++) {
    const answer = await post()
    if (answer.status !== 201) full = answer
  }
  t.ok(full, `a write was refused once the disk was full (after ${n} leads)`)
  if (!full) return
  check503(t, full)
  // While it stays full, every write is refused the same way, and the tool endpoint says so in JSON-RPC.
  check503(t, await post())
  const tool = await callTool(server.url, account.keys[0] as string, 'place_call', { phone: '(737) 555-0100', name: 'Tool Call', idempotency_key: 'disk-full-1' })
  t.match(tool.error, { code: -32603, data: { code: 'store_unavailable', retry_after_seconds: 5 } }, 'a tool call: -32603 store_unavailable')
  t.equal((await fetch(`${server.url}/healthz`)).status, 200, 'the process stays up')

  disk.free()
  t.ok(await eventually(async () => (await post()).status === 201, 10_000), 'appends work again once space returns')
  for (let i = 0; i < 10; i++) t.equal((await post()).status, 201, 'and keep working')
  const again = await callTool(server.url, account.keys[0] as string, 'place_call', { phone: '(737) 555-0100', name: 'Tool Call', idempotency_key: 'disk-full-1' })
  t.match(again.result, { status: 'placed' }, `the same idempotency key now places the call (the refused one recorded nothing): ${JSON.stringify(again)}`)

  // Read models and speed to lead caught up on their own: every acknowledged lead was decided on.
  const ready = await eventually(async () => (await fetch(`${server.url}/readyz`)).status === 200, 15_000)
  t.ok(ready, '/readyz is ready again: the read models resumed')
  t.equal(await server.stop('SIGTERM'), 0, 'a clean stop')

  const { openLeadline } = await import('../../src/leadline.ts')
  const after = await openLeadline({ store: files.store, viewsPath: path.join(t.testdir(), 'check.views.db'), env: {} })
  const events = await after.store.readAll()
  await after.close()
  const received = new Set(events.filter((e) => e.type === 'LeadReceived').map((e) => (e.data as { fields: { phoneLast10: string } }).fields.phoneLast10))
  t.same([...acknowledged].filter((p) => !received.has(p)), [], 'every acknowledged lead is on the log')
  t.same([...refused].filter((p) => received.has(p)), [], 'no refused lead is on the log: nothing partial')
  // A skip is on the lead's own LeadReceived; a call is a CallDecided beside it.
  const streamsDecided = new Set(events.filter((e) => e.type === 'CallDecided' || (e.type === 'LeadReceived' && 'speedToLeadSkipped' in (e.data as object))).map((e) => e.stream))
  const undecided = events.filter((e) => e.type === 'LeadReceived' && !streamsDecided.has(e.stream)).map((e) => e.stream)
  t.same(undecided, [], 'speed to lead decided on every acknowledged lead, also those whose decision met the full disk')

  const verified = await verifyLog(files)
  t.equal(verified.audit.code, 0, `audit verify: the hash chain holds\n${verified.audit.out}`)
  t.equal(verified.replay.code, 0, `replay --verify: the read models equal a fresh rebuild\n${verified.replay.out}`)
})

t.test('full (max_page_count), in process: 503 on the webhook and the tool endpoint, then recovery', async (t) => {
  const built = await buildApp(t, { store: 'sqlite' })
  const { account, token } = await built.createAccount('Full Co', { callerId: '+13125550100' })
  const { key } = await built.leadline.accounts.createApiKey(account.accountId, ['read', 'write', 'dial'], 'k', operatorContext)
  const db = (built.leadline.store as SqliteEventStore).database
  const post = async (i: number) => {
    const response = await built.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token, 'content-type': 'application/json' }, payload: leadFields(i) })
    return { status: response.statusCode, body: response.json(), headers: new Headers(response.headers as Record<string, string>) }
  }
  t.equal((await post(0)).status, 201)
  const pages = db.pragma('page_count', { simple: true }) as number
  db.pragma(`max_page_count = ${pages}`)
  let refused: Answer | undefined
  let i = 1
  for (; i < 500 && refused === undefined; i++) {
    const answer = await post(i)
    if (answer.status !== 201) refused = answer
  }
  t.ok(refused, 'refused once the file may not grow')
  if (!refused) return
  check503(t, refused)
  const lastRefused = phoneOf(i - 1)
  // A tool call writes a few hundred bytes, which the last pages may still hold after a 2 KB lead no
  // longer fits: it is asked again, each time with a new key, until the file is full for it too.
  let toolError: unknown
  let calls = 0
  for (; calls < 50 && toolError === undefined; calls++) {
    const tool = await built.app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'mark_do_not_call', arguments: { phone: phoneOf(0), idempotency_key: `full-${calls}` } } },
    })
    toolError = tool.json().error
  }
  t.match(toolError, { code: -32603, data: { code: 'store_unavailable' } }, `the tool endpoint refused too (call ${calls})`)

  db.pragma('max_page_count = 1073741823')
  t.equal((await post(i)).status, 201, 'appends resume at once')
  const events = await built.leadline.store.readAll()
  t.notOk(events.some((e) => JSON.stringify(e.data).includes(lastRefused)), 'the refused lead left nothing on the log')
  const verified = await verifyLog({ store: built.store, viewsPath: built.viewsPath })
  t.equal(verified.audit.code, 0, verified.audit.out)
})

t.test('read-only (query_only), in process: 503, then recovery', async (t) => {
  const built = await buildApp(t, { store: 'sqlite' })
  const { token } = await built.createAccount('Read-only Co')
  const db = (built.leadline.store as SqliteEventStore).database
  const post = async (i: number) => {
    const response = await built.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token, 'content-type': 'application/json' }, payload: leadFields(i) })
    return { status: response.statusCode, body: response.json(), headers: new Headers(response.headers as Record<string, string>) }
  }
  t.equal((await post(0)).status, 201)
  db.pragma('query_only = ON')
  check503(t, await post(1))
  t.equal((await post(0)).status, 503, 'an update too')
  db.pragma('query_only = OFF')
  t.equal((await post(1)).status, 201, 'writes resume')
  t.equal((await post(0)).status, 200)
})

t.test('the adapter maps SQLite full, read-only and I/O errors to StoreUnavailableError', async (t) => {
  for (const code of ['SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_IOERR_WRITE', 'SQLITE_IOERR_FSYNC', 'SQLITE_BUSY']) {
    const store = openSqliteEventStore({ path: path.join(t.testdir(), `${code}.db`) })
    const writer = (store as unknown as { inlineWriter: { write: () => never } }).inlineWriter
    writer.write = () => {
      throw new Database.SqliteError(`simulated ${code}`, code)
    }
    const error = await store.appendToStream('s-1', [{ type: 'Happened', data: {}, metadata: { correlationId: 'c', causationId: null, actor: { kind: 'test', id: 't' }, schemaVersion: 1 } } as never], 'any').catch((e: unknown) => e)
    t.ok(error instanceof StoreUnavailableError, `${code} → StoreUnavailableError`)
    t.equal((error as StoreUnavailableError).type, 'store_unavailable')
    await store.close()
  }
})

t.test('a store on a read-only filesystem at start: the server stops with a clear message', async (t) => {
  const disk = smallDisk(t, 4 * 1024)
  if (disk === null) {
    t.pass('skipped: cannot mount a tmpfs here')
    return
  }
  const files = filesIn(disk.dir)
  await setUpAccount(files, {})
  disk.readOnly()
  const result = await runLeadline(['serve'], { ...serverEnv(files), PORT: '0' })
  t.not(result.code, 0, 'exits non-zero instead of serving a log it cannot write')
  t.match(result.stderr + result.stdout, /cannot open event store/)
  disk.readWrite()
  await sleep(0)
})
