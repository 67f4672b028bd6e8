/** `leadline account set` for pay-links: --stripe-account, --currency and --pay-text, shown by `account show`. */
import path from 'node:path'
import t from 'tap'
import { runCli } from '../../src/cli/main.ts'
import type { Io } from '../../src/cli/cli-io.ts'

t.test('the connected Stripe account, the currency and the pay-link text are account settings', async (t) => {
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
  t.match(created.settings, { stripeAccount: null, currency: 'usd', payLinkTemplate: '{business}: {description}, {amount}. Pay securely by card here: {link}' }, 'the defaults')

  const set = await run('account', 'set', created.accountId, '--stripe-account', 'acct_1Nv0FGQ9RKHgCVdK', '--currency', 'CAD', '--pay-text', 'Hi from {business}: {amount} for {description}, {link}', '--json')
  t.equal(set.code, 0, set.err)
  t.match(JSON.parse(set.out).settings, { stripeAccount: 'acct_1Nv0FGQ9RKHgCVdK', currency: 'cad', payLinkTemplate: 'Hi from {business}: {amount} for {description}, {link}' })
  const shown = await run('account', 'show', created.accountId)
  t.match(shown.out, /stripe account +acct_1Nv0FGQ9RKHgCVdK\ncurrency +cad\npay-link text +Hi from \{business\}/)

  const noLink = await run('account', 'set', created.accountId, '--pay-text', 'Pay {amount} please')
  t.equal(noLink.code, 2)
  t.match(noLink.err, /invalid payLinkTemplate: must contain \{link\}/)
  t.match((await run('account', 'set', created.accountId, '--pay-text', '{name}: {link}')).err, /unknown placeholder \{name\}/)
  t.match((await run('account', 'set', created.accountId, '--stripe-account', 'sk_live_123')).err, /invalid stripeAccount: must be a Stripe connected account id/)
  t.match((await run('account', 'set', created.accountId, '--currency', 'dollars')).err, /invalid currency: must be an ISO 4217/)
  t.match(JSON.parse((await run('account', 'set', created.accountId, '--stripe-account', 'none', '--json')).out).settings, { stripeAccount: null }, 'none disconnects it')
})
