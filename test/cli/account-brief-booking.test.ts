/** `leadline account brief --appointment-type`: the type the voice assistant books, refused when unknown, and the `appointments` line saying whether it books and why not. */
import path from 'node:path'
import t from 'tap'
import { runLeadlineInProcess } from '../helpers/cli.ts'

t.test('the brief names the appointment type the assistant books; the brief shows whether it books', async (t) => {
  const env = { LEADLINE_STORE: `sqlite:${path.join(t.testdir(), 'leadline.db')}`, LOG_LEVEL: 'silent' }
  const run = (...args: string[]) => runLeadlineInProcess(args, env)
  const { accountId } = JSON.parse((await run('account', 'create', '--name', 'Acme Roofing', '--json')).stdout) as { accountId: string }
  t.match((await run('account', 'brief', accountId)).stdout, /\nappointments +not booked: the account has no appointment types\n/)

  const unknown = await run('account', 'brief', accountId, '--appointment-type', 'estimate')
  t.equal(unknown.code, 2)
  t.match(unknown.stderr, /invalid assistantBrief\.appointmentTypeId: no appointment type "estimate" in this account \(it has none yet/)

  t.equal((await run('calendar', 'connect', '--account', accountId, '--simulated')).code, 0)
  const add = (id: string, name: string) => run('calendar', 'type', 'add', '--account', accountId, '--id', id, '--name', name, '--duration', '60', '--hours', 'mon-fri 09:00-12:00')
  t.equal((await add('estimate', 'Roof estimate')).code, 0)
  t.match((await run('account', 'brief', accountId)).stdout, /\nappointments +books Roof estimate \(estimate\)\n/, "the account's only type, unnamed")
  t.equal((await add('call', 'Quick call')).code, 0)
  t.match((await run('account', 'brief', accountId)).stdout, /\nappointments +not booked: the account has 2 appointment types and the brief's appointmentTypeId names none of them \(estimate, call\)\n/)

  const named = await run('account', 'brief', accountId, '--appointment-type', 'call', '--json')
  t.equal(named.code, 0, named.stderr)
  t.equal(JSON.parse(named.stdout).appointmentTypeId, 'call')
  t.match((await run('account', 'brief', accountId)).stdout, /\nappointments +books Quick call \(call\)\n/)
  t.equal((await run('calendar', 'type', 'remove', '--account', accountId, 'call')).code, 0)
  t.match((await run('account', 'brief', accountId)).stdout, /\nappointments +not booked, fix the setting: the brief's appointmentTypeId names appointment type "call", which this account does not have \(name one of estimate, or none\)\n/)
  t.equal((await run('account', 'brief', accountId, '--appointment-type', 'none')).code, 0)
  t.match((await run('account', 'brief', accountId)).stdout, /\nappointments +books Roof estimate \(estimate\)\n/)
})
