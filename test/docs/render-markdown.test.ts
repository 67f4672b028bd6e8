/** Markdown rendering for the docs: heading ids, links between pages, and nothing in a page becoming markup. */
import t from 'tap'
import { absolutePageLinks, fillPlaceholders } from '../../src/http/docs/docs-site.ts'
import { matchesEtag } from '../../src/http/docs/docs.route.ts'
import { headingsOf, renderMarkdown } from '../../src/http/docs/render-markdown.ts'
import { createSlugger, githubSlug } from '../../src/http/docs/slug.ts'

const render = (md: string) => renderMarkdown(md, { pageHref: (page) => `/docs/${page}` })

t.test('GitHub-style slugs', async (t) => {
  t.equal(githubSlug('Status codes'), 'status-codes')
  t.equal(githubSlug('The token: header or query'), 'the-token-header-or-query')
  t.equal(githubSlug('"phone required" although the body has a phone'), 'phone-required-although-the-body-has-a-phone')
  t.equal(githubSlug('leadline leads clear-dnc'), 'leadline-leads-clear-dnc')
  t.equal(githubSlug('1. Start Leadline'), '1-start-leadline')
  t.equal(githubSlug('What’s new? (0.1.0)'), 'whats-new-010')
  t.equal(githubSlug('snake_case stays'), 'snake_case-stays')
  t.equal(githubSlug('Ünïcode Àccents'), 'ünïcode-àccents')
  const slug = createSlugger()
  t.same(['Examples', 'Examples', 'Examples', 'Examples-1'].map(slug), ['examples', 'examples-1', 'examples-2', 'examples-1-1'], 'repeats are numbered as on GitHub')
})

t.test('headings get ids and anchors; the table of contents reads the same ids', async (t) => {
  const md = '# Title\n\nLede.\n\n## `x-service-token` header\n\n## Status codes\n\n### Status codes\n'
  const { html, headings } = render(md)
  t.same(headings.map((h) => h.id), ['title', 'x-service-token-header', 'status-codes', 'status-codes-1'])
  t.same(headingsOf(md), headings, 'headingsOf agrees with the renderer')
  t.match(html, '<h1 id="title">Title</h1>', 'no anchor link on the title')
  t.match(html, '<h2 id="x-service-token-header"><code>x-service-token</code> header <a class="anchor" href="#x-service-token-header"')
  t.match(html, '<h3 id="status-codes-1">')
})

t.test('links between pages point at the HTML pages', async (t) => {
  const { html } = render('[a](webhook.md) [b](cli.md#leadline-leads) [c](#here) [d](https://example.com/x) [e][ref] [f](mailto:ops@example.com)\n\n[ref]: errors.md#http-errors\n')
  t.match(html, '<a href="/docs/webhook">a</a>')
  t.match(html, '<a href="/docs/cli#leadline-leads">b</a>')
  t.match(html, '<a href="#here">c</a>')
  t.match(html, '<a href="https://example.com/x">d</a>')
  t.match(html, '<a href="/docs/errors#http-errors">e</a>', 'reference links too')
  t.match(html, '<a href="mailto:ops@example.com">f</a>')
})

t.test('links a page of ours would never have are dropped to their text', async (t) => {
  const { html } = render('[x](javascript:alert(1)) [y](data:text/html,hi) [z](../README.md) ![pic](https://example.com/p.png)')
  t.notMatch(html, /href|<img/)
  t.match(html, '<p>x y z pic</p>')
})

t.test('raw HTML is shown as text; comments are dropped', async (t) => {
  const { html } = render('<script>alert(1)</script>\n\nText <b onclick="x()">bold</b> <!-- a note -->\n\n<!-- example-account: {"industry":"solar"} -->\n\n<div>\n<img src=x onerror=alert(1)>\n</div>\n')
  t.notMatch(html, /<script|<b |<img|<div>/)
  t.match(html, '&#60;script&#62;alert(1)&#60;/script&#62;')
  t.match(html, '&#60;b onclick=&#34;x()&#34;&#62;bold&#60;/b&#62;')
  t.notMatch(html, /a note|example-account/, 'comments are not shown')
})

t.test('code blocks are labelled and escaped', async (t) => {
  const { html } = render('```sh\ncurl -i "{x}" -d \'<b>\'\n```\n\n```http\nHTTP/1.1 200 OK\n\n{}\n```\n\n```\nplain\n```\n')
  t.match(html, '<div class="code"><div class="code-head">Shell <span class="tested"')
  t.match(html, '<code class="language-sh">curl -i &#34;{x}&#34; -d &#39;&#60;b&#62;&#39;\n</code>')
  t.match(html, '<div class="code-head">HTTP response</div>')
  t.match(html, '<div class="code"><pre><code>plain\n</code></pre></div>', 'no label without a language')
})

t.test('tables scroll inside a wrapper', async (t) => {
  const { html } = render('| a | b |\n|---|:-:|\n| 1 | 2 |\n')
  t.match(html, '<div class="table-wrap"><table>')
  t.match(html, '<td align="center">2</td>')
})

t.test('placeholders and absolute links in the served markdown', async (t) => {
  t.equal(fillPlaceholders('{base_url}/api and {docs_url}/x.md', { baseUrl: 'https://a.test', docsUrl: 'https://a.test/docs' }), 'https://a.test/api and https://a.test/docs/x.md')
  const md = 'See [cli](cli.md#leadline-leads) and [home](index.md).\n\n```md\n[kept](cli.md)\n```\n\n[ref]: webhook.md#status-codes\n'
  t.equal(
    absolutePageLinks(md),
    'See [cli]({docs_url}/cli.md#leadline-leads) and [home]({docs_url}/index.md).\n\n```md\n[kept](cli.md)\n```\n\n[ref]: {docs_url}/webhook.md#status-codes\n',
    'links outside code become absolute; code is left alone',
  )
})

t.test('If-None-Match', async (t) => {
  t.ok(matchesEtag('"abc"', '"abc"'))
  t.ok(matchesEtag('W/"abc"', '"abc"'), 'weak comparison')
  t.ok(matchesEtag('"x", "abc"', '"abc"'))
  t.ok(matchesEtag(' * ', '"abc"'))
  t.notOk(matchesEtag('"abcd"', '"abc"'))
  t.notOk(matchesEtag(undefined, '"abc"'))
  t.notOk(matchesEtag('', '"abc"'))
})
