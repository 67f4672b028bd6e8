/**
 * The tool client (`leadline tools | next-actions | lead`) as a child process against a real
 * listening server: readable output, --json, and exit codes through bin/leadline.js. Writes:
 * client-writes.test.ts; every error and exit code: client-errors.test.ts.
 */
import t from 'tap'
import { runLeadline } from '../helpers/cli.ts'
import { clientSetup } from './client-setup.ts'

t.test('tools, lead and next-actions; a bad key exits 3, a missing lead 6', async (t) => {
  const { env, all } = await clientSetup(t)
  const as = { ...env, LEADLINE_API_KEY: all }
  const [tools, lead, next, badKey, missing] = await Promise.all([
    runLeadline(['tools'], as),
    runLeadline(['lead', '--phone', '(312) 555-0142'], as),
    runLeadline(['next-actions', '--limit', '5', '--json'], as),
    runLeadline(['tools'], { ...env, LEADLINE_API_KEY: 'll_live_wrong' }),
    runLeadline(['lead', '--phone', '3125550199', '--json'], as),
  ])

  t.equal(tools.code, 0, tools.stderr)
  t.match(tools.stdout, /^tool\s+scope\s+what it does\n/)
  for (const [name, scope] of [['get_next_actions', 'read'], ['list_leads', 'read'], ['mark_do_not_call', 'write'], ['place_call', 'dial']] as const) {
    t.match(tools.stdout, new RegExp(`\\n${name}\\s+${scope}\\s+\\S`), name)
  }

  t.equal(lead.code, 0, lead.stderr)
  t.match(lead.stdout, /^lead id\s+ld_\w+\nphone\s+\+13125550142\nfull name\s+Jane Doe\n/)

  t.equal(next.code, 0, next.stderr)
  t.match(JSON.parse(next.stdout), { summary: String, stale_leads: Array })

  t.equal(badKey.code, 3)
  t.equal(badKey.stderr, `leadline: API key invalid or revoked (api_key_invalid) at ${env.LEADLINE_URL}/api/mcp (from LEADLINE_URL)\n`)

  t.equal(missing.code, 6)
  t.equal(missing.stderr, 'leadline: no lead with that phone number or id in this account (lead_not_found)\n')
  t.same(JSON.parse(missing.stdout), { error: { code: -32603, message: 'no lead with that phone number or id in this account', data: { code: 'lead_not_found' } } })
})
