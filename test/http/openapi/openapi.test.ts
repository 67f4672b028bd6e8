import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { buildApp } from '../../helpers/build-app.ts'
import { app as leadlineApp, openOAuth } from '../../../src/http/app.ts'
import { protectedResourceMetadataSchema } from '../../../src/http/oauth/oauth.schema.ts'
import { defaultToolRegistry } from '../../../src/http/mcp/tool-registry.ts'
import { CORE_FIELD_ALIASES } from '../../../src/domain/lead/intake/field-aliases.ts'
import { leadAcceptedSchema, webhookBodySchema } from '../../../src/http/webhook/ingest-lead.schema.ts'

const PUBLIC_URL = 'https://leadline.test'

interface Operation {
  readonly requestBody?: { content: Record<string, { schema: Record<string, unknown>; example?: unknown }> }
  readonly responses: Record<string, unknown>
}
type OpenApi = { openapi: string; servers: { url: string }[]; paths: Record<string, Record<string, Operation>> }

/**
 * What may be served and left out of /docs/openapi.json, each for its reason: pages for people, a socket, the
 * OAuth library's own requests (docs/webhook.md#machine-readable-description). Such a route still declares a
 * schema, marked `hide: true`. Anything else the app serves must be in the document.
 */
const HIDDEN: ReadonlyArray<{ readonly pattern: RegExp; readonly why: string }> = [
  { pattern: /^\/$/, why: 'the home page' },
  { pattern: /^\/app(\/|$)/, why: 'the console' },
  { pattern: /^\/docs(\.md|\/|$)/, why: 'the docs site' },
  { pattern: /^\/llms\.txt$/, why: 'the docs\' index for agents' },
  { pattern: /^\/pay\//, why: 'the pay page' },
  { pattern: /^\/api\/carrier\/:carrier\/relay$/, why: 'the carrier\'s live-conversation WebSocket' },
  { pattern: /^\/oauth(\/\*)?$/, why: 'oidc-provider\'s own requests (its public endpoints are declared one by one)' },
]

interface ServedRoute {
  readonly url: string
  readonly method: string
  /** Null: the route declares no schema. */
  readonly schema: { readonly hide?: boolean } | null
}

/** Every route the app registers, as fastify sees them: the app plugin (OAuth on) on an instance that records them. */
async function servedRoutes(t: Test, leadline: Awaited<ReturnType<typeof buildApp>>['leadline'], extra?: (fastify: FastifyInstance) => void) {
  const routes: ServedRoute[] = []
  const fastify = Fastify({ logger: false })
  fastify.addHook('onRoute', (route) => {
    const schema = (route.schema ?? null) as ServedRoute['schema']
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ url: route.url, method, schema })
  })
  await fastify.register(leadlineApp, { leadline, publicUrl: PUBLIC_URL, tools: await defaultToolRegistry(), oauth: await openOAuth(leadline, PUBLIC_URL) })
  extra?.(fastify)
  await fastify.ready()
  t.teardown(() => fastify.close())
  return routes
}

/** `/a/:b` as OpenAPI writes it: `/a/{b}`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')

/**
 * The served routes the document should hold and does not: each named with why. A route is fine when it is in
 * the document, or is hidden by its schema and one of HIDDEN's rules, or has no schema and only answers 405 on a
 * documented path (`answers405` asks the app).
 */
async function undescribed(served: readonly ServedRoute[], doc: OpenApi, answers405: (route: ServedRoute) => Promise<boolean>): Promise<string[]> {
  const problems: string[] = []
  const documented = (route: ServedRoute) => doc.paths[openApiPath(route.url)]?.[route.method.toLowerCase()] !== undefined
  for (const route of served) {
    const name = `${route.method} ${route.url}`
    if (documented(route)) continue
    if (route.schema?.hide === true) {
      if (!HIDDEN.some((rule) => rule.pattern.test(route.url))) problems.push(`${name} is hidden from the document, and no rule of HIDDEN says why`)
      continue
    }
    if (route.schema === null && doc.paths[openApiPath(route.url)] !== undefined && await answers405(route)) continue
    problems.push(route.schema === null ? `${name} is served without a schema` : `${name} declares a schema but is not in the document`)
  }
  return problems
}

t.test('/docs/openapi.json describes the served API, and only it', async (t) => {
  const built = await buildApp(t, { publicUrl: PUBLIC_URL, oauth: true })
  const answer = await built.app.inject({ method: 'GET', url: '/docs/openapi.json' })
  t.equal(answer.statusCode, 200)
  t.match(answer.headers['content-type'], /^application\/json/)
  const doc = answer.json() as OpenApi
  t.equal(doc.openapi, '3.1.0')
  t.same(doc.servers, [{ url: PUBLIC_URL }], 'the server is the public URL')

  const documented = Object.entries(doc.paths).flatMap(([url, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${url}`))
  for (const route of [
    'POST /api/ingest/lead', 'POST /api/mcp', 'GET /healthz', 'GET /readyz', 'GET /metrics', 'GET /docs/openapi.json',
    'POST /api/carrier/{carrier}/{hook}', 'POST /api/payments/stripe/webhook', 'GET /api/ingest/facebook', 'POST /api/ingest/facebook',
    'GET /oauth/authorize', 'POST /oauth/par', 'POST /oauth/token', 'POST /oauth/register', 'POST /oauth/revoke', 'GET /oauth/jwks',
    'GET /.well-known/oauth-authorization-server', 'GET /.well-known/openid-configuration',
    'GET /.well-known/oauth-protected-resource', 'GET /.well-known/oauth-protected-resource/api/mcp',
  ]) t.ok(documented.includes(route), `${route} is documented`)
  t.notOk(documented.some((route) => / \/(app|pay|oauth\/\*)/.test(route)), 'no page for people, nor the OAuth library\'s catch-all')

  const served = await servedRoutes(t, built.leadline)
  const servedNames = new Set(served.map((route) => `${route.method} ${openApiPath(route.url)}`))
  for (const route of documented) t.ok(servedNames.has(route), `${route} is documented and served`)

  const answers405 = async (route: ServedRoute) => {
    const other = await built.app.inject({ method: route.method as 'GET', url: route.url })
    return other.statusCode === 405 && other.headers.allow !== undefined
  }
  t.same(await undescribed(served, doc, answers405), [], 'every served route is in the document, or hidden by a listed rule, or a 405')
})

t.test('a route added without a schema, or hidden for no listed reason, fails the check above', async (t) => {
  const built = await buildApp(t, { publicUrl: PUBLIC_URL, oauth: true })
  const doc = (await built.app.inject({ method: 'GET', url: '/docs/openapi.json' })).json() as OpenApi
  const served = await servedRoutes(t, built.leadline, (fastify) => {
    fastify.get('/api/leads/export', async () => ({}))
    fastify.post('/app/new-form', async () => ({}))
    fastify.get('/api/internal', { schema: { hide: true } }, async () => ({}))
    fastify.put('/api/ingest/lead/extra', async () => ({}))
  })
  t.same(await undescribed(served, doc, async () => true), [
    'GET /api/leads/export is served without a schema',
    'POST /app/new-form is served without a schema',
    'GET /api/internal is hidden from the document, and no rule of HIDDEN says why',
    'PUT /api/ingest/lead/extra is served without a schema',
  ])
})

t.test('the OAuth endpoints: described, still answered by the library, and the metadata checked against its schema', async (t) => {
  const built = await buildApp(t, { publicUrl: PUBLIC_URL, oauth: true })
  const doc = (await built.app.inject({ method: 'GET', url: '/docs/openapi.json' })).json() as OpenApi
  t.ok(doc.paths['/oauth/par']?.post?.requestBody?.content['application/x-www-form-urlencoded'], 'the pushed request is a form')
  const metadata = await built.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })
  t.equal(metadata.statusCode, 200)
  t.match(metadata.json(), { issuer: PUBLIC_URL, pushed_authorization_request_endpoint: `${PUBLIC_URL}/oauth/par`, code_challenge_methods_supported: ['S256'] })
  // A request the library refuses is its RFC 6749 error, not ours: the schema describes, the library checks.
  const par = await built.app.inject({ method: 'POST', url: '/oauth/par', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'client_id=nobody' })
  t.equal(par.statusCode, 401)
  t.match(par.json(), { error: 'invalid_client' })
  const resource = await built.app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/api/mcp' })
  t.ok(protectedResourceMetadataSchema.safeParse(resource.json()).success, 'the protected-resource metadata is as described')
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

t.test('the callbacks\' schemas check what reaches the adapters; the refusals stay the documented ones', async (t) => {
  const built = await buildApp(t, { publicUrl: PUBLIC_URL })
  const before = await built.leadline.store.headPosition()
  const carrier = await built.app.inject({ method: 'POST', url: '/api/carrier/simulated/status', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ CallSid: { nested: true } }) })
  t.same([carrier.statusCode, carrier.json().error], [400, 'invalid request'], 'fields that are no form fields never reach the carrier')
  const form = await built.app.inject({ method: 'POST', url: '/api/carrier/simulated/status', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'CallSid=CA1&CallSid=CA2' })
  t.same([form.statusCode, form.json().error], [404, 'not found'], 'a name sent twice is a list of fields, for the carrier to judge (the simulated one takes no callbacks)')
  const page = await built.app.inject({ method: 'POST', url: '/app/sign-in', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ email: 42 }) })
  t.same([page.statusCode, page.json().error], [400, 'invalid request'], 'a console form whose fields are not text: refused, nothing signed in')
  t.equal(await built.leadline.store.headPosition(), before, 'nothing recorded')
})
