/**
 * `leadline audit export`: an account's events as JSON Lines with their hashes; and the script in
 * docs/audit.md#verify-an-export, run as the page prints it, re-verifies such an export with nothing
 * but a JSON canonicaliser and SHA-256.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { runCli } from '../../src/cli/main.ts'
import { ACCOUNT, ALERT_STORIES, OTHER_ACCOUNT, OTHER_ACCOUNT_STORY, RECORDING_URL, SEALED_SECRET, STREAM, TRANSCRIPT, USER_STORY, writeAuditLog } from '../helpers/audit-log.ts'

const ROOT = new URL('../../', import.meta.url)

async function cli(args: string[], file: string) {
  const out: string[] = []
  const err: string[] = []
  const code = await runCli(args, { out: (s) => out.push(s), err: (s) => err.push(s), env: { LEADLINE_STORE: `sqlite:${file}` } })
  return { code, stdout: out.join(''), stderr: err.join('\n') }
}

/** The verification script exactly as docs/audit.md prints it. */
function documentedScript(): string {
  const page = fs.readFileSync(new URL('docs/audit.md', ROOT), 'utf8')
  const section = page.slice(page.indexOf('## Verify an export'))
  const match = /```js\n([\s\S]*?)```/.exec(section)
  if (!match) throw new Error('docs/audit.md: no ```js block under "Verify an export"')
  return match[1] as string
}

function runScript(script: string, exportFile: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, exportFile], { cwd: path.dirname(script) }, (error, stdout) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout })
    })
  })
}

const dir = t.testdir()
const log = await writeAuditLog(path.join(dir, 'log.db'))
await log.store.close()
// The script must find `canonicalize`; the test directory sits inside the checkout, whose node_modules has it.
const script = path.join(dir, 'verify-export.mjs')
fs.writeFileSync(script, documentedScript())

t.test('an export holds every event of the account, in log order, with its hashes; recordings redacted', async (t) => {
  const result = await cli(['audit', 'export', '--account', ACCOUNT], log.file)
  t.equal(result.code, 0, result.stderr)
  const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
  t.ok(lines.every((l) => typeof l.stream === 'string' && (l.stream as string).includes(ACCOUNT)), 'only the account\'s streams')
  t.same([...new Set(lines.map((l) => (l.stream as string).split('-')[0]))], ['account', 'lead', 'idempotency', 'slot', 'apptday', 'calsync'])
  t.ok(lines.every((l, i) => i === 0 || (l.position as number) > (lines[i - 1]?.position as number)), 'log order')
  t.same(Object.keys(lines[0] ?? {}), ['position', 'stream', 'revision', 'id', 'type', 'data', 'metadata', 'recordedAt', 'prevHash', 'hash'])
  const redacted = lines.filter((l) => l.redacted === true)
  t.same(redacted.map((l) => l.type), ['WebhookTokenIssued', 'ApiKeyCreated', 'GoogleKeySet', 'CallRecordingAvailable', 'CallTranscriptAvailable', 'TextReceived', 'AssistantTranscriptRecorded'], 'recordings, transcripts (and texts) and secret hashes')
  t.notOk(result.stdout.includes(RECORDING_URL) || result.stdout.includes(TRANSCRIPT), 'no recording or transcript in the export')
  t.match(result.stderr, new RegExp(`^exported ${lines.length} events in 6 streams of account ${ACCOUNT}; 4 with recordings or transcripts removed`))

  const full = await cli(['audit', 'export', '--account', ACCOUNT, '--include-recordings'], log.file)
  t.ok(full.stdout.includes(RECORDING_URL) && full.stdout.includes(TRANSCRIPT), '--include-recordings exports them as stored')
  t.same(full.stdout.trim().split('\n').filter((l) => l.includes('"redacted":true')).map((l) => (JSON.parse(l) as { type: string }).type), ['WebhookTokenIssued', 'ApiKeyCreated', 'GoogleKeySet'], 'only the secret hashes left out')

  const other = await cli(['audit', 'export', '--account', OTHER_ACCOUNT], log.file)
  // Its account and its lead's events (its appointments' texts too), its events subscription, its owner alerts and its console user's story, the password hash left out.
  t.equal(other.stdout.trim().split('\n').length, 16 + OTHER_ACCOUNT_STORY.length + ALERT_STORIES.reduce((n, [, events]) => n + events.length, 0) + USER_STORY.length)
  t.notOk(other.stdout.includes(SEALED_SECRET) || other.stdout.includes('llsealed1.'), 'no sealed signing secret in the export')
  t.match(other.stdout, /"type":"EventsSubscribed","data":\{"subscriptionId":"sub_audit00000000b","url":"https:\/\/crm.example.com\/hooks","types":\["lead.received","call.answered"\],"secretHint":"whsec_abcd…","subscribedAt":"[^"]+"\},.*"redacted":true/)
  t.notOk(other.stdout.includes('scrypt$'), 'no password hash in the export')
  t.match(other.stdout, /"type":"PasswordSet".*"redacted":true/)
})

t.test('no export carries a secret\'s hash, with --include-recordings or without', async (t) => {
  const secretHashes = ['a'.repeat(64), 'b'.repeat(64), 'e'.repeat(64), 'f'.repeat(64), 'scrypt$']
  for (const [account, flags] of [[ACCOUNT, []], [ACCOUNT, ['--include-recordings']], [OTHER_ACCOUNT, []], [OTHER_ACCOUNT, ['--include-recordings']]] as const) {
    const result = await cli(['audit', 'export', '--account', account, ...flags], log.file)
    t.equal(result.code, 0, result.stderr)
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown>; redacted?: true })
    const name = `${account} ${flags.join(' ')}`
    t.notOk(secretHashes.some((hash) => result.stdout.includes(hash)), `${name}: no token, key, session, link or password hash`)
    t.notOk(/"(tokenHash|keyHash|passwordHash)"/.test(result.stdout), `${name}: no field that holds one`)
    for (const line of lines.filter((l) => ['WebhookTokenIssued', 'ApiKeyCreated', 'PasswordSetupIssued', 'PasswordSet', 'SignedIn'].includes(l.type))) {
      t.equal(line.redacted, true, `${name}: ${line.type} is marked redacted`)
    }
  }
  const full = await cli(['audit', 'export', '--account', ACCOUNT, '--include-recordings'], log.file)
  t.match(full.stderr, /; 3 with secrets removed \(hashes, sealed secrets\) \("redacted": true\)$/)
  t.match(full.stdout, /"type":"ApiKeyCreated","data":\{"keyId":"[^"]+","hint":"ll_live_abcd…"/, 'the rest of the event stays: the key id and its hint')
})

t.test('the documented script re-verifies an export, and finds what was changed in it', async (t) => {
  for (const flags of [[], ['--include-recordings']]) {
    const file = path.join(dir, `export${flags.length}.jsonl`)
    const result = await cli(['audit', 'export', '--account', ACCOUNT, '--output', file, ...flags], log.file)
    t.equal(result.code, 0, result.stderr)
    t.match(result.stdout, `to ${file}`)
    const count = fs.readFileSync(file, 'utf8').trim().split('\n').length
    const verified = await runScript(script, file)
    t.equal(verified.code, 0, verified.stdout)
    t.equal(verified.stdout.trim(), `ok: ${count} events in 6 streams`, flags.join(' ') || 'default export')
  }

  const lines = fs.readFileSync(path.join(dir, 'export1.jsonl'), 'utf8').trim().split('\n')
  const at = lines.findIndex((line) => line.includes('"type":"LeadUpdated"'))
  const changed = [...lines]
  changed[at] = (lines[at] as string).replace('jane@new.example.com', 'someone@else.example.com')
  fs.writeFileSync(path.join(dir, 'changed.jsonl'), `${changed.join('\n')}\n`)
  const caught = await runScript(script, path.join(dir, 'changed.jsonl'))
  t.equal(caught.code, 1)
  t.match(caught.stdout, new RegExp(`line ${at + 1}: ${STREAM} revision \\d+: hash does not match the contents`))

  const removed = lines.filter((_, i) => i !== at)
  fs.writeFileSync(path.join(dir, 'removed.jsonl'), `${removed.join('\n')}\n`)
  const gap = await runScript(script, path.join(dir, 'removed.jsonl'))
  t.equal(gap.code, 1)
  t.match(gap.stdout, /expected revision \d+; prevHash is not the hash of the event before it/)
})

t.test('export: bad input exits 2 and writes nothing', async (t) => {
  const existing = path.join(dir, 'export0.jsonl')
  const before = fs.readFileSync(existing)
  const bad: Array<[string[], RegExp]> = [
    [['audit', 'export'], /--account is required/],
    [['audit', 'export', '--account', 'acc_nobody'], /no events for account acc_nobody/],
    [['audit', 'export', '--account', ACCOUNT, '--output', existing], /exists already; export writes a new file/],
    [['audit', 'frobnicate'], /unknown command "audit frobnicate": use verify or export/],
  ]
  for (const [args, message] of bad) {
    const result = await cli(args, log.file)
    t.equal(result.code, 2, args.join(' '))
    t.match(result.stderr, message)
  }
  t.ok(fs.readFileSync(existing).equals(before), 'the existing file is untouched')
  t.notOk(fs.existsSync(path.join(dir, 'nobody.jsonl')))
  const missing = await cli(['audit', 'export', '--account', 'acc_nobody', '--output', path.join(dir, 'nobody.jsonl')], log.file)
  t.equal(missing.code, 2)
  t.notOk(fs.existsSync(path.join(dir, 'nobody.jsonl')), 'no empty file left behind')
})
