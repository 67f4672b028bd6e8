/**
 * The docs' pages whose examples run as a reader pastes them into one terminal (the quick start,
 * index.md): `NAME=$(npx leadline …)` and `"$NAME"` in later blocks, each command a process of its own,
 * against a listening server. The runner and the other pages: examples.test.ts and page-examples.ts.
 */
import t from 'tap'
import { loadDocsSource } from '../../src/http/docs/docs-source.ts'
import { extractExamples } from '../../src/http/docs/doc-examples.ts'
import { runPageExamples, runsInShell } from './page-examples.ts'

const pages = loadDocsSource()
  .pages.map((page) => ({ page, examples: extractExamples(page.source) }))
  .filter(({ examples }) => runsInShell(examples))

t.ok(pages.some(({ page }) => page.name === 'index'), 'the quick start is among them')
for (const { page, examples } of pages) t.test(`${page.name}.md`, (t) => runPageExamples(t, page, examples))
