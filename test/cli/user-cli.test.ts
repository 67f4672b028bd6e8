/** `leadline user create|link`: the console's first owner and their one-time set-password link. */
import path from 'node:path'
import t from 'tap'
import { openLeadline } from '../../src/leadline.ts'
import { runLeadlineInProcess } from '../helpers/cli.ts'

t.test('user create prints a one-time link under LEADLINE_PUBLIC_URL; user link replaces it; bad input exits 2', async (t) => {
  const dir = t.testdir()
  const env = { LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}`, LEADLINE_PUBLIC_URL: 'https://leads.example.com' }
  const account = JSON.parse((await runLeadlineInProcess(['account', 'create', '--name', 'Acme', '--json'], env)).stdout) as { accountId: string }

  const created = await runLeadlineInProcess(['user', 'create', '--account', account.accountId, '--email', 'Owner@Example.com'], env)
  t.equal(created.code, 0, created.stderr)
  t.match(created.stdout, new RegExp(
    `^user created: owner@example.com \\(usr_[0-9a-f]{16}\\) of account ${account.accountId}\\n` +
    'one-time link to set the password \\(shown once, works once, until \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\):\\n' +
    '  https://leads\\.example\\.com/app/set-password\\?token=llpw_[0-9a-z]{32}\\n$',
  ))
  const first = /token=(llpw_[0-9a-z]{32})/.exec(created.stdout)?.[1] as string

  const again = await runLeadlineInProcess(['user', 'create', '--account', account.accountId, '--email', 'owner@example.com'], env)
  t.equal(again.code, 2)
  t.match(again.stderr, /^leadline: /)
  t.match((await runLeadlineInProcess(['user', 'create', '--account', 'acc_nope', '--email', 'a@b.co'], env)).stderr, 'no account acc_nope')
  t.equal((await runLeadlineInProcess(['user', 'create', '--account', account.accountId], env)).code, 2, '--email is required')
  t.match((await runLeadlineInProcess(['user', 'create', '--account', account.accountId, '--email', 'nope'], env)).stderr, 'is not an email address')
  t.equal((await runLeadlineInProcess(['user', 'remove'], env)).code, 2)

  const link = await runLeadlineInProcess(['user', 'link', '--account', account.accountId, '--email', 'owner@example.com', '--json'], env)
  t.equal(link.code, 0, link.stderr)
  const json = JSON.parse(link.stdout) as { url: string; email: string; userId: string; expiresAt: string }
  t.match(json, { email: 'owner@example.com', userId: /^usr_/, url: /^https:\/\/leads\.example\.com\/app\/set-password\?token=llpw_/ })
  t.notOk(link.stdout.includes(first))

  const leadline = await openLeadline({ store: env.LEADLINE_STORE, viewsPath: path.join(dir, 'check.views.db'), env: { LEADLINE_SCRYPT_LOG_N: '10' } })
  t.teardown(() => leadline.close())
  t.equal(await leadline.users.userOfSetupToken(first), null, 'the newer link replaced the first')
  const second = new URL(json.url).searchParams.get('token') as string
  t.match(await leadline.users.userOfSetupToken(second), { email: 'owner@example.com', accountId: account.accountId })
  await leadline.users.setPassword(second, 'a long enough passphrase')
  t.ok(await leadline.users.signIn('owner@example.com', 'a long enough passphrase'), 'the owner can sign in')
})
