/**
 * A sealed secret on the log (an outbound events signing secret, a page access token) never leaves
 * through `audit export`, even with --include-recordings, nor through `leadline history`: the export
 * marks the event `"redacted": true` and counts it with the secrets removed.
 */
import path from 'node:path'
import t from 'tap'
import { runCli } from '../../src/cli/main.ts'
import { openSecretBox } from '../../src/integrations/secrets/open-secret-box.ts'
import { ACCOUNT, PHONE, STREAM, newEvent, operator, writeAuditLog } from '../helpers/audit-log.ts'

const SECRET = 'whsec_c2VhbGVkLXNlY3JldC1mb3ItdGhlLXRlc3Q='

const dir = t.testdir()
const file = path.join(dir, 'log.db')
const env = { LEADLINE_STORE: `sqlite:${file}`, LOG_LEVEL: 'silent' }

const log = await writeAuditLog(file)
const sealed = openSecretBox(env.LEADLINE_STORE, env).seal(SECRET, `test:${ACCOUNT}`)
// A stream of its own: the account's stream folds only the account's own event types.
await log.store.appendToStream(`example-${ACCOUNT}`, [newEvent({ type: 'ExampleSecretSealed', data: { id: 'sub_1', sealedSecret: sealed, url: 'https://example.com/hook' } }, operator)], 'any')
await log.store.appendToStream(STREAM, [newEvent({ type: 'ExampleLeadNote', data: { note: 'kept', token: sealed } }, operator)], 'any')
await log.store.close()

async function cli(args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await runCli(args, { out: (s) => out.push(s), err: (s) => err.push(s), env })
  return { code, stdout: out.join(''), stderr: err.join('\n') }
}

t.test('audit export: the sealed value is removed and the event marked redacted, whatever the flags', async (t) => {
  for (const flags of [[], ['--include-recordings']]) {
    const result = await cli(['audit', 'export', '--account', ACCOUNT, ...flags])
    t.equal(result.code, 0, result.stderr)
    t.notOk(result.stdout.includes(sealed) || result.stdout.includes('llsealed1.') || result.stdout.includes(SECRET), `no ciphertext, no secret (${flags.join(' ') || 'default'})`)
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown>; redacted?: true })
    const event = lines.find((l) => l.type === 'ExampleSecretSealed')
    t.same(event?.data, { id: 'sub_1', url: 'https://example.com/hook' }, 'the rest of the event is kept')
    t.equal(event?.redacted, true)
    t.match(result.stderr, /with secrets removed/)
  }
})

t.test('leadline history: the sealed value is not shown, as text or JSON', async (t) => {
  for (const flags of [[], ['--json']]) {
    const result = await cli(['history', '--account', ACCOUNT, '--phone', PHONE, ...flags])
    t.equal(result.code, 0, result.stderr)
    t.notOk(result.stdout.includes('llsealed1.') || result.stdout.includes(SECRET), `not in ${flags.join(' ') || 'text'}`)
  }
})
