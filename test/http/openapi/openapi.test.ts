import Fastify from 'fastify'
import t, { type Test } from 'tap'
import { buildApp } from '../../helpers/build-app.ts'
import { app as leadlineApp } from '../../../src/http/app.ts'
import { defaultToolRegistry } from '../../../src/http/mcp/tool-registry.ts'
import { CORE_FIELD_ALIASES } from '../../../src/domain/lead/intake/field-aliases.ts'
import { leadAcceptedSchema, webhookBodySchema } from '../../../src/http/webhook/ingest-lead.schema.ts'

const PUBLIC_URL = 'http://leadline.test'

interface Operation {
  readonly requestBody?: { content: Record<string, { schema: Record<string, unknown>; example?: unknown }> }
  readonly responses: Record<string, unknown>
}
type OpenApi = { openapi: string; servers: { url: string }[]; paths: Record<string, Record<string, Operation>> }

/**
 * Served routes that are no API, each for its reason: pages for people, callbacks only a vendor calls with its
 * signature, the operator's metrics. Anything else the app serves must be in /docs/openapi.json.
 */
const NOT_API: readonly RegExp[] = [
  /^\/$/, // the home page
  /^\/app(\/|$)/, // the console
  /^\/docs(\.md|\/|$)(?!openapi\.json)/, // the docs site
  /^\/llms(-full)?\.txt$/,
  /^\/pay\//, // the pay page
  /^\/metrics$/, // the operator's, with an operator token
  /^\/api\/carrier\//, // the carrier's signed callbacks and its media stream
  /^\/api\/ingest\/facebook$/, // Facebook's signed notifications and its subscription check
  /^\/api\/payments\/stripe\/webhook$/, // Stripe's signed events
]

/** Every route the app registers, as fastify sees them: the app plugin on an instance that records them. */
async function servedRoutes(t: Test, leadline: Awaited<ReturnType<typeof buildApp>>['leadline']) {
  const routes: { url: string; method: string }[] = []
  const fastify = Fastify({ logger: false })
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ url: route.url, method })
  })
  await fastify.register(leadlineApp, { leadline, publicUrl: PUBLIC_URL, tools: await defaultToolRegistry() })
  await fastify.ready()
  t.teardown(() => fastify.close())
  return routes
}

t.test('/docs/openapi.json describes the served API, and only it', async (t) => {
  const built = await buildApp(t, { publicUrl: PUBLIC_URL })
  const answer = await built.app.inject({ method: 'GET', url: '/docs/openapi.json' })
  t.equal(answer.statusCode, 200)
  t.match(answer.headers['content-type'], /^application\/json/)
  const doc = answer.json() as OpenApi
  t.equal(doc.openapi, '3.1.0')
  t.same(doc.servers, [{ url: PUBLIC_URL }], 'the server is the public URL')

  const documented = Object.entries(doc.paths).flatMap(([url, operations]) => Object.keys(operations).map((method) => ({ url, method: method.toUpperCase() })))
  t.ok(documented.some((r) => r.url === '/api/ingest/lead' && r.method === 'POST'), 'the webhook is documented')
  t.ok(documented.some((r) => r.url === '/api/mcp' && r.method === 'POST'), 'the tool endpoint is documented')

  const served = await servedRoutes(t, built.leadline)
  const isServed = (r: { url: string; method: string }) => served.some((s) => s.url === r.url && s.method === r.method)
  for (const route of documented) t.ok(isServed(route), `${route.method} ${route.url} is documented and served`)

  for (const route of served) {
    if (isDocumented(route)) continue
    if (NOT_API.some((pattern) => pattern.test(route.url))) continue
    // The other methods on an API path are there to answer 405 with Allow.
    if (documented.some((d) => d.url === route.url)) {
      const other = await built.app.inject({ method: route.method as 'GET', url: route.url })
      t.equal(other.statusCode, 405, `${route.method} ${route.url} is undocumented and answers 405`)
      continue
    }
    t.fail(`${route.method} ${route.url} is served but neither documented nor listed as no API`)
  }
  function isDocumented(r: { url: string; method: string }) {
    return documented.some((d) => d.url === r.url && d.method === r.method)
  }
})

t.test('the webhook\'s description: every accepted name, every body type, and an example the webhook takes', async (t) => {
  const built = await buildApp(t, { publicUrl: PUBLIC_URL })
  const doc = (await built.app.inject({ method: 'GET', url: '/docs/openapi.json' })).json() as OpenApi
  const operation = doc.paths['/api/ingest/lead']?.post
  if (!operation?.requestBody) return t.fail('the webhook has a request body')
  const content = operation.requestBody.content
  t.same(Object.keys(content).sort(), ['application/json', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data', 'text/xml'])
  const schema = JSON.stringify(content['application/json']?.schema)
  for (const alias of Object.values(CORE_FIELD_ALIASES).flat()) t.ok(schema.includes(JSON.stringify(alias).slice(1, -1)), `the name ${alias} is documented`)
  t.same(Object.keys(operation.responses).sort(), ['200', '201', '400', '401', '413', '415', '429', '503'])

  const example = content['application/json']?.example
  t.ok(webhookBodySchema.safeParse(example).success, 'the example validates against the body schema')
  const { token } = await built.createAccount('Acme Insurance')
  const sent = await built.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token, 'content-type': 'application/json' }, payload: JSON.stringify(example) })
  t.equal(sent.statusCode, 201, 'the webhook takes the example')
  t.ok(leadAcceptedSchema.safeParse(sent.json()).success, 'and answers as its 201 is described')
})

t.test('the schema checks the body is an object of fields; the error bodies stay the documented ones', async (t) => {
  const built = await buildApp(t, { publicUrl: PUBLIC_URL })
  const { token } = await built.createAccount('Acme Insurance')
  const post = (payload: string, query = '') =>
    built.app.inject({ method: 'POST', url: `/api/ingest/lead${query}`, headers: { 'x-service-token': token, 'content-type': 'application/json' }, payload })
  const before = await built.leadline.store.headPosition()
  for (const body of ['[]', '"3125550142"', '42', 'null']) {
    const answer = await post(body)
    t.same([answer.statusCode, answer.json()], [400, { error: 'body must be an object', detail: 'body must be a JSON object or form fields' }], body)
  }
  const twice = await post(JSON.stringify({ phone: '3125550142' }), '?source=a&source=b')
  t.same([twice.statusCode, twice.json().error], [400, 'invalid request'], 'two ?source= are refused, not one picked')
  t.equal(await built.leadline.store.headPosition(), before, 'none of them recorded anything')
})
