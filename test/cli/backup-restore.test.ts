/**
 * `leadline backup` and `leadline restore` through the real binary: a backup taken while a child
 * server takes a steady stream of leads is consistent (its chains verify, it restores, the rebuilt
 * read models hold its leads), and restore refuses what it must.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { runLeadline, startServer } from '../helpers/cli.ts'

const storeEnv = (file: string): NodeJS.ProcessEnv => ({ LEADLINE_STORE: `sqlite:${file}` })
const sha256 = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex')

/** The leads a log holds, read from its file: one lead stream per person, created at revision 0. */
function leadStreamsIn(file: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    return (db.prepare("SELECT count(*) AS n FROM events WHERE stream LIKE 'lead-%' AND revision = 0").get() as { n: number }).n
  } finally {
    db.close()
  }
}

/** Every lead of the account in the read models, page by page. */
async function listedLeads(env: NodeJS.ProcessEnv, accountId: string): Promise<number> {
  let count = 0
  let cursor: string | null = null
  do {
    const listed = await runLeadline(['leads', '--account', accountId, '--limit', '500', '--json', ...(cursor ? ['--cursor', cursor] : [])], env)
    if (listed.code !== 0) throw new Error(listed.stderr)
    const page = JSON.parse(listed.stdout) as { leads: unknown[]; nextCursor: string | null }
    count += page.leads.length
    cursor = page.nextCursor
  } while (cursor)
  return count
}

/** Posts new leads, four at a time, until stopped; counts what was sent and what was acknowledged. */
function leadStream(url: string, token: string) {
  let sent = 0
  let acknowledged = 0
  const failures: string[] = []
  let stopping = false
  const worker = async () => {
    while (!stopping) {
      const n = sent++
      const response = await fetch(`${url}/api/ingest/lead`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-token': token },
        body: JSON.stringify({ name: `Lead ${n}`, phone: `512${String(5_000_000 + n).padStart(7, '0')}`, source: 'stream' }),
      })
      if (response.status === 201) acknowledged++
      else failures.push(`${response.status} ${await response.text()}`)
    }
  }
  const workers = [worker(), worker(), worker(), worker()]
  return {
    get sent() {
      return sent
    },
    get acknowledged() {
      return acknowledged
    },
    failures,
    async stop() {
      stopping = true
      await Promise.all(workers)
    },
  }
}

async function until(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

t.test('a backup taken while the server takes a steady stream of leads restores into a fresh path: audit verify passes, the lead count is the backup\'s', async (t) => {
  const dir = t.testdir()
  const live = storeEnv(path.join(dir, 'live', 'leadline.db'))
  const account = JSON.parse((await runLeadline(['account', 'create', '--name', 'Acme', '--json'], live)).stdout)
  // The stream runs as fast as the server takes it: no per-token rate limit in the way.
  const server = await startServer({ ...live, LEADLINE_WEBHOOK_RATE: 'off' })
  t.teardown(() => server.stop())

  const stream = leadStream(server.url, account.webhookToken.token)
  await until(() => stream.acknowledged >= 100)
  const acknowledgedBefore = stream.acknowledged
  const backupFile = path.join(dir, 'backups', 'leadline-backup.db')
  fs.mkdirSync(path.dirname(backupFile))
  const backup = await runLeadline(['backup', backupFile, '--json'], live)
  const sentAfter = stream.sent
  t.equal(backup.code, 0, backup.stderr)
  // The stream goes on after the backup: the server was never held up.
  await until(() => stream.acknowledged >= sentAfter + 50)
  await stream.stop()
  t.same(stream.failures, [], 'every lead of the stream was acknowledged')
  await server.stop()

  const taken = JSON.parse(backup.stdout)
  t.match(taken, { backup: backupFile, verified: true, events: Number, head: Number })
  t.same(fs.readdirSync(path.dirname(backupFile)), ['leadline-backup.db'], 'one self-contained file, no -wal beside it, no partial file left')
  const backupLeads = leadStreamsIn(backupFile)
  t.ok(backupLeads >= acknowledgedBefore && backupLeads <= sentAfter, `the backup holds the leads of one instant during the stream (${acknowledgedBefore} <= ${backupLeads} <= ${sentAfter})`)
  t.ok(backupLeads < stream.acknowledged, 'and not those acknowledged after it')
  const backupDigest = sha256(backupFile)

  const restoredEnv = storeEnv(path.join(dir, 'restored', 'leadline.db'))
  const restored = await runLeadline(['restore', backupFile, '--json'], restoredEnv)
  t.equal(restored.code, 0, restored.stderr)
  t.match(JSON.parse(restored.stdout), { events: taken.events, head: taken.head, verified: true, leads: backupLeads, replaced: null })
  t.equal(sha256(backupFile), backupDigest, 'the backup file is left as it was')

  const verified = await runLeadline(['audit', 'verify', '--json'], restoredEnv)
  t.equal(verified.code, 0, verified.stderr)
  // One event more than the backup: the restore's own record (LogRestored), appended before the log was put in place.
  t.match(JSON.parse(verified.stdout), { ok: true, events: taken.events + 1, head: taken.head + 1, findings: [] })
  t.equal(await listedLeads(restoredEnv, account.accountId), backupLeads, 'Inbound Leads of the restored store: the backup\'s leads')

  // The restored store serves: a server starts on it and takes the next lead.
  const again = await startServer(restoredEnv)
  t.teardown(() => again.stop())
  const next = await fetch(`${again.url}/api/ingest/lead`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': account.webhookToken.token },
    body: JSON.stringify({ name: 'After Restore', phone: '3125550199' }),
  })
  t.equal(next.status, 201, 'the restored log takes new leads')
})

t.test('restore refuses a store a running server holds', async (t) => {
  const dir = t.testdir()
  const liveFile = path.join(dir, 'live', 'leadline.db')
  const live = storeEnv(liveFile)
  t.equal((await runLeadline(['account', 'create', '--name', 'Acme', '--json'], live)).code, 0)
  const backupFile = path.join(dir, 'backup.db')
  t.equal((await runLeadline(['backup', backupFile], live)).code, 0)

  const server = await startServer(live)
  t.teardown(() => server.stop())
  const held = await runLeadline(['restore', backupFile, '--force'], live)
  t.equal(held.code, 2, held.stderr)
  t.match(held.stderr, /leadline\.db is open in another process \(a running server\?\): stop it, then restore/)
  t.equal((await fetch(`${server.url}/readyz`)).status, 200, 'the server went on as it was')
})
