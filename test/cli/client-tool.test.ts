/**
 * `leadline tool`: the server's tools without a name; with one, any tool called with the JSON object
 * given, its output exact with --json or readable (every name and value through printable()), and
 * every failure one line with the tool client's exit codes. Run in process through `runCli`.
 */
import t from 'tap'
import { buildApp, operatorContext } from '../helpers/build-app.ts'
import { clientSetup, runInProcess } from './client-setup.ts'

const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/

t.test('without a name: the tools, as `leadline tools` lists them', async (t) => {
  const { env, reader } = await clientSetup(t)
  const as = { ...env, LEADLINE_API_KEY: reader }
  const [tool, tools, asJson] = await Promise.all([runInProcess(['tool'], as), runInProcess(['tools'], as), runInProcess(['tool', '--json'], as)])
  t.equal(tool.code, 0, tool.stderr)
  t.equal(tool.stdout, tools.stdout)
  t.match(tool.stdout, /^tool\s+scope\s+what it does\n/)
  t.match(tool.stdout, /\nplace_call\s+dial\s+\S/)
  t.same(JSON.parse(asJson.stdout).tools.map((d: { name: string }) => d.name).toSorted(), [
    'add_note', 'book_appointment', 'cancel_appointment', 'get_call', 'get_lead', 'get_lead_history', 'get_next_actions', 'get_stats', 'list_calls', 'list_leads', 'list_open_slots',
    'mark_do_not_call', 'pause_follow_up', 'place_call', 'request_payment', 'reschedule_appointment', 'resume_follow_up', 'schedule_callback', 'send_sms', 'update_lead',
  ])
})

t.test('a tool by name: --json prints its output exactly, without it readably', async (t) => {
  const { env, all } = await clientSetup(t)
  const as = { ...env, LEADLINE_API_KEY: all }
  const [asJson, viaLead, readable, noArguments] = await Promise.all([
    runInProcess(['tool', 'get_lead', '--json', '{"phone": "(312) 555-0142"}'], as),
    runInProcess(['lead', '--phone', '(312) 555-0142', '--json'], as),
    runInProcess(['tool', 'get_lead', '{"phone": "(312) 555-0142"}'], as),
    runInProcess(['tool', 'get_next_actions'], as),
  ])
  t.equal(asJson.code, 0, asJson.stderr)
  t.same(JSON.parse(asJson.stdout), JSON.parse(viaLead.stdout), 'the same answer as the shorthand `leadline lead`')
  t.equal(readable.code, 0, readable.stderr)
  t.match(readable.stdout, /^lead:\n {2}lead_id: ld_\w+\n {2}phone: \+13125550142\n/)
  t.match(readable.stdout, /\n {2}full_name: Jane Doe\n/)
  t.match(readable.stdout, /\n {2}do_not_call: false\n/)
  t.equal(noArguments.code, 0, noArguments.stderr)
  t.match(noArguments.stdout, /^summary: .+\nstale_leads: (\[\]|\n)/, 'no arguments: {}')

  // A write tool takes its idempotency key like any argument; the replay note follows a repeat.
  const dnc = ['tool', 'mark_do_not_call', '{"phone": "3125550142", "idempotency_key": "tool-dnc-1"}']
  const first = await runInProcess(dnc, as)
  t.equal(first.code, 0, first.stderr)
  t.match(first.stdout, /^lead_id: ld_\w+\n/)
  t.equal(first.stderr, '', 'the key was given: nothing printed on stderr')
  const again = await runInProcess(dnc, as)
  t.equal(again.stdout, `${first.stdout.trimEnd()}\n(the recorded result of an earlier call with this idempotency key: nothing was done again)\n`)
})

t.test('an unknown tool, bad JSON, a missing scope: one line each, with its exit code', async (t) => {
  const { env, all, reader } = await clientSetup(t)
  const cases: Array<[string[], string, number, RegExp]> = [
    [['tool', 'no_such_tool'], all, 5, /^leadline: unknown tool no_such_tool \(unknown_tool\)\n$/],
    [['tool', 'get_lead', '{phone: 3125550142}'], all, 2, /^leadline: the arguments are not JSON \(.+\): give one object, e\.g\. '\{"limit": 5\}'\n$/],
    [['tool', 'get_lead', '["3125550142"]'], all, 2, /^leadline: the arguments must be a JSON object/],
    [['tool', 'get_lead', '{"phone":', '"3125550142"}'], all, 2, /^leadline: give the tool's arguments as one JSON object \(quote it\)/],
    [['tool', 'get_lead', '{}', '--bogus'], all, 2, /Unknown option '--bogus'/],
    [['tool', 'mark_do_not_call', '{"phone": "3125550142", "idempotency_key": "k"}'], reader, 4, /^leadline: mark_do_not_call needs the write scope.*\(insufficient_scope; needs scope write\)\n$/],
    [['tool', 'place_call', '{"phone": "3125550142", "name": "J", "idempotency_key": "k"}'], reader, 4, /needs the dial scope/],
    [['tool', 'mark_do_not_call', '{"phone": "3125550142"}'], all, 5, /^leadline: invalid arguments for mark_do_not_call: idempotency_key: .+ \(invalid_arguments\)\n$/],
    [['tool', 'get_lead', '{"phone": "3125550199"}'], reader, 6, /\(lead_not_found\)\n$/],
  ]
  for (const [args, key, code, message] of cases) {
    const result = await runInProcess(args, { ...env, LEADLINE_API_KEY: key })
    t.equal(result.code, code, `${args.join(' ')}: exit ${code}`)
    t.match(result.stderr, message, args.join(' '))
    t.equal(result.stdout, '', `${args.join(' ')}: nothing on stdout`)
  }
  const unknown = await runInProcess(['tool', 'no_such_tool', '--json'], { ...env, LEADLINE_API_KEY: all })
  t.match(JSON.parse(unknown.stdout), { error: { code: -32602, data: { code: 'unknown_tool', tool: 'no_such_tool', tools: Array } } })
  const scope = await runInProcess(['tool', 'mark_do_not_call', '--json', '{"phone": "3125550142", "idempotency_key": "k"}'], { ...env, LEADLINE_API_KEY: reader })
  t.match(JSON.parse(scope.stdout), { error: { code: -32003, data: { code: 'insufficient_scope', scope: 'write', key_scopes: ['read'] } } })
  const badJson = await runInProcess(['tool', 'get_lead', '--json', 'nope'], { ...env, LEADLINE_API_KEY: all })
  t.equal(badJson.code, 2)
  t.equal(badJson.stdout, '', 'bad usage never reached the server: nothing on stdout')
})

t.test("readable output shows lead data's control characters as U+FFFD; --json keeps it exact", async (t) => {
  const HOSTILE = 'Jane\u001b]0;pwned\u0007\u001b[2J\u009b31m\r\nX\u202eeoD'
  const built = await buildApp(t)
  const { account, token } = await built.createAccount('Acme')
  const key = (await built.leadline.accounts.createApiKey(account.accountId, ['read'], null, operatorContext)).key.secret
  const url = await built.listen()
  const pushed = await fetch(`${url}/api/ingest/lead`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': token },
    body: JSON.stringify({ name: 'Jane Doe', phone: '(312) 555-0142', source: HOSTILE, roof_type: HOSTILE }),
  })
  t.equal(pushed.status, 201)
  await built.leadline.runner.catchUp()
  const as = { LEADLINE_URL: url, LEADLINE_API_KEY: key }
  for (const args of [['tool', 'get_lead', '{"phone": "3125550142"}'], ['tool', 'list_leads'], ['tool', 'get_lead_history', '{"phone": "3125550142"}']]) {
    const result = await runInProcess(args, as)
    t.equal(result.code, 0, result.stderr)
    t.notMatch(result.stdout, CONTROL, `${args[1]}: no control character`)
    t.match(result.stdout, 'Jane\uFFFD]0;pwned\uFFFD\uFFFD[2J\uFFFD31m\uFFFD\uFFFDX\uFFFDeoD', `${args[1]}: the text, its controls as U+FFFD`)
  }
  const exact = await runInProcess(['tool', 'get_lead', '--json', '{"phone": "3125550142"}'], as)
  t.match(JSON.parse(exact.stdout).lead, { source: HOSTILE, extra_fields: { roof_type: HOSTILE } })
  t.notMatch(exact.stdout, CONTROL, '--json: what a terminal acts on is written as \\u escapes')
})
