/**
 * Every curl example in docs/ runs against a real listening server (in this process), with the real
 * curl, and must produce the status, headers and body shape its page documents; every `leadline`
 * example runs on the same store, through `runCli`, and must print what its page shows (convention:
 * src/http/docs/doc-examples.ts; comparison rules: example-runner.ts; the runner: page-examples.ts).
 * Each page gets its own server and a fresh account, and its examples run in page order, so a page can
 * show a lead being created and then updated. A page whose examples run in a shell session (`npx
 * leadline` as a process: the quick start) runs in `npm run test:integration`
 * (shell-examples.integration.test.ts).
 */
import t from 'tap'
import { loadDocsSource } from '../../src/http/docs/docs-source.ts'
import { extractExamples, type DocExample } from '../../src/http/docs/doc-examples.ts'
import { runPageExamples, runsInShell } from './page-examples.ts'

const source = loadDocsSource()
const examplesByPage = source.pages.map((page) => ({ page, examples: extractExamples(page.source) }))
const count = (kind: DocExample['kind']) => examplesByPage.reduce((n, p) => n + p.examples.filter((e) => e.kind === kind).length, 0)

t.test('the quick start (index.md) works pasted as written, in order', async (t) => {
  const examples = examplesByPage.find(({ page }) => page.name === 'index')?.examples ?? []
  const first = examples[0]
  t.equal(first?.kind, 'variables', 'it starts by setting the shell variables the later steps use, from account create')
  t.match(first?.kind === 'variables' ? first.text : '', /\$\(npx leadline account create /, 'the account is the page\'s own')
  t.ok(examples.length > 1 && examples.slice(1).every((example) => example.shell), 'every later step runs in that shell, with those variables')
})

t.ok(count('http') >= 15, `the docs carry curl examples (${count('http')} found)`)
t.ok(count('cli') >= 10, `the docs carry command-line examples (${count('cli')} found)`)

for (const { page, examples } of examplesByPage) {
  if (examples.length === 0 || runsInShell(examples)) continue
  t.test(`${page.name}.md`, (t) => runPageExamples(t, page, examples))
}
