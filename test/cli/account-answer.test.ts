/** `leadline account set` for what happens when the phone is answered: --amd, --voicemail, --voicemail-url, --voicemail-per-day, shown by `account show`. */
import path from 'node:path'
import t from 'tap'
import type { Test } from 'tap'
import { runLeadlineInProcess } from '../helpers/cli.ts'

/** `leadline …` in this process, on a store of the test's own. */
function cli(t: Test) {
  const env = { LEADLINE_STORE: `sqlite:${path.join(t.testdir(), 'leadline.db')}`, LOG_LEVEL: 'silent' }
  return async (...args: string[]) => {
    const { code, stdout, stderr } = await runLeadlineInProcess(args, env)
    return { code, out: stdout, err: stderr }
  }
}

t.test('machine detection and the voicemail are account settings', async (t) => {
  const run = cli(t)
  const created = JSON.parse((await run('account', 'create', '--name', 'Acme Roofing', '--json')).out) as { accountId: string; settings: Record<string, unknown> }
  t.match(created.settings, { amd: true, voicemail: /^Hi \{first_name\}, this is \{business\}/, voicemailUrl: null, voicemailPerDay: 1 }, 'the defaults')
  const fresh = await run('account', 'show', created.accountId)
  t.match(fresh.out, /machine detection +on\nvoicemail +Hi \{first_name\}, this is \{business\}.*\nvoicemail recording +\(none: the voicemail text is spoken\)\nvoicemails per day +1\n/)

  const set = await run(
    'account', 'set', created.accountId,
    '--amd', 'off', '--voicemail', 'Hi {first_name}, {business} here. Call {callback_number}.',
    '--voicemail-url', 'https://example.com/vm.mp3', '--voicemail-per-day', '2', '--json',
  )
  t.equal(set.code, 0, set.err)
  t.match(JSON.parse(set.out).settings, { amd: false, voicemail: 'Hi {first_name}, {business} here. Call {callback_number}.', voicemailUrl: 'https://example.com/vm.mp3', voicemailPerDay: 2 })
  const shown = await run('account', 'show', created.accountId)
  t.match(shown.out, /machine detection +off \(a voicemail pickup counts as an answer\)\nvoicemail +Hi \{first_name\}, \{business\} here\. Call \{callback_number\}\.\nvoicemail recording +https:\/\/example\.com\/vm\.mp3\nvoicemails per day +2\n/)

  const back = await run('account', 'set', created.accountId, '--amd', 'on', '--voicemail-url', 'none', '--voicemail-per-day', '0', '--json')
  t.match(JSON.parse(back.out).settings, { amd: true, voicemailUrl: null, voicemailPerDay: 0 }, 'none speaks the text again; 0 leaves no voicemail')
  t.match((await run('account', 'show', created.accountId)).out, /voicemails per day +0 \(none left\)/)
})

t.test('bad values are refused with the flag or the setting named', async (t) => {
  const run = cli(t)
  const { accountId } = JSON.parse((await run('account', 'create', '--name', 'Acme', '--json')).out) as { accountId: string }

  const cases: Array<[string[], RegExp]> = [
    [['--amd', 'yes'], /--amd takes on or off/],
    [['--voicemail-per-day', 'one'], /--voicemail-per-day takes a whole number: voicemails to one lead in any 24 hours, 0 to 5/],
    [['--voicemail-per-day=-1'], /--voicemail-per-day takes a whole number/],
    [['--voicemail-per-day', '6'], /invalid voicemailPerDay: must be at most 5/],
    [['--voicemail', '  '], /invalid voicemail: must not be empty/],
    [['--voicemail', 'Hi {name}'], /invalid voicemail: unknown placeholder \{name\} \(use \{first_name\}, \{business\}, \{callback_number\}\)/],
    [['--voicemail-url', 'ftp://example.com/vm.mp3'], /invalid voicemailUrl: must be an http\(s\) URL of a recording/],
    [['--voicemail-url', 'vm.mp3'], /invalid voicemailUrl: must be an http\(s\) URL of a recording/],
  ]
  for (const [flags, message] of cases) {
    const result = await run('account', 'set', accountId, ...flags)
    t.equal(result.code, 2, flags.join(' '))
    t.match(result.err, message, flags.join(' '))
  }
})
