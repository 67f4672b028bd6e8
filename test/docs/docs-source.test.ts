/** The docs directory is checked at start: a broken page stops the server with every problem named. */
import Fastify from 'fastify'
import t from 'tap'
import { DocsError, loadDocsSource } from '../../src/http/docs/docs-source.ts'
import { docsRoutes } from '../../src/http/docs/docs.route.ts'

const manifest = (sections: unknown, extra: object = {}) =>
  JSON.stringify({ title: 'Test', summary: 'A test site.', sections, ...extra })

function problemsOf(fn: () => unknown): readonly string[] {
  try {
    fn()
  } catch (error) {
    if (error instanceof DocsError) return error.problems
    throw error
  }
  return []
}

t.test('a valid directory loads, in manifest order, with titles and descriptions', async (t) => {
  const dir = t.testdir({
    'pages.json': manifest([{ title: 'Start', pages: ['index', 'b-page'] }, { title: 'Optional', pages: ['a'] }]),
    'index.md': '<!-- a note first is fine -->\n\n# Home `page`\n\nThe home page, with `code` and [a link](a.md).\n\n## Section\n',
    'a.md': '# A\n\nPage A.\n',
    'b-page.md': '# B\n\nPage B.\n',
    'README.md': 'Notes for writers: not a page.\n',
    'notes.txt': 'ignored',
  })
  const docs = loadDocsSource(dir)
  t.same(docs.pages.map((p) => p.name), ['index', 'b-page', 'a'])
  t.same(docs.pages.map((p) => p.section), ['Start', 'Start', 'Optional'])
  const index = docs.pages[0]
  t.equal(index?.title, 'Home page')
  t.equal(index?.description, 'The home page, with `code` and [a link](a.md).')
  t.equal(index?.descriptionText, 'The home page, with code and a link.')
})

t.test('every problem is named', async (t) => {
  const dir = t.testdir({
    'pages.json': manifest([{ title: 'S', pages: ['index', 'no-title', 'no-lede', 'long-lede', 'two-h1', 'missing', 'Bad_Name', 'index'] }]),
    'index.md': '# Home\n\nHome.\n',
    'no-title.md': 'Just text.\n',
    'no-lede.md': '# Title\n\n## Straight to a section\n',
    'long-lede.md': '# Title\n\nA lede\nover two lines.\n',
    'two-h1.md': '# One\n\nLede.\n\n# Two\n',
    'orphan.md': '# Orphan\n\nNot listed.\n',
  })
  const problems = problemsOf(() => loadDocsSource(dir))
  const expected = [
    /no-title\.md: must start with a "# Title" heading/,
    /no-lede\.md: the title must be followed by a one-line paragraph/,
    /long-lede\.md: .*one line/,
    /two-h1\.md: only the title may be a "# " heading/,
    /"missing" has no file missing\.md/,
    /"Bad_Name" is not a page name/,
    /"index" is listed twice/,
    /orphan\.md: not listed in pages\.json/,
  ]
  for (const pattern of expected) t.ok(problems.some((p) => pattern.test(p)), `names: ${pattern}`)
  t.equal(problems.length, expected.length, 'and nothing else')
})

t.test('a missing or malformed manifest, and a missing home page', async (t) => {
  t.match(problemsOf(() => loadDocsSource(t.testdir({ 'index.md': '# H\n\nH.\n' })))[0], /pages\.json/)
  t.match(problemsOf(() => loadDocsSource(t.testdir({ 'pages.json': '{"title": "x"}' })))[0], /pages\.json: expected/)
  t.match(problemsOf(() => loadDocsSource(t.testdir({ 'pages.json': 'not json' })))[0], /pages\.json/)
  const noIndex = t.testdir({ 'pages.json': manifest([{ title: 'S', pages: ['a'] }]), 'a.md': '# A\n\nA.\n' })
  t.match(problemsOf(() => loadDocsSource(noIndex)), [/the "index" page .* is missing/])
})

t.test('the plugin serves a directory it is given, and refuses to start on a broken one', async (t) => {
  const dir = t.testdir({ 'pages.json': manifest([{ title: 'S', pages: ['index'] }]), 'index.md': '# Home\n\nHello from {base_url}.\n' })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(docsRoutes, { source: loadDocsSource(dir), publicUrl: 'https://x.test/' })
  const res = await app.inject({ url: '/docs.md' })
  t.equal(res.body, '# Home\n\nHello from https://x.test.\n')
  const broken = t.testdir({ 'pages.json': manifest([{ title: 'S', pages: ['index'] }]) })
  t.throws(() => loadDocsSource(broken), DocsError)
})
