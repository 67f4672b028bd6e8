/** The operator commands (account, key, token, help) run in this process through `runCli`; operator-cli.test.ts runs the command as a process. */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { runLeadlineInProcess } from '../helpers/cli.ts'
import { COMMANDS, USAGE, commandUsage } from '../../src/cli/main.ts'

function envFor(dir: string): NodeJS.ProcessEnv {
  return { LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}`, LEADLINE_PUBLIC_URL: 'https://leads.example.com' }
}

t.test('account, key and token commands: readable output, --json, and exit 2 on bad input', async (t) => {
  const env = envFor(t.testdir())

  const created = await runLeadlineInProcess(['account', 'create', '--name', 'Acme Solar', '--timezone', 'America/Chicago', '--json'], env)
  t.equal(created.code, 0, created.stderr)
  const account = JSON.parse(created.stdout)
  t.match(account, {
    accountId: /^acc_/,
    name: 'Acme Solar',
    settings: { timeZone: 'America/Chicago', speedToLead: false, callingHours: 'mon-fri 09:00-18:00', defaultCountry: 'US' },
    webhookToken: { tokenId: /^wht_/, token: /^llwh_[0-9a-z]{32}$/ },
    webhookUrl: 'https://leads.example.com/api/ingest/lead',
  })

  const readable = await runLeadlineInProcess(['account', 'create', '--name', 'Second'], env)
  t.equal(readable.code, 0)
  t.match(readable.stdout, /account acc_\w+ created: Second\nwebhook token \(shown once, store it now\): llwh_\w+\nwebhook URL: https:\/\/leads\.example\.com\/api\/ingest\/lead/)

  const list = await runLeadlineInProcess(['account', 'list', '--json'], env)
  t.same(JSON.parse(list.stdout).map((a: { name: string }) => a.name), ['Acme Solar', 'Second'])
  t.match((await runLeadlineInProcess(['account', 'list'], env)).stdout, /account\s+name\s+time zone[\s\S]*Acme Solar/)

  const set = await runLeadlineInProcess(['account', 'set', account.accountId, '--speed-to-lead', 'on', '--calling-hours', 'mon-fri 08:00-20:00, sat 10:00-14:00', '--caller-id', '+15125550100', '--industry', 'solar', '--json'], env)
  t.equal(set.code, 0, set.stderr)
  t.match(JSON.parse(set.stdout).settings, { speedToLead: true, callingHours: 'mon-fri 08:00-20:00, sat 10:00-14:00', callerId: '+15125550100', industry: 'solar' })
  t.match((await runLeadlineInProcess(['account', 'show', account.accountId], env)).stdout, /speed to lead\s+on\ncalling hours\s+mon-fri 08:00-20:00, sat 10:00-14:00/)
  t.match((await runLeadlineInProcess(['account', 'show', account.accountId], env)).stdout, /allowed countries\s+US \(the default country\)\nplace_call also\s+\(no other country\)/)

  // Destinations: the countries any call may go to, and the further ones place_call may ring.
  const countries = await runLeadlineInProcess(['account', 'set', account.accountId, '--allowed-countries', 'us,CA', '--place-call-countries', 'GB', '--json'], env)
  t.equal(countries.code, 0, countries.stderr)
  t.match(JSON.parse(countries.stdout).settings, { allowedCountries: ['US', 'CA'], placeCallCountries: ['GB'] })
  t.match((await runLeadlineInProcess(['account', 'show', account.accountId], env)).stdout, /allowed countries\s+US,CA\nplace_call also\s+GB/)
  const unknown = await runLeadlineInProcess(['account', 'set', account.accountId, '--allowed-countries', 'US,XX'], env)
  t.equal(unknown.code, 2)
  t.match(unknown.stderr, /invalid allowedCountries: unknown country code XX/)
  const reset = await runLeadlineInProcess(['account', 'set', account.accountId, '--allowed-countries', 'default', '--place-call-countries', 'none', '--json'], env)
  t.match(JSON.parse(reset.stdout).settings, { allowedCountries: null, placeCallCountries: null })

  // Bad input: one line on stderr, exit 2, nothing changed.
  const badInputs: Array<[string[], RegExp]> = [
    [['account', 'set', account.accountId, '--calling-hours', 'mon 25:00-26:00'], /invalid calling hours/],
    [['account', 'set', account.accountId, '--timezone', 'Mars/Base'], /invalid timeZone: unknown IANA time zone/],
    [['account', 'set', account.accountId, '--speed-to-lead', 'maybe'], /--speed-to-lead takes on or off/],
    [['account', 'set', account.accountId], /nothing to set/],
    [['account', 'set', 'acc_missing', '--speed-to-lead', 'on'], /no account acc_missing/],
    [['account', 'create'], /--name is required/],
    [['account', 'create', '--name', 'x', '--bogus'], /Unknown option '--bogus'/],
    [['account', 'frobnicate'], /unknown command "account frobnicate"/],
    [['key', 'create', '--account', account.accountId, '--scopes', 'read,admin'], /unknown scope admin/],
    [['key', 'revoke', 'key_missing'], /no key key_missing/],
    [['frobnicate'], /unknown command "frobnicate"/],
  ]
  for (const [args, message] of badInputs) {
    const result = await runLeadlineInProcess(args, env)
    t.equal(result.code, 2, `${args.join(' ')}: exit 2`)
    t.match(result.stderr, message, args.join(' '))
    t.equal(result.stderr.trim().split('\n').length, 1, `${args.join(' ')}: one line`)
  }
  t.match(JSON.parse((await runLeadlineInProcess(['account', 'show', account.accountId, '--json'], env)).stdout).settings, { callingHours: 'mon-fri 08:00-20:00, sat 10:00-14:00', timeZone: 'America/Chicago' }, 'the failed commands changed nothing')

  const key = await runLeadlineInProcess(['key', 'create', '--account', account.accountId, '--scopes', 'dial,read', '--label', 'agent', '--json'], env)
  t.equal(key.code, 0, key.stderr)
  const keyJson = JSON.parse(key.stdout)
  t.match(keyJson, { keyId: /^key_/, key: /^ll_live_[0-9a-z]{32}$/, scopes: ['read', 'dial'], label: 'agent' })
  const keys = JSON.parse((await runLeadlineInProcess(['key', 'list', '--account', account.accountId, '--json'], env)).stdout)
  t.match(keys, [{ keyId: keyJson.keyId, scopes: ['read', 'dial'], label: 'agent', lastUsedAt: null, revokedAt: null }])
  t.notOk(JSON.stringify(keys).includes(keyJson.key), 'a listed key never shows the secret')
  t.match((await runLeadlineInProcess(['key', 'list', '--account', account.accountId], env)).stdout, /last used.*\n.*never\s+active/, 'an unused key: never')
  t.equal((await runLeadlineInProcess(['key', 'revoke', keyJson.keyId], env)).code, 0)
  t.match((await runLeadlineInProcess(['key', 'list', '--account', account.accountId], env)).stdout, /revoked 20/)

  const rotated = JSON.parse((await runLeadlineInProcess(['token', 'rotate', '--account', account.accountId, '--json'], env)).stdout)
  t.match(rotated, { accountId: account.accountId, tokenId: /^wht_/, token: /^llwh_/ })
  t.not(rotated.token, account.webhookToken.token)

  const usage = await runLeadlineInProcess(['account', 'set', account.accountId, '--speed-to-lead', 'maybe'], env)
  t.equal(usage.code, 2, 'the real binary exits 2 on bad input')
  t.equal(usage.stderr.trim(), 'leadline: --speed-to-lead takes on or off')
  t.equal((await runLeadlineInProcess([], env)).code, 2, 'no command: usage, exit 2')
  t.match((await runLeadlineInProcess(['help'], env)).stdout, /leadline account create --name NAME/)
})

t.test('every command answers --help, -h and `help COMMAND` with its own usage, exit 0, touching nothing', async (t) => {
  const dir = t.testdir()
  const env = { LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}` }
  for (const name of Object.keys(COMMANDS)) {
    const usage = commandUsage(name)
    t.ok(usage, `USAGE documents ${name}`)
    // Its own lines, every one of them from the full usage, and no other command's.
    const lines = (usage as string).split('\n')
    const commandLines = lines.filter((line) => line.startsWith('  leadline '))
    t.ok(commandLines.length > 0 && commandLines.every((line) => line === `  leadline ${name}` || line.startsWith(`  leadline ${name} `)), `${name}: only its own lines`)
    t.ok(lines.every((line) => line === '' || line === 'usage:' || USAGE.includes(line)), `${name}: lines as USAGE has them`)
    for (const args of [[name, '--help'], [name, '-h'], ['help', name]]) {
      const result = await runLeadlineInProcess(args, env)
      t.equal(result.code, 0, `${args.join(' ')}: exit 0`)
      t.equal(result.stdout.trim(), (usage as string).trim(), `${args.join(' ')}: its usage`)
      t.equal(result.stderr, '', `${args.join(' ')}: no error`)
    }
  }
  // A subcommand's --help is the command's usage too, and runs nothing.
  const leads = await runLeadlineInProcess(['leads', '--account', 'acc_nope', '--help'], env)
  t.match(leads.stdout, /^usage:\n  leadline leads --account ACCOUNT_ID[^\n]*\n  leadline leads clear-dnc/)
  t.notMatch(leads.stdout, /leadline lead --phone/, 'lead is not leads')
  t.equal((await runLeadlineInProcess(['account', 'create', '--name', 'X', '-h'], env)).code, 0)
  t.notOk(fs.existsSync(path.join(dir, 'leadline.db')), 'no store was opened, so nothing was created')
  const unknown = await runLeadlineInProcess(['help', 'nope'], env)
  t.equal(unknown.code, 2)
  t.equal(unknown.stderr.trim(), 'leadline: unknown command "nope" (leadline help lists them)')
})
