/** `leadline account set --appointment-confirmation / --appointment-reminders`: each part alone keeps the other, `none` and `off`, shown by `account show`; a bad value is refused and nothing changes. */
import path from 'node:path'
import t from 'tap'
import { runLeadlineInProcess } from '../helpers/cli.ts'

t.test('set, show, off, refused', async (t) => {
  const env = { LEADLINE_STORE: `sqlite:${path.join(t.testdir(), 'leadline.db')}`, LOG_LEVEL: 'silent' }
  const run = async (...args: string[]) => runLeadlineInProcess(args, env)
  const created = JSON.parse((await run('account', 'create', '--name', 'Acme', '--json')).stdout) as { accountId: string; settings: { appointmentTexts: unknown } }
  t.same(created.settings.appointmentTexts, { confirmation: true, remindersMinutesBefore: [1440, 60] }, 'a confirmation and reminders 24 h and 1 h before by default')
  const set = await run('account', 'set', created.accountId, '--appointment-reminders', '2d,90m')
  t.equal(set.code, 0, set.stderr)
  t.match(set.stdout, /appointment confirmation +on\n/, 'the confirmation left as it was')
  t.match(set.stdout, /appointment reminders +2d,90m before the start\n/)
  const off = await run('account', 'set', created.accountId, '--appointment-confirmation', 'off', '--json')
  t.same((JSON.parse(off.stdout) as { settings: { appointmentTexts: unknown } }).settings.appointmentTexts, { confirmation: false, remindersMinutesBefore: [2880, 90] }, 'the reminders left as they were')
  t.match((await run('account', 'set', created.accountId, '--appointment-reminders', 'none')).stdout, /appointment reminders +none\n/)
  const bad = await run('account', 'set', created.accountId, '--appointment-reminders', '10m')
  t.equal(bad.code, 2)
  t.match(bad.stderr, /invalid appointmentTexts\.remindersMinutesBefore\.0: each reminder at least 15 minutes before/)
  const unreadable = await run('account', 'set', created.accountId, '--appointment-reminders', 'tomorrow')
  t.equal(unreadable.code, 2)
  t.match(unreadable.stderr, /--appointment-reminders takes times before the start such as 24h,1h/)
  t.match((await run('account', 'show', created.accountId)).stdout, /appointment confirmation +off\n[^\n]*appointment reminders +none\n/, 'nothing changed')
})
