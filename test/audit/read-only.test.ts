/**
 * None of the audit commands can change the log: after each one the log file has the same bytes and
 * the same head, and a log that is missing or is not a Leadline log is refused, never created.
 */
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { runCli } from '../../src/cli/main.ts'
import { runLeadline } from '../helpers/cli.ts'
import { ACCOUNT, PHONE, sha256File, writeAuditLog } from '../helpers/audit-log.ts'

async function cli(args: string[], env: NodeJS.ProcessEnv) {
  const out: string[] = []
  const err: string[] = []
  const code = await runCli(args, { out: (s) => out.push(s), err: (s) => err.push(s), env })
  return { code, stdout: out.join('\n'), stderr: err.join('\n') }
}

function logState(file: string) {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    return {
      head: db.prepare('SELECT max(position) FROM events').pluck().get() as number,
      rows: db.prepare('SELECT * FROM events ORDER BY position').all(),
    }
  } finally {
    db.close()
  }
}

t.test('every audit command leaves the log as it was, byte for byte', async (t) => {
  const dir = t.testdir()
  const log = await writeAuditLog(path.join(dir, 'log.db'))
  await log.store.close()
  const env = { LEADLINE_STORE: log.url, LEADLINE_VIEWS: path.join(dir, 'views', 'cli.views.db') }
  const bytes = sha256File(log.file)
  const state = logState(log.file)
  const commands = [
    ['history', '--account', ACCOUNT, '--phone', PHONE],
    ['history', '--account', ACCOUNT, '--phone', PHONE, '--json'],
    ['history', '--account', ACCOUNT, '--phone', PHONE, '--format', 'csv', '--as-of', '2026-03-10'],
    ['audit', 'verify'],
    ['audit', 'verify', '--account', ACCOUNT, '--json'],
    ['audit', 'export', '--account', ACCOUNT],
    ['audit', 'export', '--account', ACCOUNT, '--include-recordings', '--output', path.join(dir, 'export.jsonl')],
    ['replay', '--all'],
    ['replay', '--projection', 'calls'],
    ['replay', '--verify', '--json'],
    ['history', '--account', 'acc_nobody', '--phone', PHONE],
  ]
  for (const args of commands) {
    const result = await cli(args, env)
    t.ok(result.code === 0 || args.includes('acc_nobody'), `${args.join(' ')}: ${result.code} ${result.stderr}`)
    t.equal(sha256File(log.file), bytes, `${args.join(' ')}: the log file has the same bytes`)
    t.same(fs.readdirSync(dir).filter((f) => f.startsWith('log.db')), ['log.db'], 'no journal left beside it')
  }
  // And through the real binary, as an operator runs it.
  for (const args of [['audit', 'verify'], ['history', '--account', ACCOUNT, '--phone', PHONE], ['replay', '--all']]) {
    const result = await runLeadline(args, env)
    t.equal(result.code, 0, result.stderr)
    t.equal(sha256File(log.file), bytes, `leadline ${args.join(' ')}: same bytes`)
  }
  t.same(logState(log.file), state, 'the same events at the same head')
})

t.test('a log that is missing, or not a Leadline log, is refused and never created', async (t) => {
  const dir = t.testdir()
  const missing = path.join(dir, 'nothing-here', 'log.db')
  for (const args of [['audit', 'verify'], ['history', '--account', ACCOUNT, '--phone', PHONE], ['replay', '--all'], ['audit', 'export', '--account', ACCOUNT]]) {
    const result = await cli(args, { LEADLINE_STORE: `sqlite:${missing}`, LEADLINE_VIEWS: path.join(dir, 'views.db') })
    t.equal(result.code, 1, args.join(' '))
    t.match(result.stderr, /^leadline: no event log at .*log\.db \(LEADLINE_STORE\)$/)
  }
  t.notOk(fs.existsSync(path.dirname(missing)), 'nothing created')

  const other = path.join(dir, 'other.db')
  const db = new Database(other)
  db.exec('CREATE TABLE notes (text TEXT)')
  db.close()
  const bytes = sha256File(other)
  const result = await cli(['audit', 'verify'], { LEADLINE_STORE: `sqlite:${other}` })
  t.equal(result.code, 1)
  t.match(result.stderr, /is not a Leadline event log \(schema version 0, expected \d+\)/)
  t.equal(sha256File(other), bytes, 'not migrated')
  const check = new Database(other, { readonly: true })
  t.notOk(check.prepare("SELECT 1 FROM sqlite_master WHERE name = 'events'").get(), 'no events table created')
  check.close()
})
