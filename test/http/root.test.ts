/**
 * Where to go (issue #41): GET / sends a browser to the console and gives an agent a short index of
 * the service's URLs under its public URL; /llms.txt at the root is the docs' index.
 */
import t from 'tap'
import { buildApp, BROWSER_ACCEPT } from '../helpers/build-app.ts'

const PUBLIC = 'https://leads.example.com'

t.test('GET /: a browser goes to the console; an agent gets the index', async (t) => {
  const { app } = await buildApp(t, { publicUrl: PUBLIC })
  const browser = await app.inject({ method: 'GET', url: '/', headers: { accept: BROWSER_ACCEPT } })
  t.equal(browser.statusCode, 303)
  t.equal(browser.headers.location, '/app')

  const json = await app.inject({ method: 'GET', url: '/', headers: { accept: 'application/json' } })
  t.equal(json.statusCode, 200)
  t.same(json.json(), {
    name: 'Leadline',
    console: `${PUBLIC}/app`,
    docs: `${PUBLIC}/docs`,
    llms_txt: `${PUBLIC}/llms.txt`,
    webhook: `${PUBLIC}/api/ingest/lead`,
    tool_endpoint: `${PUBLIC}/api/mcp`,
    health: `${PUBLIC}/healthz`,
  })
  t.match(json.headers.vary, /accept/i)

  for (const accept of ['text/markdown', '*/*', undefined]) {
    const text = await app.inject({ method: 'GET', url: '/', headers: accept === undefined ? {} : { accept } })
    t.equal(text.statusCode, 200, String(accept))
    t.match(text.headers['content-type'], /^text\/markdown; charset=utf-8/)
    t.match(text.body, /^# Leadline\n/)
    t.match(text.body, `POST ${PUBLIC}/api/mcp`)
    t.match(text.body, `(${PUBLIC}/llms.txt)`)
  }
  t.equal((await app.inject({ method: 'GET', url: '/', headers: { accept: 'image/png' } })).statusCode, 406)
})

t.test('/llms.txt at the root serves the docs index, as /docs/llms.txt does', async (t) => {
  const { app } = await buildApp(t, { publicUrl: PUBLIC })
  const root = await app.inject({ method: 'GET', url: '/llms.txt' })
  const docs = await app.inject({ method: 'GET', url: '/docs/llms.txt' })
  t.equal(root.statusCode, 200)
  t.equal(root.body, docs.body)
  t.equal(root.headers['content-type'], docs.headers['content-type'])
  t.match(root.body, `${PUBLIC}/docs/mcp.md`)
})
