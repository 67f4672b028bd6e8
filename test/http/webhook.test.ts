import { Writable } from 'node:stream'
import { gzipSync } from 'node:zlib'
import t, { type Test } from 'tap'
import { buildApp, OPERATOR_HEADERS, operatorContext } from '../helpers/build-app.ts'
import { loggerOptions } from '../../src/http/server.ts'

const URL_PATH = '/api/ingest/lead'

async function setup(t: Test, options: Parameters<typeof buildApp>[1] = {}) {
  const built = await buildApp(t, options)
  const { account, token, tokenId } = await built.createAccount('Acme Insurance')
  const post = (payload: unknown, headers: Record<string, string> = {}, query = '') =>
    built.app.inject({
      method: 'POST',
      url: `${URL_PATH}${query}`,
      headers: { 'x-service-token': token, 'content-type': 'application/json', ...headers },
      payload: typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload),
    })
  /** A form-encoded body, the token in the query string (as a plain HTML form's action would carry it). */
  const postForm = (payload: string) =>
    built.app.inject({ method: 'POST', url: `${URL_PATH}?token=${token}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload })
  return { ...built, account, token, tokenId, post, postForm }
}

async function eventTypes(leadline: { store: { readAll(): Promise<Array<{ type: string; stream: string }>> } }, stream?: string) {
  return (await leadline.store.readAll()).filter((e) => stream === undefined || e.stream === stream).map((e) => e.type)
}

t.test('a JSON lead is created (201), grouped into Inbound Leads, then updated (200)', async (t) => {
  const { post, leadline, account } = await setup(t)
  const first = await post({ 'Full Name': 'Jane Doe', 'Phone Number': '(555) 123-4567', Email: 'JANE@Example.com', source: 'Spring Promo' })
  t.equal(first.statusCode, 201)
  t.match(first.headers['content-type'], /application\/json/)
  const body = first.json()
  t.match(body, { leadId: /^ld_/, created: true, phone: '+15551234567', lists: ['Inbound Leads'], warnings: [] })
  t.same(Object.keys(body).sort(), ['created', 'leadId', 'lists', 'phone', 'warnings'])

  const again = await post({ phone: '+1 555.123.4567', vendor: 'LeadCo', email: '' })
  t.equal(again.statusCode, 200)
  t.match(again.json(), { leadId: body.leadId, created: false, phone: '+15551234567', lists: ['Inbound Leads'] })

  const stream = `lead-${account.accountId}-5551234567`
  // A new lead is one event: its list and speed to lead's decision not to call (off by default) ride
  // on the LeadReceived, so the troubleshooting answer of spec §4.1.7 is still on the history.
  t.same(await eventTypes(leadline, stream), ['LeadReceived', 'LeadUpdated'])
  const events = await leadline.store.readStream(stream)
  const received = events.find((e) => e.type === 'LeadReceived')?.data as { list?: unknown; speedToLeadSkipped?: unknown }
  t.same(received.list, { listId: 'inbound-leads', listName: 'Inbound Leads' })
  t.same(received.speedToLeadSkipped, { reason: 'speed_to_lead_off', message: 'speed to lead is off for this account', nextAllowedAt: null })
  const updated = events.find((e) => e.type === 'LeadUpdated')
  t.same((updated?.data as { changes: unknown }).changes, { vendor: 'LeadCo' }, 'only what changed; the empty email erased nothing')

  await leadline.runner.catchUp()
  const page = leadline.inboundLeads.list(account.accountId)
  t.equal(page.leads.length, 1)
  t.match(page.leads[0], { leadId: body.leadId, fullName: 'Jane Doe', firstName: 'Jane', lastName: 'Doe', email: 'jane@example.com', source: 'Spring Promo', vendor: 'LeadCo', submissions: 2 })
})

t.test('form-encoded, multipart (fields only) and lead-ads bodies are leads too', async (t) => {
  const { app, token, leadline, account, postForm } = await setup(t)
  const form = await postForm('first_name=Bob&last_name=Ray&mobile=555-987-6543&do_not_call=YES')
  t.equal(form.statusCode, 201)

  const boundary = '----leadline'
  const multipartBody = [
    `--${boundary}\r\nContent-Disposition: form-data; name="cell"\r\n\r\n(555) 222-3333\r\n`,
    `--${boundary}\r\nContent-Disposition: form-data; name="Name"\r\n\r\nAnn Lee\r\n`,
    `--${boundary}\r\nContent-Disposition: form-data; name="resume"; filename="cv.txt"\r\nContent-Type: text/plain\r\n\r\nnot stored\r\n`,
    `--${boundary}--\r\n`,
  ].join('')
  const multipart = await app.inject({
    method: 'POST',
    url: URL_PATH,
    headers: { 'x-service-token': token, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: multipartBody,
  })
  t.equal(multipart.statusCode, 201, multipart.body)

  const ads = await app.inject({
    method: 'POST',
    url: URL_PATH,
    headers: { 'x-service-token': token, 'content-type': 'application/json' },
    payload: JSON.stringify({ field_data: [
      { name: 'full_name', values: ['Cara Diaz'] },
      { name: 'phone_number', values: ['+15554445555'] },
      { name: 'zip_code', values: ['78701'] },
      { name: 'city', values: ['Austin'] },
    ] }),
  })
  t.equal(ads.statusCode, 201)

  await leadline.runner.catchUp()
  const leads = leadline.inboundLeads.list(account.accountId).leads
  t.same(leads.map((l) => l.phone).sort(), ['+15552223333', '+15554445555', '+15559876543'])
  const bob = leads.find((l) => l.phone === '+15559876543')
  t.match(bob, { fullName: 'Bob Ray', doNotCall: true })
  const ann = leads.find((l) => l.phone === '+15552223333')
  t.match(ann, { firstName: 'Ann', lastName: 'Lee' })
  t.notOk(JSON.stringify(ann).includes('not stored'), 'uploaded files are dropped')
  t.match(leads.find((l) => l.phone === '+15554445555'), { fullName: 'Cara Diaz', zip: '78701', city: 'Austin' })
})

t.test('a field sent twice (form or multipart) fills its field with the first value and keeps every value', async (t) => {
  const { app, token, leadline, account, postForm } = await setup(t)
  const form = await postForm('phone=312-300-0001&phone=312-300-0002&interest=roof&interest=solar')
  t.equal(form.statusCode, 201)
  t.same(form.json().warnings, [{ code: 'field_multiple_values', field: 'phone', message: 'phone had 2 values; the first was used and all of them kept as an extra field' }])

  const boundary = '----leadline'
  const part = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
  const multipart = await app.inject({
    method: 'POST',
    url: URL_PATH,
    headers: { 'x-service-token': token, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: `${part('mobile', '312-300-0003')}${part('mobile', '312-300-0004')}--${boundary}--\r\n`,
  })
  t.equal(multipart.statusCode, 201, multipart.body)
  t.match(multipart.json(), { phone: '+13123000003', warnings: [{ code: 'field_multiple_values', field: 'mobile' }] })

  await leadline.runner.catchUp()
  const first = leadline.inboundLeads.get(account.accountId, { phoneLast10: '3123000001' })
  t.same(first?.extraFields, [
    { name: 'phone', value: ['312-300-0001', '312-300-0002'] },
    { name: 'interest', value: ['roof', 'solar'] },
  ], 'nothing the sender sent is lost')
  t.equal(leadline.inboundLeads.get(account.accountId, { phoneLast10: '3123000002' }), null, 'the second number is not a lead of its own')
  t.same(leadline.inboundLeads.get(account.accountId, { phoneLast10: '3123000003' })?.extraFields, [{ name: 'mobile', value: ['312-300-0003', '312-300-0004'] }])
})

t.test("the warnings a sender got are kept on the lead's history", async (t) => {
  const { post, leadline, account } = await setup(t)
  const response = await post({ phone: '000-000-0000', name: 'Doe, Jane', 'Do Not Call': 'maybe' })
  t.equal(response.statusCode, 201)
  const { warnings } = response.json() as { warnings: unknown[] }
  t.equal(warnings.length, 2, 'phone_not_valid and dnc_unrecognized')
  const [received] = await leadline.store.readStream(`lead-${account.accountId}-0000000000`)
  t.same((received?.data as { warnings?: unknown }).warnings, warnings, 'exactly what the response said')
  t.match((received?.data as { fields: unknown }).fields, { fullName: 'Doe, Jane', firstName: 'Jane', lastName: 'Doe', doNotCall: false })
})

t.test("a legacy page's form (Windows-1252, undeclared) keeps its accents", async (t) => {
  const { postForm, leadline, account } = await setup(t)
  const form = await postForm('name=Jos%E9+N%FA%F1ez&phone=312-555-0190&city=K%F6ln')
  t.equal(form.statusCode, 201, form.body)
  await leadline.runner.catchUp()
  t.match(leadline.inboundLeads.get(account.accountId, { phoneLast10: '3125550190' }), { fullName: 'José Núñez', firstName: 'José', lastName: 'Núñez', city: 'Köln' })
})

t.test('the token may also come as Authorization: Bearer; x-service-token wins over it, and it over the query', async (t) => {
  const { app, token } = await setup(t)
  const send = (headers: Record<string, string>, query = '') =>
    app.inject({ method: 'POST', url: `${URL_PATH}${query}`, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify({ phone: '312-555-0191' }) })
  t.equal((await send({ authorization: `Bearer ${token}` })).statusCode, 201, 'Bearer alone')
  t.equal((await send({ authorization: `bearer   ${token} ` })).statusCode, 200, 'any case and spacing')
  t.equal((await send({ authorization: 'Bearer llwh_wrong' }, `?token=${token}`)).statusCode, 401, 'a wrong bearer is not rescued by the query')
  t.equal((await send({ 'x-service-token': token, authorization: 'Bearer llwh_wrong' })).statusCode, 200, 'x-service-token is read first')
  t.equal((await send({ authorization: `Basic ${Buffer.from(`x:${token}`).toString('base64')}` })).statusCode, 401, 'only Bearer carries a token')
})

t.test("a browser's CORS preflight is answered; the answer to a cross-origin post is readable; plain OPTIONS stays 405", async (t) => {
  const { app, post } = await setup(t)
  const preflight = await app.inject({ method: 'OPTIONS', url: URL_PATH, headers: { origin: 'https://landing.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-service-token' } })
  t.equal(preflight.statusCode, 204)
  t.match(preflight.headers, {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'POST',
    'access-control-allow-headers': 'content-type, x-service-token, authorization',
    'access-control-max-age': '600',
  })
  t.equal((await app.inject({ method: 'OPTIONS', url: URL_PATH })).statusCode, 405, 'not a preflight: 405, as every other method')
  t.equal((await app.inject({ method: 'OPTIONS', url: URL_PATH, headers: { origin: 'https://x.example', 'access-control-request-method': 'PUT' } })).statusCode, 405, 'a preflight for another method: 405')
  const cross = await post({ phone: '312-555-0195' }, { origin: 'https://landing.example.com' })
  t.equal(cross.statusCode, 201)
  t.equal(cross.headers['access-control-allow-origin'], '*', "the page's script may read the answer")
  t.equal((await post({ phone: '312-555-0195' }, { origin: 'https://x.example', 'x-service-token': 'llwh_wrong' })).headers['access-control-allow-origin'], '*', 'and an error')
  t.equal((await post({ phone: '312-555-0195' })).headers['access-control-allow-origin'], undefined, 'no Origin, no CORS header')
})

t.test('every rejected request has a JSON error body and appends nothing', async (t) => {
  const { app, post, token, leadline } = await setup(t)
  const before = await leadline.store.headPosition()
  const cases: Array<{ name: string; send: () => Promise<{ statusCode: number; json(): unknown; headers: Record<string, unknown> }>; status: number; body: Record<string, unknown> }> = [
    { name: 'no phone field', send: () => post({ name: 'No Phone' }), status: 400, body: { error: 'phone required' } },
    { name: 'empty phone', send: () => post({ phone: '   ' }), status: 400, body: { error: 'phone required' } },
    { name: 'empty body', send: () => app.inject({ method: 'POST', url: URL_PATH, headers: { 'x-service-token': token } }), status: 400, body: { error: 'phone required' } },
    { name: 'form without phone', send: () => post('name=x', { 'content-type': 'application/x-www-form-urlencoded' }), status: 400, body: { error: 'phone required' } },
    { name: 'too few digits', send: () => post({ phone: '555-1234' }), status: 400, body: { error: 'phone invalid' } },
    { name: 'malformed JSON', send: () => post('{"phone":'), status: 400, body: { error: 'invalid json' } },
    { name: 'JSON array', send: () => post([{ phone: '5551234567' }]), status: 400, body: { error: 'body must be an object' } },
    { name: 'JSON scalar', send: () => post('"5551234567"'), status: 400, body: { error: 'body must be an object' } },
    { name: 'JSON null', send: () => post('null'), status: 400, body: { error: 'body must be an object' } },
    { name: 'no token', send: () => app.inject({ method: 'POST', url: URL_PATH, payload: { phone: '5551234567' } }), status: 401, body: { error: 'invalid token' } },
    { name: 'unknown token', send: () => post({ phone: '5551234567' }, { 'x-service-token': 'llwh_nottherealone' }), status: 401, body: { error: 'invalid token' } },
    { name: 'an API key is not a webhook token', send: () => post({ phone: '5551234567' }, { 'x-service-token': 'll_live_abc' }), status: 401, body: { error: 'invalid token' } },
    { name: 'text/plain', send: () => post('phone=5551234567', { 'content-type': 'text/plain' }), status: 415, body: { error: 'unsupported media type' } },
    { name: 'xml without a phone', send: () => post('<lead><name>No Phone</name></lead>', { 'content-type': 'application/xml' }), status: 400, body: { error: 'phone required' } },
    { name: 'another media type', send: () => post('<phone>5551234567</phone>', { 'content-type': 'application/vnd.lead+xml' }), status: 415, body: { error: 'unsupported media type' } },
    { name: 'gzip', send: () => post(gzipSync(JSON.stringify({ phone: '5551234567' })), { 'content-encoding': 'gzip' }), status: 415, body: { error: 'unsupported media type', detail: /content-encoding "gzip" is not supported/ } },
    { name: 'a claimed encoding on a plain body', send: () => post({ phone: '5551234567' }, { 'content-encoding': 'br' }), status: 415, body: { error: 'unsupported media type' } },
    { name: 'over 64 KiB', send: () => post({ phone: '5551234567', notes: 'x'.repeat(70_000) }), status: 413, body: { error: 'payload too large' } },
    { name: 'GET', send: () => app.inject({ method: 'GET', url: `${URL_PATH}?token=${token}` }), status: 405, body: { error: 'method not allowed' } },
    { name: 'PUT', send: () => app.inject({ method: 'PUT', url: URL_PATH, headers: { 'x-service-token': token }, payload: { phone: '5551234567' } }), status: 405, body: { error: 'method not allowed' } },
    { name: 'DELETE', send: () => app.inject({ method: 'DELETE', url: URL_PATH }), status: 405, body: { error: 'method not allowed' } },
    { name: 'unknown path', send: () => app.inject({ method: 'POST', url: '/api/ingest/leads' }), status: 404, body: { error: 'not found' } },
  ]
  for (const c of cases) {
    const response = await c.send()
    t.equal(response.statusCode, c.status, `${c.name}: status`)
    t.match(response.headers['content-type'], /application\/json/, `${c.name}: JSON`)
    t.match(response.json(), c.body, `${c.name}: body`)
  }
  const exact = await post({ full_name: 'No Phone' })
  t.same(exact.json(), { error: 'phone required' }, 'spec §7.2: exactly {"error":"phone required"}')
  t.equal((await app.inject({ method: 'GET', url: URL_PATH })).headers.allow, 'POST')
  t.equal(await leadline.store.headPosition(), before, 'nothing was appended')
})

t.test('dedup by the last ten digits: formats match, different numbers are different leads', async (t) => {
  const { post, leadline, account } = await setup(t)
  const formats = ['5551234567', '(555) 123-4567', '+1 555 123 4567', '1-555-123-4567', '555.123.4567', 15551234567]
  const ids = new Set<string>()
  for (const phone of formats) ids.add((await post({ phone })).json().leadId)
  t.equal(ids.size, 1, 'one person')
  const other = await post({ phone: '5551234568', name: 'Jane Doe' })
  t.equal(other.statusCode, 201, 'a second number for the same person is a second lead')
  await leadline.runner.catchUp()
  t.equal(leadline.inboundLeads.count(account.accountId), 2)
  t.equal((await eventTypes(leadline)).filter((type) => type === 'LeadReceived').length, 2)
})

t.test('50 concurrent submissions of one phone in different formats: one LeadReceived, one lead', async (t) => {
  const { listen, token, leadline, account } = await setup(t)
  const base = await listen()
  const formats = ['5557654321', '(555) 765-4321', '+15557654321', '555.765.4321', '1 555 765 4321']
  const responses = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      fetch(`${base}${URL_PATH}`, {
        method: 'POST',
        headers: { 'x-service-token': token, 'content-type': 'application/json' },
        body: JSON.stringify({ phone: formats[i % formats.length], note: `submission ${i}` }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { leadId: string; created: boolean } })),
    ),
  )
  t.same(responses.map((r) => r.status).sort((a, b) => a - b), [...Array(49).fill(200), 201])
  t.equal(new Set(responses.map((r) => r.body.leadId)).size, 1)
  t.equal(responses.filter((r) => r.body.created).length, 1)
  const types = await eventTypes(leadline, `lead-${account.accountId}-5557654321`)
  t.equal(types.filter((x) => x === 'LeadReceived').length, 1)
  t.equal(types.filter((x) => x === 'LeadUpdated').length, 49)
  await leadline.runner.catchUp()
  t.equal(leadline.inboundLeads.count(account.accountId), 1)
})

t.test('a rotated token fails at once; the new one works; the token is never logged', async (t) => {
  const lines: string[] = []
  const stream = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done() } })
  const built = await setup(t, { logger: { ...(loggerOptions('info') as object), stream } })
  const { app, token, account, leadline } = built
  t.equal((await app.inject({ method: 'POST', url: `${URL_PATH}?token=${token}`, payload: { phone: '5551112222' } })).statusCode, 201)
  const rotated = await leadline.accounts.rotateWebhookToken(account.accountId, operatorContext)
  t.equal((await app.inject({ method: 'POST', url: `${URL_PATH}?token=${token}`, payload: { phone: '5551112222' } })).statusCode, 401)
  const fresh = await app.inject({ method: 'POST', url: URL_PATH, headers: { 'x-service-token': rotated.secret }, payload: { phone: '5551112222' } })
  t.equal(fresh.statusCode, 200)
  const log = lines.join('')
  t.match(log, /\/api\/ingest\/lead\?token=\[REDACTED\]/, 'the logged URL keeps its shape')
  t.notOk(log.includes(token), 'the old token never appears in a log line')
  t.notOk(log.includes(rotated.secret), 'the new token never appears in a log line')
})

t.test('do-not-call is sticky; empty values never erase; unparseable dob is kept with a warning', async (t) => {
  const { post, leadline, account } = await setup(t)
  await post({ phone: '3123334444', dnc: 'y', email: 'a@b.co', dob: 'sometime in spring' }).then((r) => {
    t.equal(r.statusCode, 201)
    t.match(r.json().warnings, [{ code: 'dob_unparseable', field: 'dob' }])
  })
  await post({ phone: '3123334444', dnc: 'no', email: '   ' })
  await leadline.runner.catchUp()
  const lead = leadline.inboundLeads.get(account.accountId, { phoneLast10: '3123334444' })
  t.match(lead, { doNotCall: true, email: 'a@b.co' })
  t.same(lead?.extraFields, [{ name: 'dob', value: 'sometime in spring' }])
})

t.test('health and readiness', async (t) => {
  const { app, leadline, post } = await setup(t, { store: 'sqlite' })
  t.same((await app.inject('/healthz')).json(), { status: 'ok' })
  await post({ phone: '5550001111' })
  await leadline.runner.waitFor(await leadline.store.headPosition())
  const ready = await app.inject({ url: '/readyz', headers: OPERATOR_HEADERS })
  t.equal(ready.statusCode, 200)
  t.match(ready.json(), { status: 'ready', store: 'sqlite' })
})

t.test('readiness is 503 once an event has waited over a second for the read models, 200 before', async (t) => {
  let now = Date.parse('2026-03-02T15:00:00Z')
  const { app, leadline, post } = await setup(t, { start: false, clock: () => new Date(now) })
  await post({ phone: '5550002222' })
  const fresh = await app.inject({ url: '/readyz', headers: OPERATOR_HEADERS })
  t.equal(fresh.statusCode, 200, 'behind by events that arrived just now: still ready (a busy node is not taken out)')
  t.match(fresh.json(), { status: 'ready', lagMs: 0 })
  t.ok(fresh.json().checkpoint < fresh.json().head, 'the read models really are behind')
  now += 1001
  const lagging = await app.inject({ url: '/readyz', headers: OPERATOR_HEADERS })
  t.equal(lagging.statusCode, 503)
  t.match(lagging.json(), { status: 'catching_up', lagMs: 1001 })
  await leadline.runner.catchUp()
  t.match((await app.inject({ url: '/readyz', headers: OPERATOR_HEADERS })).json(), { status: 'ready', lagMs: 0 })
})
