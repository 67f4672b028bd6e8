/**
 * The tool client's write commands (`leadline call`, `leadline dnc`) as child processes against a
 * real listening server: dry runs, real calls, and idempotency keys (given, or generated and printed
 * so a retry can reuse them).
 */
import t from 'tap'
import { runLeadline } from '../helpers/cli.ts'
import { clientSetup } from './client-setup.ts'

t.test('call and dnc: dry run, the real thing, and a retry with the same key', async (t) => {
  const { env, all } = await clientSetup(t)
  const as = { ...env, LEADLINE_API_KEY: all }
  const [dryCall, call] = await Promise.all([
    runLeadline(['call', '--phone', '312-555-0142', '--name', 'Jane Doe', '--dry-run'], as),
    runLeadline(['call', '--phone', '312-555-0142', '--name', 'Jane Doe', '--idempotency-key', 'cli-call-1'], as),
  ])
  t.equal(dryCall.code, 0, dryCall.stderr)
  t.equal(dryCall.stdout, 'dry run: a call to +13125550142 would go out now from +15125550100; nothing was done\n')
  t.equal(dryCall.stderr, '', 'a dry run changes nothing, so no key to retry it with is printed')
  t.equal(call.code, 0, call.stderr)
  t.match(call.stdout, /^call CAsim\w+ placed to \+13125550142 from \+15125550100 \(lead ld_\w+, simulated\)\n$/)
  t.equal(call.stderr, '', 'a key was given: none is generated')

  const dnc = await runLeadline(['dnc', '--phone', '3125550142'], as)
  t.equal(dnc.code, 0, dnc.stderr)
  t.match(dnc.stdout, /^ld_\w+ is now do-not-call\n$/)
  const generated = /^idempotency key: (cli-[0-9a-f-]{36}) \(to retry this exact call safely, repeat it with --idempotency-key \1\)\n$/.exec(dnc.stderr)
  t.ok(generated, 'the generated key is printed so a retry can reuse it')

  const [callAgain, retry] = await Promise.all([
    runLeadline(['call', '--phone', '312-555-0142', '--name', 'Jane Doe', '--idempotency-key', 'cli-call-1', '--json'], as),
    runLeadline(['dnc', '--phone', '3125550142', '--idempotency-key', generated?.[1] ?? 'missing'], as),
  ])
  t.match(JSON.parse(callAgain.stdout), { status: 'placed', call_id: call.stdout.split(' ')[1] }, 'the same key: the same call, not a second one')
  t.match(retry.stdout, /is now do-not-call\n\(the recorded result of an earlier call with this idempotency key: nothing was done again\)\n$/)
})
