/**
 * `leadline number list|search|buy|use` in this process through `runCli` (issue #43): with Twilio (the
 * official SDK against the fake Twilio) and with the simulated carrier; a table like the other
 * commands', --json, the price before a purchase and the purchase only with --yes, once; exit 2 on
 * bad input with nothing changed, exit 1 when the carrier did not sell.
 */
import path from 'node:path'
import t from 'tap'
import { runLeadlineInProcess } from '../helpers/cli.ts'
import { startFakeTwilio, twilioEnv } from '../doubles/fake-twilio.ts'
import { commandUsage } from '../../src/cli/main.ts'

const OWNED = '+13125550100'
const FOR_SALE = '+13125550181'

t.test('with Twilio: list, search, buy (price, then --yes, once), use', async (t) => {
  const fake = await startFakeTwilio({ incomingNumbers: [OWNED] })
  t.teardown(() => fake.close())
  const env = { LEADLINE_STORE: `sqlite:${path.join(t.testdir(), 'leadline.db')}`, LEADLINE_PUBLIC_URL: 'https://leads.example.com', ...twilioEnv(fake) }
  const created = await runLeadlineInProcess(['account', 'create', '--name', 'Acme Roofing', '--json'], env)
  const accountId = JSON.parse(created.stdout).accountId as string

  const list = await runLeadlineInProcess(['number', 'list', '--account', accountId], env)
  t.equal(list.code, 0, list.stderr)
  t.match(list.stdout, /^number\s+takes\s+used by\s+caller id\s+webhooks\n\+13125550100\s+voice,sms\s+-\s+not set\n$/)

  const search = await runLeadlineInProcess(['number', 'search', '--area-code', '312'], env)
  t.equal(search.code, 0, search.stderr)
  t.match(search.stdout, /^number\s+where\s+takes\s+monthly\n\+13125550181\s+Chicago, IL, 60601\s+voice,sms\s+1\.15 USD\n/)
  t.same(JSON.parse((await runLeadlineInProcess(['number', 'search', '--zip', '60611', '--json'], env)).stdout).map((n: { number: string }) => n.number), ['+13125550183'])

  const asked = await runLeadlineInProcess(['number', 'buy', '--account', accountId, '--number', FOR_SALE], env)
  t.equal(asked.code, 0, asked.stderr)
  t.equal(asked.stdout, `would buy ${FOR_SALE} from twilio (1.15 USD a month): nothing was bought; add --yes to buy it\n`)
  t.same(fake.numbers.purchases(), [], 'the confirm step buys nothing')
  const bought = await runLeadlineInProcess(['number', 'buy', '--account', accountId, '--number', FOR_SALE, '--yes'], env)
  t.equal(bought.code, 0, bought.stderr)
  t.match(bought.stdout, /^bought \+13125550181 from twilio \(PN[0-9a-f]{32}, 1\.15 USD a month\)\nnext: leadline number use --account acc_\w+ --number \+13125550181\n$/)
  const again = await runLeadlineInProcess(['number', 'buy', '--account', accountId, '--number', FOR_SALE, '--yes', '--json'], env)
  t.match(JSON.parse(again.stdout), { stage: 'bought', number: FOR_SALE })
  t.same(fake.numbers.purchases(), [FOR_SALE], 'bought once')

  const used = await runLeadlineInProcess(['number', 'use', '--account', accountId, '--number', FOR_SALE], env)
  t.equal(used.code, 0, used.stderr)
  t.match(used.stdout, `${FOR_SALE} is in use for account ${accountId}: calls and texts to it come here\n`)
  t.match(used.stdout, /voice url\s+https:\/\/leads\.example\.com\/api\/carrier\/twilio\/voice \(POST; was not set\)\n/)
  t.match(used.stdout, /voice status\s+https:\/\/leads\.example\.com\/api\/carrier\/twilio\/voice-status \(POST; was not set\)\n/)
  t.match(used.stdout, /sms url\s+https:\/\/leads\.example\.com\/api\/carrier\/twilio\/sms \(POST; was not set\)\n/)
  t.match(used.stdout, /caller id\s+\+13125550181 \(was not set: the account had no caller ID\)/)
  t.match(fake.numbers.updates()[0]?.form, { VoiceUrl: 'https://leads.example.com/api/carrier/twilio/voice', VoiceMethod: 'POST', SmsMethod: 'POST', StatusCallbackMethod: 'POST' })
  t.match((await runLeadlineInProcess(['number', 'list', '--account', accountId], env)).stdout, /\+13125550181\s+voice,sms\s+this account \(in use\)\s+yes\s+Leadline/)

  const other = JSON.parse((await runLeadlineInProcess(['account', 'create', '--name', 'Other', '--json'], env)).stdout).accountId as string
  const refused = await runLeadlineInProcess(['number', 'use', '--account', other, '--number', FOR_SALE], env)
  t.equal(refused.code, 2)
  t.match(refused.stderr, /^leadline: the number \+13125550181 was bought by another account/)

  const notSold = await runLeadlineInProcess(['number', 'buy', '--account', accountId, '--number', '+13125550199', '--yes'], env)
  t.equal(notSold.code, 1, 'the carrier did not sell: a failure, exit 1')
  t.match(notSold.stderr, /leadline: \+13125550199 was not bought \(rejected\): twilio rejected the number purchase \(HTTP 400, code 21422\)/)
})

t.test('the simulated carrier, bad input, and --help', async (t) => {
  const env = { LEADLINE_STORE: `sqlite:${path.join(t.testdir(), 'leadline.db')}` }
  const accountId = JSON.parse((await runLeadlineInProcess(['account', 'create', '--name', 'Acme', '--json'], env)).stdout).accountId as string
  const search = await runLeadlineInProcess(['number', 'search', '--area-code', '415', '--limit', '3'], env)
  t.equal(search.code, 0, search.stderr)
  t.match(search.stdout, /^number\s+where\s+takes\s+monthly\n(\+141555501\d\d\s+Simulated \(area code 415\)\s+voice,sms\s+-\n){3}carrier: simulated — fictional 555-01xx numbers, nothing rings\n$/)
  const number = /\+141555501\d\d/.exec(search.stdout)?.[0] as string
  t.match((await runLeadlineInProcess(['number', 'buy', '--account', accountId, '--number', number, '--yes'], env)).stdout, `bought ${number} from simulated`)
  t.match((await runLeadlineInProcess(['number', 'use', '--account', accountId, '--number', number], env)).stdout, /webhooks\s+none to set: the simulated carrier plays calls and texts inside Leadline/)
  t.match((await runLeadlineInProcess(['number', 'list', '--account', accountId], env)).stdout, new RegExp(`\\${number}\\s+voice,sms\\s+this account \\(in use\\)\\s+yes\\s+none \\(simulated\\)\\ncarrier: simulated`))

  const bad: Array<[string[], RegExp]> = [
    [['number', 'search'], /say where: an area code, a ZIP code, a state, or a number to search near/],
    [['number', 'search', '--zip', '123'], /ZIP code "123": five digits/],
    [['number', 'search', '--area-code', '312', '--limit', 'x'], /--limit takes a whole number/],
    [['number', 'buy', '--account', accountId, '--number', '3125550100', '--yes'], /invalid number "3125550100": an E.164 number/],
    [['number', 'buy', '--number', number], /--account is required/],
    [['number', 'use', '--account', 'acc_missing', '--number', number], /no account acc_missing/],
    [['number', 'frobnicate'], /unknown command "number frobnicate": use list, search, buy or use/],
  ]
  for (const [args, message] of bad) {
    const result = await runLeadlineInProcess(args, env)
    t.equal(result.code, 2, args.join(' '))
    t.match(result.stderr, message)
  }
  const help = await runLeadlineInProcess(['number', '--help'], env)
  t.equal(help.code, 0)
  t.equal(help.stdout.trim(), (commandUsage('number') as string).trim())
  t.match(help.stdout, /leadline number list --account ACCOUNT_ID[\s\S]*leadline number search[\s\S]*leadline number buy[\s\S]*leadline number use/)
})
