/**
 * No secret is ever logged. A real `leadline serve` child at LOG_LEVEL=trace, with its standard
 * output and error captured; secrets are issued, used, rotated and revoked through the real CLI
 * (other processes on the same log); every secret is then sent every way a client might send it,
 * right or wrong (headers, query parameters under any spelling, the path, the body, to every
 * route), and the whole captured output, the server's and the CLI's logs, must hold none of them.
 * Only the CLI's standard output shows a secret, once, when it is issued: that is its purpose.
 */
import path from 'node:path'
import t from 'tap'
import fc from 'fast-check'
import { redactUrl } from '../../src/http/redact.ts'
import { runLeadline, startServer } from '../helpers/cli.ts'

t.test('no secret issued during the run appears in any log line', async (t) => {
  const dir = t.testdir()
  const env = { LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}`, LOG_LEVEL: 'trace', LEADLINE_WEBHOOK_RATE: 'off' }
  const cliLogs: string[] = []
  const cli = async (...args: string[]) => {
    const result = await runLeadline([...args, '--json'], env)
    t.equal(result.code, 0, `leadline ${args.slice(0, 2).join(' ')}: ${result.stderr}`)
    cliLogs.push(result.stderr)
    return JSON.parse(result.stdout) as Record<string, any>
  }

  const secrets: string[] = []
  const created = await cli('account', 'create', '--name', 'Secretive Co')
  const accountId = created.accountId as string
  secrets.push(created.webhookToken.token)
  const keys: string[] = []
  const keyIds: string[] = []
  for (const scopes of ['read', 'read,write,dial']) {
    const issued = await cli('key', 'create', '--account', accountId, '--scopes', scopes)
    keys.push(issued.key)
    keyIds.push(issued.keyId)
    secrets.push(issued.key)
  }

  const server = await startServer({ ...env, LOG_LEVEL: 'trace' })
  t.teardown(() => server.stop())
  const base = server.url

  /** Every way a client might send a secret, to every route, right or wrong. */
  async function sendEverywhere(secret: string) {
    const lead = JSON.stringify({ phone: '3125550142', name: 'Log Test', note: secret })
    const json = { 'content-type': 'application/json' }
    const rpc = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_leads', arguments: { source: secret } } })
    const encoded = encodeURIComponent(secret)
    const attempts: Array<[string, RequestInit]> = [
      ['/api/ingest/lead', { method: 'POST', headers: { ...json, 'x-service-token': secret }, body: lead }],
      [`/api/ingest/lead?token=${secret}`, { method: 'POST', headers: json, body: lead }],
      [`/api/ingest/lead?source=x&Token=${secret}&y=1`, { method: 'POST', headers: json, body: lead }],
      [`/api/ingest/lead?%74oken=${encoded}`, { method: 'POST', headers: json, body: lead }],
      [`/api/ingest/lead?token=${secret}&token=${secret}`, { method: 'POST', headers: json, body: lead }],
      [`/api/ingest/lead?TOKEN=${encoded}#frag`, { method: 'POST', headers: json, body: '{"broken' }],
      [`/api/ingest/lead?access_token=${secret}`, { method: 'POST', headers: json, body: lead }],
      [`/api/ingest/lead?webhook=${secret}`, { method: 'POST', headers: json, body: lead }],
      [`/api/ingest/lead/${secret}`, { method: 'POST', headers: json, body: lead }],
      [`/api/ingest/lead?token=${secret}`, { method: 'GET' }],
      [`/api/ingest/lead?token=${secret}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: secret }],
      ['/api/ingest/lead', { method: 'POST', headers: { 'x-service-token': secret, 'content-type': 'multipart/form-data; boundary=b' }, body: `--b\r\nContent-Disposition: form-data; name="${secret}"\r\n\r\n${secret}` }],
      ['/api/ingest/lead', { method: 'POST', headers: { authorization: `Bearer ${secret}`, cookie: `session=${secret}`, ...json }, body: lead }],
      ['/api/mcp', { method: 'POST', headers: { ...json, authorization: `Bearer ${secret}` }, body: rpc }],
      ['/api/mcp', { method: 'POST', headers: { ...json, authorization: `bearer   ${secret}  ` }, body: '{not json' }],
      [`/api/mcp?api_key=${secret}`, { method: 'POST', headers: json, body: rpc }],
      [`/api/mcp?key=${secret}`, { method: 'POST', headers: { ...json, 'x-api-key': secret }, body: rpc }],
      ['/api/mcp', { method: 'POST', headers: { ...json, authorization: secret, origin: `http://${secret}.example` }, body: rpc }],
      ['/api/mcp', { method: 'POST', headers: { ...json, authorization: `Bearer ${secret}`, 'mcp-protocol-version': secret }, body: rpc }],
      [`/api/mcp/${secret}`, { method: 'GET', headers: { authorization: `Bearer ${secret}` } }],
      [`/docs/${secret}`, { method: 'GET' }],
      [`/api/carrier/twilio/status?token=${secret}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': secret }, body: `CallSid=${secret}` }],
      ['/api/payments/stripe/webhook', { method: 'POST', headers: { ...json, 'stripe-signature': `t=1,v1=${secret}` }, body: lead }],
    ]
    for (const [url, init] of attempts) {
      const response = await fetch(`${base}${url}`, init)
      await response.arrayBuffer()
      t.ok(response.status < 500, `${init.method} ${url.replace(secret, '<secret>')}: ${response.status}`)
    }
  }

  for (const secret of secrets) await sendEverywhere(secret)

  // Rotate the token and revoke a key while the server runs; the old ones are refused, the new one works.
  const rotated = await cli('token', 'rotate', '--account', accountId)
  secrets.push(rotated.token)
  await cli('key', 'revoke', keyIds[0] as string)
  const oldToken = await fetch(`${base}/api/ingest/lead`, { method: 'POST', headers: { 'x-service-token': secrets[0] as string, 'content-type': 'application/json' }, body: '{"phone":"3125550143"}' })
  t.equal(oldToken.status, 401, 'the rotated token is refused')
  const newToken = await fetch(`${base}/api/ingest/lead?token=${rotated.token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"phone":"3125550143"}' })
  t.equal(newToken.status, 201, 'the new token works, from the query string too')
  for (const secret of secrets) await sendEverywhere(secret)

  await server.stop()
  const output = [server.output(), ...cliLogs].join('\n')
  t.ok(output.split('\n').filter((line) => line.startsWith('{')).length > 100, 'the server logged every request')
  t.match(output, /\[REDACTED\]/, 'query-string secrets were replaced')
  for (const secret of secrets) {
    const forms = [secret, encodeURIComponent(secret), secret.slice(-20)]
    const found = forms.filter((form) => output.includes(form))
    const line = output.split('\n').find((l) => forms.some((form) => l.includes(form)))
    t.same(found, [], `${secret.slice(0, 9)}… is in no log line${line ? `: ${line.slice(0, 400)}` : ''}`)
  }
})

t.test('redactUrl: a secret anywhere in a URL, however it is spelled, is not kept', async (t) => {
  const secret = fc.tuple(fc.constantFrom('llwh_', 'll_live_'), fc.stringMatching(/^[0-9a-z]{32}$/)).map(([prefix, rest]) => prefix + rest)
  const encodeAll = (text: string) => [...Buffer.from(text)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')
  const name = fc.constantFrom('token', 'Token', 'TOKEN', 'key', 'api_key', 'access_token', encodeAll('token'), `%74oken`, 'tok%65n', 'webhook', 'x')
  const placed = fc.tuple(secret, name, fc.constantFrom('query', 'query-encoded', 'path', 'path-encoded', 'name'), fc.constantFrom('', 'a=1&', 'source=x&'), fc.constantFrom('', '&b=2', '#x'))
  fc.assert(
    fc.property(placed, ([s, n, where, before, after]) => {
      const url =
        where === 'query' ? `/api/ingest/lead?${before}${n}=${s}${after}`
        : where === 'query-encoded' ? `/api/ingest/lead?${before}${n}=${s.replace('_', '%5F')}${after}`
        : where === 'path' ? `/api/ingest/lead/${s}?${before}`
        : where === 'path-encoded' ? `/api/${encodeURIComponent(s).replace('_', '%5f')}/lead`
        : `/api/ingest/lead?${before}${s}=1${after}`
      const logged = redactUrl(url)
      return !logged.includes(s.slice(-16)) && !logged.toLowerCase().includes(s.replace('_', '%5f').slice(-16))
    }),
    { numRuns: 2000 },
  )
  t.equal(redactUrl('/api/ingest/lead?source=spring'), '/api/ingest/lead?source=spring', 'other URLs are logged as they came')
  t.equal(redactUrl('/docs/webhook.md'), '/docs/webhook.md')
  t.equal(
    redactUrl('/api/carrier/twilio/assistant-whisper?decision=dec_1&whisper=Dana%20Reyes%2C%20owns%20the%20home'),
    '/api/carrier/twilio/assistant-whisper?decision=dec_1&whisper=[REDACTED]',
    "the assistant's whisper (the lead's name and answers) stays out of the log",
  )
})
