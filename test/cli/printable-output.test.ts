/**
 * Lead data comes from webhook senders: the CLI's readable output must never hand their terminal
 * control sequences (ESC/CSI/OSC, BEL, C1, bidi overrides), while --json stays the exact data.
 */
import t from 'tap'
import { runInProcess } from './client-setup.ts'
import { buildApp, operatorContext } from '../helpers/build-app.ts'

// An OSC 8 hyperlink, a clear-screen, a bell, a C1 CSI, a line break and a right-to-left override.
const HOSTILE = 'Jane\u001b]8;;https://evil.example\u0007Doe\u001b]8;;\u0007\u001b[2J\u009b31m\r\nX\u202eeoD'
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/

t.test('leads, lead, next-actions, call, dnc and pay print no control characters from lead data; --json keeps it exact', async (t) => {
  const built = await buildApp(t, { store: 'sqlite' })
  const { account, token } = await built.createAccount('Acme', { callerId: '+15125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false })
  const key = (await built.leadline.accounts.createApiKey(account.accountId, ['read', 'write', 'dial'], null, operatorContext)).key.secret
  const url = await built.listen()
  const pushed = await fetch(`${url}/api/ingest/lead`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': token },
    body: JSON.stringify({ name: HOSTILE, phone: '(312) 555-0142', email: `a${HOSTILE}@example.com`, source: HOSTILE, vendor: HOSTILE, roof_type: HOSTILE }),
  })
  t.equal(pushed.status, 201, 'the webhook keeps the fields as sent')
  await built.leadline.runner.catchUp()

  const store = { LEADLINE_STORE: built.store, LEADLINE_VIEWS: built.viewsPath }
  const remote = { LEADLINE_URL: url, LEADLINE_API_KEY: key }
  const readable: Array<[string, string[], NodeJS.ProcessEnv]> = [
    ['leads', ['leads', '--account', account.accountId], store],
    ['lead', ['lead', '--phone', '3125550142'], remote],
    ['next-actions', ['next-actions'], remote],
    ['call', ['call', '--phone', '3125550142', '--name', HOSTILE, '--dry-run'], remote],
    ['dnc', ['dnc', '--phone', '3125550142', '--dry-run'], remote],
    ['pay', ['pay', '--phone', '3125550142', '--amount-cents', '100', '--description', HOSTILE, '--dry-run'], remote],
  ]
  for (const [name, args, env] of readable) {
    const result = await runInProcess(args, env)
    t.equal(result.code, 0, `${name}: ${result.stderr}`)
    t.notMatch(result.stdout, CONTROL, `${name}: no control character on stdout`)
    t.notMatch(result.stderr, CONTROL, `${name}: no control character on stderr`)
    if (name === 'leads' || name === 'lead') t.match(result.stdout, 'Jane\uFFFD]8;;https://evil.example\uFFFDDoe', `${name}: the text is shown, its controls as U+FFFD`)
  }

  // Source and vendor are kept as sent (the name is split and tidied by intake): --json gives them exactly,
  // with what a terminal would act on written as \u escapes, which parse to the same string.
  const leadsOut = (await runInProcess(['leads', '--account', account.accountId, '--json'], store)).stdout
  t.match(JSON.parse(leadsOut).leads[0], { source: HOSTILE, vendor: HOSTILE, extraFields: [{ name: 'roof_type', value: HOSTILE }] }, 'leads --json: the data as received')
  t.notMatch(leadsOut, CONTROL, 'leads --json: nothing raw a terminal acts on')
  t.match(leadsOut, '\\u001b]8;;https://evil.example\\u0007Doe')
  t.match(leadsOut, '\\u009b31m')
  const leadOut = (await runInProcess(['lead', '--phone', '3125550142', '--json'], remote)).stdout
  t.match(JSON.parse(leadOut).lead, { source: HOSTILE, vendor: HOSTILE, extra_fields: { roof_type: HOSTILE } }, 'lead --json: the data as received')
  t.notMatch(leadOut, CONTROL, 'lead --json: nothing raw a terminal acts on')
})

t.test('an error message carrying outside text prints it without its control characters', async (t) => {
  const result = await runInProcess(['leads', '--account', `acc_${HOSTILE}`], { LEADLINE_STORE: `sqlite:${t.testdir()}/leadline.db` })
  t.equal(result.code, 2)
  t.match(result.stderr, /^leadline: /)
  t.notMatch(result.stderr, CONTROL)
  t.equal(result.stderr.trim().split('\n').length, 1, 'one line')
})
