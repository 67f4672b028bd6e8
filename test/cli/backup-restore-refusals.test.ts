/**
 * `leadline backup` and `leadline restore` in this process, through `runCli`: what restore refuses, and
 * what backup refuses. backup-restore.test.ts runs the binary beside a running server.
 */
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { runLeadlineInProcess } from '../helpers/cli.ts'

const storeEnv = (file: string): NodeJS.ProcessEnv => ({ LEADLINE_STORE: `sqlite:${file}` })

t.test('restore refuses a file that is not a Leadline log, one that fails verification and a store that holds a log (unless forced); backup refuses an existing file', async (t) => {
  const dir = t.testdir()
  const liveFile = path.join(dir, 'live', 'leadline.db')
  const live = storeEnv(liveFile)
  const account = JSON.parse((await runLeadlineInProcess(['account', 'create', '--name', 'Acme', '--json'], live)).stdout)
  const backupFile = path.join(dir, 'backup.db')
  t.equal((await runLeadlineInProcess(['backup', backupFile], live)).code, 0)
  const exists = await runLeadlineInProcess(['backup', backupFile], live)
  t.equal(exists.code, 2)
  t.match(exists.stderr, /exists already; backup writes a new file/)

  const fresh = path.join(dir, 'fresh', 'leadline.db')
  const refusals: Array<[string, (file: string) => void, number, RegExp]> = [
    ['a text file', (file) => fs.writeFileSync(file, 'name,phone\nJane,3125550142\n'), 2, /is not a Leadline event log/],
    ['another SQLite database', (file) => new Database(file).exec('CREATE TABLE notes (text TEXT)').close(), 2, /is not a Leadline event log: .*schema version 0/],
    ['our schema version without the events table', (file) => new Database(file).exec('CREATE TABLE notes (text TEXT); PRAGMA user_version = 1').close(), 2, /is not a Leadline event log: no such table: events/],
    [
      'a backup with an edited event',
      (file) => {
        fs.copyFileSync(backupFile, file)
        const db = new Database(file)
        db.prepare("UPDATE events SET data = replace(data, 'Acme', 'Evil') WHERE stream LIKE 'account-%' AND revision = 0").run()
        db.close()
      },
      1,
      /fails verification in 1 streams \(first: account-acc_\w+ revision 0: changed\); nothing restored/,
    ],
  ]
  for (const [what, write, code, message] of refusals) {
    const file = path.join(dir, `candidate-${refusals.findIndex((r) => r[0] === what)}.db`)
    write(file)
    const result = await runLeadlineInProcess(['restore', file], storeEnv(fresh))
    t.equal(result.code, code, `${what}: exit ${code} (${result.stderr.trim()})`)
    t.match(result.stderr, message, what)
    t.same(fs.existsSync(path.dirname(fresh)) ? fs.readdirSync(path.dirname(fresh)) : [], [], `${what}: nothing restored, nothing left behind`)
  }

  const over = await runLeadlineInProcess(['restore', backupFile], live)
  t.equal(over.code, 2)
  t.match(over.stderr, /holds a log already: restore into a new LEADLINE_STORE path, or pass --force to move it aside/)
  const forced = await runLeadlineInProcess(['restore', backupFile, '--force', '--json'], live)
  t.equal(forced.code, 0, forced.stderr)
  const { replaced } = JSON.parse(forced.stdout)
  t.match(replaced, /leadline\.db\.before-restore-/)
  t.ok(fs.existsSync(replaced), 'the log that was there is kept')
  t.equal(JSON.parse((await runLeadlineInProcess(['account', 'list', '--json'], live)).stdout)[0].accountId, account.accountId)

  const esdb = await runLeadlineInProcess(['backup', path.join(dir, 'x.db')], { LEADLINE_STORE: 'esdb://127.0.0.1:1?tls=false' })
  t.equal(esdb.code, 2)
  t.match(esdb.stderr, /back up EventStoreDB with its own tools/)
})
