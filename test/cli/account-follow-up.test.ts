/** `leadline account set --follow-up` with text steps: echoed and shown in the canonical form; a refused policy changes nothing. */
import path from 'node:path'
import t from 'tap'
import { runLeadlineInProcess } from '../helpers/cli.ts'

const WRITTEN = '10m call; 25m text "Hi {first_name}, it\'s {business} about your request. Reply STOP to opt out."; 1h call; next-day 10:00 call; max 3 calls per 24h'
const CANONICAL = '10m, 25m text "Hi {first_name}, it\'s {business} about your request. Reply STOP to opt out.", 1h, next-day 10:00; max 3 per 24h'

t.test('a policy with a text step is echoed and shown in its canonical form; a bad one changes nothing', async (t) => {
  const env = { LEADLINE_STORE: `sqlite:${path.join(t.testdir(), 'leadline.db')}`, LOG_LEVEL: 'silent' }
  const run = (...args: string[]) => runLeadlineInProcess(args, env)
  const { accountId } = JSON.parse((await run('account', 'create', '--name', 'Acme Roofing', '--json')).stdout) as { accountId: string }

  const set = await run('account', 'set', accountId, '--follow-up', WRITTEN)
  t.equal(set.code, 0, set.stderr)
  const line = (out: string) => out.split('\n').find((l) => l.startsWith('follow-up '))?.replace(/^follow-up +/, '')
  t.equal(line(set.stdout), CANONICAL, 'set echoes the canonical form')
  t.equal(line((await run('account', 'show', accountId)).stdout), CANONICAL, 'show prints it')
  t.equal((JSON.parse((await run('account', 'show', accountId, '--json')).stdout) as { settings: { followUp: string } }).settings.followUp, CANONICAL)

  for (const [policy, message] of [
    ['10m, 25m text "Hi {name}"', /text step 2: unknown placeholder \{name\}/],
    ['10m text "Hi', /unterminated quote/],
    ['10m text ""', /text step 1: must not be empty/],
  ] as const) {
    const refused = await run('account', 'set', accountId, '--follow-up', policy)
    t.equal(refused.code, 2, policy)
    t.match(refused.stderr, message, policy)
  }
  t.equal(line((await run('account', 'show', accountId)).stdout), CANONICAL, 'unchanged by the refused policies')
  t.equal(line((await run('account', 'set', accountId, '--follow-up', '10m, 1h')).stdout), '10m, 1h; max 3 per 24h', 'a call-only policy prints as it always did')
})
