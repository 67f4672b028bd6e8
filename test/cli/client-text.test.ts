/**
 * `leadline text` (send_sms through a running server's tool endpoint) and `leadline account set
 * --messaging-service` (validated, `off` clears it, shown by `account show`).
 */
import path from 'node:path'
import t from 'tap'
import type { Io } from '../../src/cli/cli-io.ts'
import { runCli } from '../../src/cli/main.ts'
import { startServer } from '../helpers/cli.ts'
import { waitFor } from '../helpers/dialing-app.ts'
import { clientSetup, runInProcess } from './client-setup.ts'

t.test('text: a dry run with segments and the sender, the real text, and the same key again', async (t) => {
  const { env, all, reader } = await clientSetup(t)
  const as = { ...env, LEADLINE_API_KEY: all }
  const dry = await runInProcess(['text', '--phone', '312-555-0142', '--body', 'Hi Jane, your quote is ready.', '--dry-run'], as)
  t.equal(dry.code, 0, dry.stderr)
  t.equal(
    dry.stdout,
    'dry run: a text to +13125550142 would go out now (1 segment, GSM-7); nothing was done\n' +
      'sender: texts go from the bare caller ID +15125550100 and may be filtered by carriers (no A2P 10DLC registration without a Messaging Service: leadline account set --messaging-service MG…)\n' +
      'text: Hi Jane, your quote is ready.\n      Reply STOP to opt out.\n',
  )
  const sent = await runInProcess(['text', '--phone', '312-555-0142', '--body', 'Hi Jane, your quote is ready.', '--idempotency-key', 'cli-text-1'], as)
  t.equal(sent.code, 0, sent.stderr)
  t.match(sent.stdout, /^text SMsim\w+ sent to \+13125550142 \(lead ld_\w+, simulated, 1 segment, GSM-7\)\n/)
  const again = await runInProcess(['text', '--phone', '312-555-0142', '--body', 'Hi Jane, your quote is ready.', '--idempotency-key', 'cli-text-1', '--json'], as)
  t.match(JSON.parse(again.stdout), { status: 'sent', message_id: sent.stdout.split(' ')[1] }, 'the same key: the same text')
  t.match(await runInProcess(['text', '--phone', '312-555-0142'], as), { code: 2, stderr: /text needs --body/ })
  t.match(await runInProcess(['text', '--phone', '312-555-0142', '--body', 'Hi'], { ...env, LEADLINE_API_KEY: reader }), { code: 4 }, 'a read key lacks the write scope')
})

t.test('account set --messaging-service: an MG sid, refused otherwise, off clears it', async (t) => {
  const dir = t.testdir()
  const env = { LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}`, LOG_LEVEL: 'silent' }
  const run = async (...args: string[]) => {
    const out: string[] = []
    const err: string[] = []
    const io: Io = { out: (s) => void out.push(s), err: (s) => void err.push(s), env }
    const code = await runCli(args, io)
    return { code, out: out.join('\n'), err: err.join('\n') }
  }
  const created = JSON.parse((await run('account', 'create', '--name', 'Acme Roofing', '--json')).out) as { accountId: string; settings: Record<string, unknown> }
  t.match(created.settings, { messagingService: null })
  const sid = `MG${'a1'.repeat(16)}`
  const set = await run('account', 'set', created.accountId, '--messaging-service', sid, '--json')
  t.equal(set.code, 0, set.err)
  t.match(JSON.parse(set.out).settings, { messagingService: sid })
  t.match((await run('account', 'show', created.accountId)).out, new RegExp(`messaging service +${sid}`))
  const bad = await run('account', 'set', created.accountId, '--messaging-service', 'PN123')
  t.equal(bad.code, 2)
  t.match(bad.err, /invalid messagingService: must be a Twilio Messaging Service SID/)
  t.match(JSON.parse((await run('account', 'set', created.accountId, '--messaging-service', 'off', '--json')).out).settings, { messagingService: null }, 'off clears it')
  t.match((await run('account', 'show', created.accountId)).out, /messaging service +\(none: texts go from the bare caller ID and may be filtered by carriers\)/)
})

t.test('the start-up log names the accounts whose texts go from the bare caller ID', async (t) => {
  const dir = t.testdir()
  const env = { LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}`, LEADLINE_VIEWS: path.join(dir, 'leadline.views.db'), LOG_LEVEL: 'silent' }
  const io: Io = { out: () => {}, err: () => {}, env }
  const created = async (name: string) => {
    const out: string[] = []
    await runCli(['account', 'create', '--name', name, '--json'], { ...io, out: (s) => void out.push(s) })
    return (JSON.parse(out.join('')) as { accountId: string }).accountId
  }
  const bare = await created('Bare Roofing')
  const registered = await created('Registered Roofing')
  await created('No Number Roofing')
  t.equal(await runCli(['account', 'set', bare, '--caller-id', '+13125550100'], io), 0)
  t.equal(await runCli(['account', 'set', registered, '--caller-id', '+13125550101', '--messaging-service', `MG${'b2'.repeat(16)}`], io), 0)
  const server = await startServer({ LEADLINE_STORE: env.LEADLINE_STORE, LEADLINE_VIEWS: env.LEADLINE_VIEWS })
  t.teardown(() => server.stop('SIGKILL'))
  await waitFor('the start-up lines', () => server.output().includes('bare caller ID'))
  const line = server.output().split('\n').find((l) => l.includes('bare caller ID')) as string
  t.match(JSON.parse(line), { level: 40, count: 1, accounts: [bare], msg: /^texts of 1 account go from the bare caller ID and may be filtered by carriers/ })
  t.notMatch(line, registered, 'an account with a Messaging Service is not named')
})
