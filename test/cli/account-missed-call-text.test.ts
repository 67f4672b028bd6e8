/** `leadline account set --missed-call-text`: a template, `off`, shown by `account show`; a bad template is refused and nothing changes. */
import path from 'node:path'
import t from 'tap'
import { runLeadlineInProcess } from '../helpers/cli.ts'

t.test('set, show, off, refused', async (t) => {
  const env = { LEADLINE_STORE: `sqlite:${path.join(t.testdir(), 'leadline.db')}`, LOG_LEVEL: 'silent' }
  const run = async (...args: string[]) => runLeadlineInProcess(args, env)
  const created = JSON.parse((await run('account', 'create', '--name', 'Acme', '--json')).stdout) as { accountId: string; settings: { missedCallText: string } }
  t.match(created.settings.missedCallText, /^Hi \{first_name\}, sorry we missed your call at \{business\}\./, 'on by default')
  const set = await run('account', 'set', created.accountId, '--missed-call-text', 'Sorry we missed you, {first_name}! {business}')
  t.equal(set.code, 0, set.stderr)
  t.match(set.stdout, /missed-call text +Sorry we missed you, \{first_name\}! \{business\}\n/)
  t.match((await run('account', 'set', created.accountId, '--missed-call-text', 'off')).stdout, /missed-call text +off \(no text-back after a missed call\)\n/)
  const bad = await run('account', 'set', created.accountId, '--missed-call-text', 'Call {callback_number}')
  t.equal(bad.code, 2)
  t.match(bad.stderr, /invalid missedCallText: unknown placeholder \{callback_number\}/)
  t.match((await run('account', 'show', created.accountId)).stdout, /missed-call text +off/, 'nothing changed')
})
