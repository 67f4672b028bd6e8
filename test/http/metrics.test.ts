/**
 * GET /metrics: Prometheus text (prom-client), behind the operator token; GET /readyz: its status to
 * anyone, its log positions only to the operator (docs/deployment.md#metrics).
 */
import t, { type Test } from 'tap'
import { OPERATOR, OPERATOR_HEADERS, type TestApp } from '../helpers/build-app.ts'
import { DIALING, dialingApp, fakeTwilio } from '../helpers/dialing-app.ts'
import { issueOperatorToken } from '../../src/http/operator/operator-token.ts'

/**
 * Every sample of an exposition, `name{labels}` → value; fails on a line that is not the text format.
 * NaN and Inf in any case, as Prometheus reads them (prom-client writes an empty window's mean as `Nan`).
 */
function parseExposition(t: Test, text: string): Map<string, number> {
  const samples = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})?) (-?[0-9.e+-]+|[+-]?(?:nan|inf))$/i.exec(line)
    if (!match) {
      t.fail(`not the Prometheus text format: ${line}`)
      continue
    }
    samples.set(match[1] as string, Number(match[2]))
  }
  return samples
}

async function scrape(t: Test, app: TestApp): Promise<Map<string, number>> {
  const response = await app.app.inject({ method: 'GET', url: '/metrics', headers: OPERATOR_HEADERS })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8')
  return parseExposition(t, response.body)
}

async function eventually(check: () => Promise<boolean>, ms = 30_000): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 20))) if (await check()) return true
  return check()
}

t.test('/metrics needs the operator token: 401 without it, with a wrong one, or with another kind of secret', async (t) => {
  const app = await dialingApp(t)
  const { token } = await app.createAccount()
  for (const headers of [{}, { authorization: `Bearer ${issueOperatorToken().token}` }, { authorization: `Bearer ${token}` }, { authorization: `Basic ${Buffer.from(`x:${OPERATOR.token}`).toString('base64')}` }]) {
    const response = await app.app.inject({ method: 'GET', url: '/metrics', headers })
    t.equal(response.statusCode, 401, JSON.stringify(headers))
    t.equal(response.json().error, 'invalid token')
    t.equal(response.headers['www-authenticate'], 'Bearer realm="leadline operator"')
    t.notMatch(response.body, /leadline_|nodejs_/)
  }
})

t.test('Prometheus text: process metrics, event-loop delay, requests per route pattern; values move after a lead', async (t) => {
  const fake = await fakeTwilio(t)
  const app = await dialingApp(t, { fake })
  const { token } = await app.createAccount('Metrics Co', DIALING)
  const before = await scrape(t, app)
  for (const name of ['process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_eventloop_lag_max_seconds', 'leadline_read_models_lag_events', 'leadline_process_runner_lag_events']) {
    t.ok(before.has(name), name)
  }
  t.notOk(before.has('leadline_leads_received_total{kind="new"}'), 'no lead yet')

  const lead = await app.app.inject({ method: 'POST', url: `/api/ingest/lead?token=${token}`, payload: { phone: '3125550142', name: 'Jane Doe' } })
  t.equal(lead.statusCode, 201)
  await fake.waitForCalls(1)
  t.ok(await eventually(async () => ((await scrape(t, app)).get('leadline_calls_placed_total{purpose="speed_to_lead"}') ?? 0) === 1), 'the call is counted as placed')
  const repeat = await app.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token }, payload: { phone: '(312) 555-0142', email: 'jane@example.com' } })
  t.equal(repeat.statusCode, 200)

  const after = await scrape(t, app)
  t.equal(after.get('leadline_leads_received_total{kind="new"}'), 1, 'one new lead')
  t.equal(after.get('leadline_leads_received_total{kind="repeat"}'), 1, 'one repeat')
  t.equal(after.get('leadline_calls_decided_total{purpose="speed_to_lead"}'), 1, 'one call decided')
  t.equal(after.get('leadline_speed_to_lead_seconds_count'), 1, 'speed to lead measured once')
  t.ok((after.get('leadline_speed_to_lead_seconds_sum') ?? -1) >= 0)
  t.equal(after.get('leadline_http_requests_total{method="POST",route="/api/ingest/lead",status="201"}'), 1, 'requests by route pattern and status')
  t.equal(after.get('leadline_http_requests_total{method="POST",route="/api/ingest/lead",status="200"}'), 1)
  t.equal(after.get('leadline_http_request_duration_seconds_count{method="POST",route="/api/ingest/lead",status="201"}'), 1, 'and their latency')
  t.ok((after.get('leadline_http_requests_total{method="GET",route="/metrics",status="200"}') ?? 0) >= 1)
  const text = (await app.app.inject({ method: 'GET', url: '/metrics', headers: OPERATOR_HEADERS })).body
  t.notMatch(text, token, 'no webhook token in any label: the route pattern, never the URL')
  t.notMatch(text, '3125550142', 'nor a phone number')
  await app.app.inject({ method: 'GET', url: '/no/such/page?token=secret' })
  t.equal((await scrape(t, app)).get('leadline_http_requests_total{method="GET",route="unmatched",status="404"}'), 1, 'an unknown path is "unmatched"')
})

t.test('a call the carrier refuses is counted as failed, by failure', async (t) => {
  const fake = await fakeTwilio(t)
  const app = await dialingApp(t, { fake })
  const { token } = await app.createAccount('Metrics Co', DIALING)
  fake.failNext({ kind: 'status', status: 400, code: 21211, message: "The 'To' number is not a valid phone number." })
  t.equal((await app.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token }, payload: { phone: '3125550143' } })).statusCode, 201)
  t.ok(await eventually(async () => [...(await scrape(t, app)).keys()].some((k) => k.startsWith('leadline_calls_failed_total{purpose="speed_to_lead"'))), 'a failed call is counted')
  t.notOk((await scrape(t, app)).has('leadline_calls_placed_total{purpose="speed_to_lead"}'))
})

t.test('/readyz: its status to anyone, the log positions only with the operator token', async (t) => {
  const app = await dialingApp(t, { store: 'sqlite' })
  const { token } = await app.createAccount()
  await app.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token }, payload: { phone: '3125550144' } })
  await app.leadline.runner.waitFor(await app.leadline.store.headPosition())
  const open = await app.app.inject('/readyz')
  t.equal(open.statusCode, 200)
  t.same(open.json(), { status: 'ready' }, 'no head, checkpoint or lag without the token')
  const operator = await app.app.inject({ url: '/readyz', headers: OPERATOR_HEADERS })
  t.equal(operator.statusCode, 200)
  t.match(operator.json(), { status: 'ready', store: 'sqlite', head: Number, checkpoint: Number, lagMs: 0 })
  const wrong = await app.app.inject({ url: '/readyz', headers: { authorization: `Bearer ${issueOperatorToken().token}` } })
  t.equal(wrong.statusCode, 401, 'a wrong token is refused, not taken for none')
})
