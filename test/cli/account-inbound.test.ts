/** `leadline account set` for calls in: --business-hours, --inbound-ring, --inbound-ring-mode, --inbound-voicemail, shown by `account show`. */
import path from 'node:path'
import t from 'tap'
import type { Test } from 'tap'
import { runLeadlineInProcess } from '../helpers/cli.ts'

function cli(t: Test) {
  const env = { LEADLINE_STORE: `sqlite:${path.join(t.testdir(), 'leadline.db')}`, LOG_LEVEL: 'silent' }
  return async (...args: string[]) => {
    const { code, stdout, stderr } = await runLeadlineInProcess(args, env)
    return { code, out: stdout, err: stderr }
  }
}

t.test('calls in are account settings: defaults, set, shown, back to the defaults', async (t) => {
  const run = cli(t)
  const created = JSON.parse((await run('account', 'create', '--name', 'Acme Roofing', '--json')).out) as { accountId: string; settings: Record<string, unknown> }
  t.match(created.settings, { businessHours: null, inboundRing: [], inboundRingMode: 'sequential', inboundVoicemail: true }, 'the defaults')
  t.match((await run('account', 'show', created.accountId)).out, /business hours +mon-fri 09:00-18:00 \(the calling hours\)\ninbound ring +\(none[^\n]*\ninbound ring mode +sequential\ninbound voicemail +on \(at most 120 s\)\n/)

  const set = await run(
    'account', 'set', created.accountId, '--business-hours', 'Monday-Friday 8:00-17:00', '--inbound-ring', '+13125550101, +13125550102,+13125550101',
    '--inbound-ring-mode', 'simultaneous', '--inbound-voicemail', 'off', '--json',
  )
  t.equal(set.code, 0, set.err)
  t.match(JSON.parse(set.out).settings, { businessHours: 'mon-fri 08:00-17:00', inboundRing: ['+13125550101', '+13125550102'], inboundRingMode: 'simultaneous', inboundVoicemail: false })
  t.match((await run('account', 'show', created.accountId)).out, /business hours +mon-fri 08:00-17:00\ninbound ring +\+13125550101,\+13125550102\ninbound ring mode +simultaneous\ninbound voicemail +off\n/)

  const back = await run('account', 'set', created.accountId, '--business-hours', 'default', '--inbound-ring', 'none', '--json')
  t.match(JSON.parse(back.out).settings, { businessHours: null, inboundRing: [] })
})

t.test('bad values are refused with the setting named, and nothing changes', async (t) => {
  const run = cli(t)
  const { accountId } = JSON.parse((await run('account', 'create', '--name', 'Acme', '--json')).out) as { accountId: string }
  const cases: Array<[string[], RegExp]> = [
    [['--inbound-ring', '3125550101'], /invalid inboundRing: "3125550101" is not an E\.164 number/],
    [['--inbound-ring', '+13125550101,+13125550102,+13125550103,+13125550104,+13125550105,+13125550106'], /invalid inboundRing: at most 5 numbers/],
    [['--inbound-ring-mode', 'random'], /invalid inboundRingMode: must be sequential or simultaneous/],
    [['--inbound-voicemail', 'maybe'], /--inbound-voicemail takes on or off/],
    [['--business-hours', 'mon-fri 9-25'], /invalid calling hours/],
  ]
  for (const [flags, message] of cases) {
    const result = await run('account', 'set', accountId, ...flags)
    t.not(result.code, 0, flags.join(' '))
    t.match(result.err, message, flags.join(' '))
  }
  const shown = JSON.parse((await run('account', 'show', accountId, '--json')).out) as { settings: Record<string, unknown> }
  t.match(shown.settings, { businessHours: null, inboundRing: [], inboundRingMode: 'sequential', inboundVoicemail: true }, 'nothing changed')
})
