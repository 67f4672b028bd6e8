/**
 * `leadline demo` (issue #41): on the embedded store and the simulated carrier, one command makes a
 * demo account, pushes five leads and says what happened to each (called, answered, voicemail left,
 * pressed 1, replied by text, opted out), with the console URL; --account uses an existing account.
 */
import path from 'node:path'
import t from 'tap'
import { runLeadline } from '../helpers/cli.ts'

t.test('leadline demo plays the five paths a lead takes and prints them with the console URL', async (t) => {
  const dir = t.testdir()
  const env = { LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}`, PORT: '3111' }
  const started = Date.now()
  const run = await runLeadline(['demo'], env)
  const seconds = (Date.now() - started) / 1000
  t.equal(run.code, 0, run.stderr)
  t.ok(seconds < 30, `printed in ${seconds.toFixed(1)} s`)
  const lines = run.stdout.split('\n')
  const row = (name: string) => lines.find((line) => line.includes(name)) ?? ''
  t.match(lines[0], /^demo account acc_\w+ \(simulated carrier: no real phone was called or texted\)$/)
  t.match(row('Jane Doe'), /called, answered$/)
  t.match(row('Sam Lee'), /called, a machine answered, voicemail left$/)
  t.match(row('Ana Diaz'), /called, answered, pressed 1/)
  t.match(row('Raj Patel'), /replied by text/)
  t.match(row('Kim Moss'), /opted out \(do-not-call\)/)
  t.match(run.stdout, 'see them in the console: http://127.0.0.1:3111/app/leads')

  const accountId = /demo account (acc_\w+)/.exec(lines[0] ?? '')?.[1] ?? ''
  const leads = await runLeadline(['leads', '--account', accountId, '--json'], env)
  t.equal(leads.code, 0, leads.stderr)
  t.equal(JSON.parse(leads.stdout).leads.length, 5, 'the five leads are on the log, in Inbound Leads')

  const again = await runLeadline(['demo', '--account', accountId, '--json'], env)
  t.equal(again.code, 0, again.stderr)
  t.match(JSON.parse(again.stdout), { accountId, consoleUrl: 'http://127.0.0.1:3111/app/leads' })
  const refused = await runLeadline(['demo', '--account', 'acc_nosuchaccount'], env)
  t.equal(refused.code, 2)
})

t.test('leadline demo refuses Twilio credentials: it would call real phones', async (t) => {
  const dir = t.testdir()
  const run = await runLeadline(['demo'], { LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}`, TWILIO_ACCOUNT_SID: `AC${'0'.repeat(32)}`, TWILIO_AUTH_TOKEN: 'x'.repeat(32) })
  t.equal(run.code, 2)
  t.match(run.stderr, /leadline demo runs on the simulated carrier/)
})
