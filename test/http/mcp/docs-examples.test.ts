/**
 * The tool endpoint's pages (docs/tools/: the MCP overview and one page per tool) follow the docs
 * convention (docs/README.md) and their curl examples run against a real listening server with the
 * real curl, page by page, as test/docs/examples.test.ts runs the served pages. Pages moved into
 * docs/ and listed in pages.json are run there instead, so no example runs twice.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { extractExamples, type DocExample } from '../../../src/http/docs/doc-examples.ts'
import { DEFAULT_DOCS_DIR, loadDocsSource } from '../../../src/http/docs/docs-source.ts'
import { operatorContext, type TestApp } from '../../helpers/build-app.ts'
import { listeningApp } from '../../docs/listening-app.ts'
import { compareResponse, fillExample, runCurl, shellWords, type Placeholders } from '../../docs/example-runner.ts'

const TOOLS_DOCS = path.join(DEFAULT_DOCS_DIR, 'tools')
const API_KEYS: Readonly<Record<string, readonly string[]>> = {
  '<API_KEY>': ['read', 'write', 'dial'],
  '<READ_ONLY_API_KEY>': ['read'],
}

const pages = readdirSync(TOOLS_DOCS)
  .filter((file) => /^[a-z0-9-]+\.md$/.test(file))
  .map((file) => ({ name: file.slice(0, -3), source: readFileSync(path.join(TOOLS_DOCS, file), 'utf8') }))
const served = new Set(loadDocsSource().pages.map((page) => page.name))

t.test('every page follows the docs convention (title, one-line description, one # heading)', async (t) => {
  // Checked by the docs loader itself, on a copy of the pages with a manifest listing them.
  const dir = t.testdir()
  for (const page of pages) writeFileSync(path.join(dir, `${page.name}.md`), page.source)
  writeFileSync(path.join(dir, 'index.md'), '# Index\n\nThe index.\n')
  const manifest = { title: 'Leadline', summary: 'Tools.', sections: [{ title: 'Tools', pages: ['index', ...pages.map((p) => p.name)] }] }
  writeFileSync(path.join(dir, 'pages.json'), JSON.stringify(manifest))
  t.equal(loadDocsSource(dir).pages.length, pages.length + 1)
  t.same(pages.map((p) => p.name).sort(), ['get-lead', 'get-lead-history', 'get-next-actions', 'list-leads', 'mark-do-not-call', 'mcp', 'place-call'])
})

async function accountPlaceholders(app: TestApp, example: DocExample, urls: Placeholders): Promise<Placeholders> {
  const { account, token } = await app.createAccount('Acme Insurance', example.accountSettings)
  const keys: Record<string, string> = {}
  for (const [placeholder, scopes] of Object.entries(API_KEYS)) {
    keys[placeholder] = (await app.leadline.accounts.createApiKey(account.accountId, scopes, null, operatorContext)).key.secret
  }
  return { ...urls, '<WEBHOOK_TOKEN>': token, '<ACCOUNT_ID>': account.accountId, ...keys }
}

const fillDocumented = (text: string, placeholders: Placeholders) => text.replace(/\{[a-z_]+\}|<[A-Z][A-Z0-9_]*>/g, (name) => placeholders[name] ?? name)

for (const page of pages) {
  if (served.has(page.name)) continue
  const examples = extractExamples(page.source)
  t.test(`docs/tools/${page.name}.md`, async (t) => {
    t.ok(examples.length >= 2, `${examples.length} examples`)
    const { app, baseUrl } = await listeningApp(t)
    const cwd = path.join(app.dir, 'examples')
    mkdirSync(cwd)
    const urls = { '{base_url}': baseUrl, '{docs_url}': `${baseUrl}/docs` }
    let generation = -1
    let placeholders: Placeholders = urls
    for (const example of examples) {
      if (example.kind !== 'http') continue
      if (example.accountGeneration !== generation) {
        placeholders = await accountPlaceholders(app, example, urls)
        generation = example.accountGeneration
      }
      await t.test(`${page.name}.md:${example.line} → ${example.response.status}`, async (t) => {
        const words = shellWords(fillExample(example.request, placeholders))
        t.equal(words[0], 'curl')
        const real = await runCurl(words.slice(1), cwd)
        const documented = { ...example.response, body: fillDocumented(example.response.body, placeholders) }
        t.same(compareResponse(documented, real), [], 'the response is the one the page documents', { real })
      })
    }
  })
}
