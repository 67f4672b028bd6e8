/**
 * The audit commands, run in this process through `runCli` (what the `leadline` binary runs; the binary
 * adds only process.exitCode): readable output and --json, exit 0 for an intact log, exit 1 naming the
 * first bad event after the SQLite file is altered, exit 2 on bad input. audit-replay-server.test.ts runs
 * `leadline replay` as a process beside a server.
 */
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import t, { type Test } from 'tap'
import { runCli } from '../../src/cli/main.ts'
import type { CliResult } from '../helpers/cli.ts'
import { ACCOUNT, LEAD_STORY, PHONE, STREAM, writeAuditLog } from '../helpers/audit-log.ts'

/** A `leadline` command in this process. */
async function inProcess(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const out: string[] = []
  const err: string[] = []
  const code = await runCli(args, { out: (s) => out.push(s.endsWith('\n') ? s : `${s}\n`), err: (s) => err.push(s.endsWith('\n') ? s : `${s}\n`), env })
  return { code, stdout: out.join(''), stderr: err.join('') }
}

// A replay of the whole log on a busy machine.
const SLOW = { timeout: 300_000 }

async function setup(t: Test) {
  const dir = t.testdir()
  const log = await writeAuditLog(path.join(dir, 'log.db'))
  await log.store.close()
  return { dir, log, env: { LEADLINE_STORE: log.url, LEADLINE_VIEWS: path.join(dir, 'leadline.views.db') } }
}

t.test('audit verify: exit 0 when intact; exit 1 naming the first changed event after the file is edited', SLOW, async (t) => {
  const { log, env } = await setup(t)
  const ok = await inProcess(['audit', 'verify'], env)
  t.equal(ok.code, 0, ok.stderr)
  t.match(ok.stdout, /^hash chains intact: \d+ events in 19 streams, up to position \d+\n$/)
  t.same(JSON.parse((await inProcess(['audit', 'verify', '--json'], env)).stdout).findings, [])

  const db = new Database(log.file)
  const target = db.prepare('SELECT position, id FROM events WHERE stream = ? AND revision = 3').get(STREAM) as { position: number; id: string }
  db.prepare("UPDATE events SET data = json_set(data, '$.to', '+19995550000') WHERE position = ?").run(target.position)
  db.close()

  const bad = await inProcess(['audit', 'verify'], env)
  t.equal(bad.code, 1)
  t.match(bad.stdout, /^TAMPERED: 1 of 19 streams fail verification/)
  t.match(bad.stdout, `${STREAM} revision 3 (position ${target.position}, id ${target.id}): changed: revision 3`)
  t.equal(bad.stderr.trim(), 'leadline: audit verify: 1 stream fails verification')

  const json = await inProcess(['audit', 'verify', '--account', ACCOUNT, '--json'], env)
  t.equal(json.code, 1)
  t.match(JSON.parse(json.stdout), { ok: false, streams: 6, findings: [{ stream: STREAM, problem: 'changed', revision: 3, position: target.position, id: target.id }] })
  t.equal((await inProcess(['audit', 'verify', '--account', 'acc_audit0000000000b'], env)).code, 0, 'another account is intact')
})

t.test('history and replay', SLOW, async (t) => {
  const { env } = await setup(t)
  const history = await inProcess(['history', '--account', ACCOUNT, '--phone', PHONE, '--json'], env)
  t.equal(history.code, 0, history.stderr)
  t.equal(JSON.parse(history.stdout).events.length, LEAD_STORY.length)

  const replay = await inProcess(['replay', '--all'], env)
  t.equal(replay.code, 0, replay.stderr)
  t.match(replay.stdout, /^replayed \d+ events in [\d.]+ s \([\d,]+ events\/s\) into accounts, inbound-leads, calls, stale-leads.*\nswitched over at position \d+ \(\d+ tables, \d+ rows, \d+ ms\); read models sha256:[0-9a-f]{64}\n$/)
  t.equal(replay.stderr, '', 'no progress bar when standard error is not a terminal')
  const verify = await inProcess(['replay', '--verify', '--json'], env)
  t.equal(verify.code, 0, verify.stderr)
  t.match(JSON.parse(verify.stdout), { mode: 'verify', differences: [] })
  const again = await inProcess(['replay', '--json'], env)
  t.equal(JSON.parse(again.stdout).digest, JSON.parse(verify.stdout).digest, 'the same digest each time')

  // A read model changed by hand: verify says where, exits 1; a replay repairs it.
  const views = new Database(env.LEADLINE_VIEWS)
  views.prepare("UPDATE inbound_leads SET full_name = 'Someone Else'").run()
  views.close()
  const differs = await inProcess(['replay', '--verify'], env)
  t.equal(differs.code, 1)
  t.match(differs.stdout, /verify: 1 difference from the live read models at position \d+:\n {2}inbound_leads: 2 rows live, 2 rebuilt, and they differ\n {4}only live: {4}\{.*"full_name":"Someone Else"/)
  t.equal(differs.stderr.trim(), 'leadline: replay --verify: 1 difference between the live and the rebuilt read models')
  t.equal((await inProcess(['replay', '--projection', 'inbound-leads'], env)).code, 0)
  t.equal((await inProcess(['replay', '--verify'], env)).code, 0, 'repaired')
})

t.test('bad input exits 2 with one line', SLOW, async (t) => {
  const { env, dir } = await setup(t)
  const bad: Array<[string[], RegExp]> = [
    [['replay', '--projection', 'nope'], /unknown projection "nope" \(known: accounts, inbound-leads, calls, stale-leads/],
    [['replay', '--projection', 'calls', '--all'], /use either --projection NAME or --all/],
    [['replay', '--bogus'], /Unknown option '--bogus'/],
    [['audit'], /unknown command "audit ": use verify or export/],
    [['audit', 'verify', '--account', 'acc_nobody'], /no events for account acc_nobody/],
    [['history', '--account', ACCOUNT, '--phone', PHONE, '--as-of', 'soon'], /--as-of takes an ISO 8601 time/],
  ]
  for (const [args, message] of bad) {
    const result = await inProcess(args, env)
    t.equal(result.code, 2, `${args.join(' ')}: exit 2`)
    t.match(result.stderr, message)
    t.equal(result.stderr.trim().split('\n').length, 1)
  }
  t.notOk(fs.readdirSync(dir).some((f) => f.includes('.replay-')), 'no scratch database left')
  const help = await inProcess(['help'], env)
  for (const synopsis of ['leadline history --account', 'leadline audit verify', 'leadline audit export --account', 'leadline replay [--projection NAME | --all] [--verify]']) {
    t.match(help.stdout, synopsis)
  }
})
