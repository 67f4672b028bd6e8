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
import { redactFields, redactText, redactUrl } from '../../src/http/redact.ts'
import { runLeadline, startServer } from '../helpers/cli.ts'
import { SESSION_COOKIE } from '../../src/http/console/session.ts'

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

t.test('every credential kind, in the query, a header and the body (JSON, form, multipart), through the real app: none in any log line', async (t) => {
  const dir = t.testdir()
  const operatorToken = JSON.parse((await runLeadline(['operator-token', '--json'], {})).stdout) as { token: string; hash: string }
  const env = {
    LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}`, LOG_LEVEL: 'trace', LEADLINE_WEBHOOK_RATE: 'off', LEADLINE_SCRYPT_LOG_N: '10',
    LEADLINE_OPERATOR_TOKEN_HASH: operatorToken.hash, FACEBOOK_APP_SECRET: 'fb-app-secret-for-the-log-scan', FACEBOOK_VERIFY_TOKEN: 'fb-verify-token-for-the-log-scan',
    FACEBOOK_GRAPH_URL: 'http://127.0.0.1:9', LEADLINE_OAUTH: 'on', LEADLINE_PUBLIC_URL: 'https://leads.secretive.example',
  }
  const cliLogs: string[] = []
  const cli = async (...args: string[]) => {
    const result = await runLeadline(args, env)
    t.equal(result.code, 0, `leadline ${args.slice(0, 2).join(' ')}: ${result.stderr}`)
    cliLogs.push(result.stderr)
    return result.stdout
  }
  const created = JSON.parse(await cli('account', 'create', '--name', 'Secretive Co', '--json')) as { accountId: string; webhookToken: { token: string } }
  const accountId = created.accountId
  const webhookToken = created.webhookToken.token
  const apiKey = (JSON.parse(await cli('key', 'create', '--account', accountId, '--scopes', 'read,write', '--json')) as { key: string }).key
  const googleKey = `gk-${'7f3a9c'.repeat(6)}`
  await cli('account', 'set', accountId, '--google-key', googleKey)
  const email = 'owner@secretive.example'
  const setupUrl = (JSON.parse(await cli('user', 'create', '--account', accountId, '--email', email, '--json')) as { url: string }).url
  const setupToken = new URL(setupUrl).searchParams.get('token') as string
  const password = 'a long passphrase nobody logs 4821'

  const server = await startServer(env)
  t.teardown(() => server.stop())
  const base = server.url

  // A browser's session: the set-password link, the CSRF token and its cookie, the password, the session cookie.
  const jar = new Map<string, string>()
  let csrf = ''
  const browse = async (url: string, init: RequestInit = {}) => {
    const response = await fetch(`${base}${url}`, { ...init, redirect: 'manual', headers: { accept: 'text/html', cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), ...(init.headers as Record<string, string>) } })
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const eq = (pair as string).indexOf('=')
      jar.set((pair as string).slice(0, eq), (pair as string).slice(eq + 1))
    }
    const body = await response.text()
    csrf = /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? csrf
    return response
  }
  const form = (fields: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() })
  await browse(`/app/set-password?token=${setupToken}`)
  t.equal((await browse('/app/set-password', form({ _csrf: csrf, token: setupToken, password, confirm: password }))).status, 303, 'password set')
  await browse('/app/sign-in')
  t.equal((await browse('/app/sign-in', form({ _csrf: csrf, email, password }))).status, 303, 'signed in')
  const session = jar.get(SESSION_COOKIE) as string
  t.ok(session && csrf, 'a session cookie and a CSRF token')
  await browse('/app/leads')

  // Every credential kind Leadline has, each under the names it travels by; OAuth's, Twilio's and Stripe's as a client would send them.
  const credentials: Array<{ kind: string; value: string; names: string[]; routes: string[] }> = [
    { kind: 'webhook token', value: webhookToken, names: ['token', 'x-service-token'], routes: ['/api/ingest/lead'] },
    { kind: 'API key', value: apiKey, names: ['api_key', 'key', 'x-api-key'], routes: ['/api/mcp'] },
    { kind: 'operator token', value: operatorToken.token, names: ['operator_token', 'token'], routes: ['/metrics', '/readyz'] },
    { kind: 'google_key', value: googleKey, names: ['google_key', 'googleKey', 'x-google-key'], routes: ['/api/ingest/lead?source=google_ads'] },
    { kind: 'set-password token', value: setupToken, names: ['token', 'setup_token'], routes: ['/app/set-password'] },
    { kind: 'password', value: password, names: ['password', 'confirm_password', 'Passwd'], routes: ['/app/sign-in', '/app/set-password'] },
    { kind: 'CSRF token', value: csrf, names: ['_csrf', 'csrf_token', 'x-csrf-token'], routes: ['/app/sign-out', '/app/leads'] },
    { kind: 'session cookie', value: session, names: ['session', 'll_session'], routes: ['/app/leads'] },
    { kind: 'facebook verify token', value: env.FACEBOOK_VERIFY_TOKEN, names: ['hub.verify_token', 'verify_token'], routes: ['/api/ingest/facebook'] },
    { kind: 'facebook signature', value: 'sha256=9c1f2e7a5b3d4c6e8f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6', names: ['x-hub-signature-256', 'signature'], routes: ['/api/ingest/facebook'] },
    { kind: 'OAuth authorization code', value: 'oac-Qm9vTW9yZVNlY3JldENvZGVWYWx1ZTEy', names: ['code', 'authorization_code'], routes: ['/oauth/token', '/oauth/auth'] },
    { kind: 'OAuth access token', value: 'oat-ZXlKaGJHY2lPaUpTVXpJMU5pSjkuYWNjZXNz', names: ['access_token', 'authorization'], routes: ['/api/mcp', '/oauth/me'] },
    { kind: 'OAuth refresh token', value: 'ort-cmVmcmVzaFRva2VuVmFsdWVGb3JUaGVTY2Fu', names: ['refresh_token'], routes: ['/oauth/token'] },
    { kind: 'OAuth client secret', value: 'ocs-Y2xpZW50U2VjcmV0Rm9yVGhlTG9nU2Nhbg', names: ['client_secret', 'code_verifier'], routes: ['/oauth/token'] },
    { kind: 'Twilio signature', value: 'tws-bTNrUmVhbFR3aWxpb1NpZ25hdHVyZT0=', names: ['x-twilio-signature', 'signature'], routes: ['/api/carrier/twilio/sms', '/api/carrier/twilio/status'] },
    { kind: 'Stripe signature', value: 't=1796170000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd', names: ['stripe-signature', 'Stripe_Signature'], routes: ['/api/payments/stripe/webhook'] },
    { kind: 'one-time code', value: 'otp-918273645', names: ['otp_code', 'verification_code'], routes: ['/api/ingest/lead'] },
  ]

  /** Sends `value` under `name` in the query, as a header (a real one, or one named after it), and in JSON, form and multipart bodies. */
  async function sendEverywhere(route: string, name: string, value: string) {
    const sep = route.includes('?') ? '&' : '?'
    const headerName = name.toLowerCase().replace(/[^a-z0-9-]/g, '-')
    const common = { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), 'x-service-token': webhookToken }
    const attempts: RequestInit[] = []
    const urls: string[] = []
    const add = (url: string, init: RequestInit) => {
      urls.push(url)
      attempts.push(init)
    }
    add(`${route}${sep}${encodeURIComponent(name)}=${encodeURIComponent(value)}`, { method: 'POST', headers: { ...common, 'content-type': 'application/json' }, body: '{"phone":"3125550142"}' })
    add(`${route}${sep}${encodeURIComponent(name)}=${encodeURIComponent(value)}`, { method: 'GET', headers: common })
    add(route, { method: 'POST', headers: { ...common, 'content-type': 'application/json', [headerName]: value, authorization: `Bearer ${value}` }, body: '{"phone":"3125550142"}' })
    add(route, { method: 'POST', headers: { ...common, 'content-type': 'application/json' }, body: JSON.stringify({ phone: '3125550142', [name]: value, nested: { [name]: value } }) })
    add(route, { method: 'POST', headers: { ...common, 'content-type': 'application/json' }, body: `{"phone":"3125550142","${name}":"${value}" broken` })
    add(route, { method: 'POST', headers: { ...common, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ phone: '3125550142', [name]: value, _csrf: csrf }).toString() })
    add(route, { method: 'POST', headers: { ...common, 'content-type': 'multipart/form-data; boundary=b', [headerName]: value }, body: `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n--b\r\nContent-Disposition: form-data; name="phone"\r\n\r\n3125550142\r\n--b--\r\n` })
    add(route, { method: 'POST', headers: { ...common, 'content-type': 'application/xml' }, body: `<lead><phone>3125550142</phone><${name.replace(/[^a-z_]/gi, '_')}>${value}</${name.replace(/[^a-z_]/gi, '_')}></lead>` })
    for (let i = 0; i < attempts.length; i++) {
      const response = await fetch(`${base}${urls[i] as string}`, { ...attempts[i], redirect: 'manual' })
      await response.arrayBuffer()
      t.ok(response.status < 500, `${attempts[i]?.method ?? 'GET'} ${route} with ${name}: ${response.status}`)
    }
  }
  for (const credential of credentials) {
    for (const route of [...credential.routes, '/api/ingest/lead']) for (const name of credential.names) await sendEverywhere(route, name, credential.value)
  }
  // Google's own body, with its key, to the webhook (the token in the query, as Google's form sends it).
  const google = await fetch(`${base}/api/ingest/lead?token=${webhookToken}&google_key=${googleKey}`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ lead_id: 'gl-1', google_key: googleKey, user_column_data: [{ column_id: 'PHONE_NUMBER', string_value: '+13125550199' }, { column_id: 'FULL_NAME', string_value: 'Google Lead' }] }),
  })
  t.equal(google.status, 201, 'a Google lead with its key is taken')

  await server.stop()
  const output = [server.output(), ...cliLogs].join('\n')
  t.ok(output.split('\n').filter((line) => line.startsWith('{')).length > 500, 'the server logged every request')
  for (const { kind, value } of credentials) {
    const forms = [...new Set([value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2), value.slice(-14)])]
    const line = output.split('\n').find((l) => forms.some((form) => l.includes(form)))
    t.notOk(line, `${kind} is in no log line${line ? `: ${line.slice(0, 400)}` : ''}`)
  }
})

t.test('redaction by name: every parameter, header and field named for a credential loses its value', async (t) => {
  const names = ['token', 'google_key', 'GOOGLE_KEY', 'googleKey', 'api_key', 'x-api-key', 'password', 'new_password', 'Passwd', 'client_secret', 'signature', 'x-twilio-signature', 'stripe-signature',
    'x-hub-signature-256', 'code', 'otp_code', 'authorization_code', 'code_verifier', 'access_token', 'refresh_token', 'hub.verify_token', '_csrf', 'x-csrf-token', 'session', 'leadline_session',
    'authorization', 'cookie', encodeURIComponent('google_key').replace('g', '%67'), 'whisper']
  for (const name of names) {
    t.equal(redactUrl(`/api/ingest/lead?source=x&${name}=s3cr3t-value&b=2`), `/api/ingest/lead?source=x&${name}=[REDACTED]&b=2`, `?${name}=`)
  }
  for (const name of ['source', 'phone', 'name', 'utm_campaign', 'state', 'lead_id']) t.equal(redactUrl(`/api/ingest/lead?${name}=kept`), `/api/ingest/lead?${name}=kept`, `?${name}= is kept`)
  const headers = { 'content-type': 'application/json', 'x-google-key': 'gk-1', 'x-twilio-signature': 'tw-1', 'x-custom-token': 'ct-1', cookie: 'leadline_session=s-1', 'user-agent': 'curl' }
  t.same(redactFields(headers), { 'content-type': 'application/json', 'x-google-key': '[REDACTED]', 'x-twilio-signature': '[REDACTED]', 'x-custom-token': '[REDACTED]', cookie: '[REDACTED]', 'user-agent': 'curl' })
  t.same(redactFields({ lead: { phone: '3125550142', password: 'p', answers: [{ security_code: '123' }] }, note: 'key llwh_abcdefghijklmnop' }), { lead: { phone: '3125550142', password: '[REDACTED]', answers: [{ security_code: '[REDACTED]' }] }, note: 'key [REDACTED]' })
  t.equal(redactText('Unexpected token in JSON: {"password":"hunter2","name":"Jane"}'), 'Unexpected token in JSON: {"password":"[REDACTED]","name":"Jane"}')
  t.equal(redactText('Reply was already sent for "/api/ingest/lead?google_key=gk-9&source=x"'), 'Reply was already sent for "/api/ingest/lead?google_key=[REDACTED]&source=x"')
  t.equal(redactText('via https://user:hunter2@models.example/v1'), 'via https://[REDACTED]@models.example/v1')
  t.equal(redactText('request completed'), 'request completed', 'plain messages unchanged')
})
