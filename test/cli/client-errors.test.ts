/**
 * Every failure of the tool client: one line on stderr, a distinct exit code (3 API key missing,
 * invalid or revoked; 4 key lacks the scope; 5 invalid arguments; 6 the tool ran and failed; 7 rate
 * limited; 2 bad usage; 1 the server cannot be reached), and `{"error": …}` on stdout with --json.
 * Run in process through `runCli` (what bin/leadline.js runs); client.test.ts runs the binary.
 */
import t from 'tap'
import { freePort } from '../helpers/cli.ts'
import { clientSetup, runInProcess } from './client-setup.ts'

t.test('each kind of failure has its exit code and one line', async (t) => {
  const { env, all, reader } = await clientSetup(t)
  const closed = `http://127.0.0.1:${await freePort()}`
  const cases: Array<[string[], NodeJS.ProcessEnv, number, RegExp]> = [
    [['tools'], {}, 3, /LEADLINE_API_KEY is not set \(for the server at http:\/\/127\.0\.0\.1:\d+, from LEADLINE_URL\)/],
    [['tools'], { LEADLINE_API_KEY: 'll_live_wrong' }, 3, /API key invalid or revoked \(api_key_invalid\) at http:\/\/127\.0\.0\.1:\d+\/api\/mcp \(from LEADLINE_URL\)/],
    [['dnc', '--phone', '3125550142', '--idempotency-key', 'k'], { LEADLINE_API_KEY: reader }, 4, /mark_do_not_call needs the write scope.*\(insufficient_scope; needs scope write\)/],
    [['call', '--phone', '3125550142', '--name', 'J'], { LEADLINE_API_KEY: reader }, 4, /needs the dial scope/],
    [['lead', '--phone', '555-1234'], { LEADLINE_API_KEY: reader }, 5, /invalid arguments for get_lead: phone: must hold at least ten digits \(invalid_arguments\)/],
    [['dnc', '--lead-id', 'ld_x', '--idempotency-key', ''], { LEADLINE_API_KEY: all }, 5, /idempotency_key: must be 1 to 255 printable ASCII characters/],
    [['lead', '--phone', '3125550199'], { LEADLINE_API_KEY: reader }, 6, /no lead with that phone number or id in this account \(lead_not_found\)/],
    [['dnc', '--lead-id', 'ld_missing', '--idempotency-key', 'k2'], { LEADLINE_API_KEY: all }, 6, /\(lead_not_found\)/],
    [['call', '--phone', '3125550142'], { LEADLINE_API_KEY: all }, 2, /call needs --phone and --name/],
    [['lead'], { LEADLINE_API_KEY: all }, 2, /give --phone or --lead-id/],
    [['lead', '--phone', '1', '--lead-id', 'ld_1'], { LEADLINE_API_KEY: all }, 2, /give --phone or --lead-id/],
    [['next-actions', '--limit', 'many'], { LEADLINE_API_KEY: all }, 2, /--limit takes a whole number/],
    [['tools', '--bogus'], { LEADLINE_API_KEY: all }, 2, /Unknown option '--bogus'/],
    [['tools'], { LEADLINE_API_KEY: all, LEADLINE_URL: closed }, 1, /cannot reach the tool endpoint at http:\/\/127\.0\.0\.1:\d+\/api\/mcp \(ECONNREFUSED\): is the server running\?/],
    [['tools'], { LEADLINE_API_KEY: all, LEADLINE_URL: `${env.LEADLINE_URL}/elsewhere` }, 1, /the tool endpoint at .*\/elsewhere\/api\/mcp \(from LEADLINE_URL\) answered HTTP 404: \{"error":"not found"\}/],
    [['tools'], { LEADLINE_API_KEY: all, LEADLINE_URL: 'not a url' }, 2, /LEADLINE_URL does not make a URL: not a url/],
  ]
  for (const [args, extra, code, message] of cases) {
    const result = await runInProcess(args, { ...env, ...extra })
    t.equal(result.code, code, `${args.join(' ')}: exit ${code}`)
    t.match(result.stderr, message, args.join(' '))
    // A write command that made up an idempotency key says so on its own line first.
    t.equal(result.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('idempotency key: ')).length, 1, `${args.join(' ')}: one line`)
  }
  const asJson = await runInProcess(['dnc', '--phone', '3125550142', '--idempotency-key', 'k', '--json'], { ...env, LEADLINE_API_KEY: reader })
  t.match(JSON.parse(asJson.stdout), { error: { code: -32003, data: { code: 'insufficient_scope', scope: 'write', key_scopes: ['read'] } } })
  const usageJson = await runInProcess(['lead', '--json'], { ...env, LEADLINE_API_KEY: all })
  t.equal(usageJson.stdout, '', 'bad usage never reached the server: nothing on stdout')
})

t.test('a rate-limited key exits 7 with the retry hint', async (t) => {
  const { env, reader } = await clientSetup(t)
  await import('../../src/cli/client/remote.ts') // loaded before the bucket is emptied: the SDK takes a while to load
  // Keep the key's bucket empty for as long as the command runs: 20 pings always in flight, so a
  // token that refills (one every 50 ms) is taken at once. The command may still catch one on a
  // starved machine, so it gets a few tries; what is tested is how it reports being limited.
  let flooding = true
  const ping = () =>
    fetch(`${env.LEADLINE_URL}/api/mcp`, { method: 'POST', headers: { authorization: `Bearer ${reader}` }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' }).then((r) => r.text())
  await Promise.all(Array.from({ length: 45 }, ping))
  const flood = Promise.all(
    Array.from({ length: 20 }, async () => {
      while (flooding) await ping()
    }),
  )
  let limited = await runInProcess(['tools'], { ...env, LEADLINE_API_KEY: reader })
  for (let attempt = 2; attempt <= 5 && limited.code === 0; attempt++) limited = await runInProcess(['tools'], { ...env, LEADLINE_API_KEY: reader })
  flooding = false
  await flood
  t.equal(limited.code, 7)
  t.match(limited.stderr, /^leadline: rate limit: at most 20 requests per second per key \(bursts of 40\); retry in 1 s \(rate_limited; retry in 1 s\)\n$/)
})

t.test('with a key that may call: what the server says, line by line', async (t) => {
  const { env, all } = await clientSetup(t)
  const as = { ...env, LEADLINE_API_KEY: all }
  const tools = await runInProcess(['tools', '--json'], as)
  t.equal(JSON.parse(tools.stdout).tools.length, 20)
  const lead = await runInProcess(['lead', '--phone', '3125550142', '--json'], as)
  const leadId = JSON.parse(lead.stdout).lead.lead_id as string
  t.match((await runInProcess(['lead', '--lead-id', leadId], as)).stdout, /^lead id\s+ld_/)
  t.match((await runInProcess(['next-actions'], as)).stdout, /^No stale leads/)
  t.match((await runInProcess(['dnc', '--lead-id', leadId, '--idempotency-key', 'a', '--dry-run', '--json'], as)).stdout, /"dry_run": true/)
  t.equal((await runInProcess(['dnc', '--lead-id', leadId, '--idempotency-key', 'a'], as)).stdout, `${leadId} is now do-not-call\n`)
  t.equal((await runInProcess(['dnc', '--lead-id', leadId, '--idempotency-key', 'b'], as)).stdout, `${leadId} was already do-not-call\n`)
  const refused = await runInProcess(['call', '--phone', '3125550142', '--name', 'Jane', '--idempotency-key', 'c'], as)
  t.equal(refused.code, 6)
  t.match(refused.stderr, /\(do_not_call\)\n$/)
  const dry = await runInProcess(['call', '--phone', '3125550142', '--name', 'Jane', '--idempotency-key', 'd', '--dry-run'], as)
  t.equal(dry.stdout, 'dry run: no call to +13125550142 now: the lead is do-not-call: it is never dialed; nothing was done\n')
})
