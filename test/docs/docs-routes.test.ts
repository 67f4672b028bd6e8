/**
 * The served docs (spec §1.9): every page as HTML and as markdown, llms.txt and llms-full.txt,
 * caching and security headers, placeholders filled, 404s, no way out of the page list, and no
 * broken link or anchor anywhere.
 */
import { request as httpRequest } from 'node:http'
import t from 'tap'
import type { Tokens, Token } from 'marked'
import { loadDocsSource, type DocsPage } from '../../src/http/docs/docs-source.ts'
import { absolutePageLinks, fillPlaceholders } from '../../src/http/docs/docs-site.ts'
import { headingsOf, lex, PAGE_LINK } from '../../src/http/docs/render-markdown.ts'
import { BROWSER_ACCEPT, buildApp } from '../helpers/build-app.ts'

const PUBLIC_URL = 'https://leads.example.com'
const DOCS_URL = `${PUBLIC_URL}/docs`
const source = loadDocsSource()
const htmlPath = (name: string) => (name === 'index' ? '/docs' : `/docs/${name}`)

async function docsApp(tap: Parameters<typeof buildApp>[0], publicUrl = PUBLIC_URL) {
  return (await buildApp(tap, { publicUrl, start: false })).app
}

function idsOf(html: string): Set<string> {
  return new Set([...html.matchAll(/\sid="([^"]*)"/g)].map((m) => m[1] as string))
}

function hrefsOf(html: string): string[] {
  return [...html.matchAll(/<a\s[^>]*href="([^"]*)"/g)].map((m) => (m[1] as string).replace(/&#38;/g, '&'))
}

t.test('every page is served as HTML', async (t) => {
  const app = await docsApp(t)
  for (const page of source.pages) {
    const res = await app.inject({ url: htmlPath(page.name) })
    t.equal(res.statusCode, 200, `${page.name}: 200`)
    t.equal(res.headers['content-type'], 'text/html; charset=utf-8', `${page.name}: HTML`)
    t.match(res.headers['content-security-policy'], /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; /, `${page.name}: CSP allows only its own style sheet`)
    t.notMatch(res.headers['content-security-policy'], /script-src|unsafe/, `${page.name}: no scripts, nothing unsafe`)
    t.equal(res.headers['x-content-type-options'], 'nosniff')
    t.equal(res.headers['x-frame-options'], 'DENY')
    t.equal(res.headers['referrer-policy'], 'no-referrer')
    t.equal(res.headers['cache-control'], 'public, max-age=300')
    t.match(res.headers.etag, /^"[A-Za-z0-9_-]{32}"$/, `${page.name}: a strong ETag`)
    t.equal(res.headers.link, `</docs/${page.name}.md>; rel="alternate"; type="text/markdown"`, `${page.name}: names its markdown`)
    t.ok(res.body.startsWith('<!doctype html>'), `${page.name}: a whole document`)
    t.match(res.body, `<meta name="viewport" content="width=device-width, initial-scale=1">`, `${page.name}: readable on a phone`)
    t.match(res.body, /<title>[^<]+<\/title>/)
    t.notMatch(res.body, /\{base_url\}|\{docs_url\}/, `${page.name}: placeholders filled`)
    t.notMatch(res.body, /<script/i, `${page.name}: no scripts`)
    t.match(res.body, `aria-current="page">`, `${page.name}: the sidebar marks it`)
    for (const other of source.pages) t.match(res.body, `href="${htmlPath(other.name)}"`, `${page.name}: the sidebar links ${other.name}`)
    if (page.source.includes('{base_url}')) t.match(res.body, PUBLIC_URL, `${page.name}: {base_url} is LEADLINE_PUBLIC_URL`)
  }
})

t.test('every page is served as markdown at its URL plus .md', async (t) => {
  const app = await docsApp(t)
  for (const page of source.pages) {
    const res = await app.inject({ url: `/docs/${page.name}.md` })
    t.equal(res.statusCode, 200, `${page.name}.md: 200`)
    t.equal(res.headers['content-type'], 'text/markdown; charset=utf-8', `${page.name}.md: markdown`)
    t.equal(res.headers['x-content-type-options'], 'nosniff')
    t.equal(res.headers['cache-control'], 'public, max-age=300')
    t.match(res.headers.etag, /^"[A-Za-z0-9_-]{32}"$/)
    t.equal(res.body, fillPlaceholders(absolutePageLinks(page.source), { baseUrl: PUBLIC_URL, docsUrl: DOCS_URL }), `${page.name}.md: the page source, placeholders filled`)
    t.notMatch(res.body, /\{base_url\}|\{docs_url\}/)
    t.notMatch(res.body, /\]\((?!https?:|#|mailto:)[^)]*\)/, `${page.name}.md: links are absolute, so the page reads on its own`)
  }
  const home = await app.inject({ url: '/docs.md' })
  const index = await app.inject({ url: '/docs/index.md' })
  t.equal(home.statusCode, 200, '/docs plus .md is the home page as markdown')
  t.equal(home.body, index.body)
  t.equal(home.headers['content-type'], 'text/markdown; charset=utf-8')
})

t.test('ETag and If-None-Match', async (t) => {
  const app = await docsApp(t)
  for (const url of ['/docs', '/docs/webhook', '/docs/webhook.md', '/docs/llms.txt', '/docs/llms-full.txt']) {
    const first = await app.inject({ url })
    const again = await app.inject({ url })
    const etag = first.headers.etag as string
    t.equal(again.headers.etag, etag, `${url}: the same body has the same ETag`)
    const fresh = await app.inject({ url, headers: { 'if-none-match': etag } })
    t.equal(fresh.statusCode, 304, `${url}: 304 when the ETag matches`)
    t.equal(fresh.body, '', `${url}: 304 has no body`)
    t.equal(fresh.headers.etag, etag)
    t.equal(fresh.headers['cache-control'], 'public, max-age=300')
    t.equal((await app.inject({ url, headers: { 'if-none-match': `"stale", ${etag}` } })).statusCode, 304, `${url}: a list of ETags`)
    t.equal((await app.inject({ url, headers: { 'if-none-match': `W/${etag}` } })).statusCode, 304, `${url}: weak comparison`)
    t.equal((await app.inject({ url, headers: { 'if-none-match': '*' } })).statusCode, 304, `${url}: *`)
    const stale = await app.inject({ url, headers: { 'if-none-match': '"something-else"' } })
    t.equal(stale.statusCode, 200, `${url}: 200 when it does not`)
    t.equal(stale.body, first.body)
  }
  const etags = await Promise.all(source.pages.map(async (p) => (await app.inject({ url: htmlPath(p.name) })).headers.etag))
  t.equal(new Set(etags).size, source.pages.length, 'different pages, different ETags')
  const head = await app.inject({ method: 'HEAD', url: '/docs/cli' })
  t.equal(head.statusCode, 200, 'HEAD works')
  t.equal(head.body, '')
  t.equal(head.headers.etag, (await app.inject({ url: '/docs/cli' })).headers.etag)
})

t.test('the ETag follows the public URL the pages are filled with', async (t) => {
  const a = await docsApp(t, 'https://a.example.com')
  const b = await docsApp(t, 'https://b.example.com')
  const ra = await a.inject({ url: '/docs/webhook.md' })
  const rb = await b.inject({ url: '/docs/webhook.md' })
  t.not(ra.headers.etag, rb.headers.etag)
  t.match(ra.body, 'https://a.example.com/api/ingest/lead')
  t.match(rb.body, 'https://b.example.com/api/ingest/lead')
})

t.test('redirects to the home page', async (t) => {
  const app = await docsApp(t)
  for (const url of ['/docs/', '/docs/index']) {
    const res = await app.inject({ url })
    t.equal(res.statusCode, 301, `${url}: 301`)
    t.equal(res.headers.location, '/docs', `${url}: to /docs`)
  }
})

t.test('behind a proxy, links keep the public URL path', async (t) => {
  const app = await docsApp(t, 'https://example.com/leadline')
  const res = await app.inject({ url: '/docs/webhook' })
  t.match(res.body, 'href="/leadline/docs/cli"', 'sidebar links carry the prefix')
  t.match(res.body, 'href="/leadline/docs/cli#leadline-token-rotate"', 'links between pages carry the prefix')
  t.equal((await app.inject({ url: '/docs/' })).headers.location, '/leadline/docs')
  t.match((await app.inject({ url: '/docs/llms.txt' })).body, '(https://example.com/leadline/docs/webhook.md)')
})

t.test('unknown pages', async (t) => {
  const app = await docsApp(t)
  const html = await app.inject({ url: '/docs/no-such-page', headers: { accept: BROWSER_ACCEPT } })
  t.equal(html.statusCode, 404, 'an unknown page is 404')
  t.equal(html.headers['content-type'], 'text/html; charset=utf-8', 'as an HTML page, to a browser')
  t.match(html.body, 'Page not found')
  t.match(html.body, 'href="/docs/webhook"', 'with the sidebar, to find the way')
  t.equal(html.headers['x-frame-options'], 'DENY', 'with the security headers')
  t.ok(html.headers['content-security-policy'])
  t.equal(html.headers['cache-control'], 'no-store', 'not cached')
  t.notOk(html.headers.etag)

  const md = await app.inject({ url: '/docs/no-such-page.md', headers: { accept: 'text/markdown, text/plain;q=0.9' } })
  t.equal(md.statusCode, 404, 'an unknown .md is 404')
  t.equal(md.headers['content-type'], 'text/plain; charset=utf-8', 'as text, to a client that takes markdown or text')
  t.equal(md.body, `not found: there is no such documentation page. Every page is listed at ${DOCS_URL}/llms.txt\n`)
  t.equal(md.headers['x-content-type-options'], 'nosniff')

  // Any other client (curl's */*, none at all, or JSON) gets the JSON error every route answers.
  for (const [url, accept] of [['/docs/no-such-page', undefined], ['/docs/no-such-page.md', '*/*'], ['/docs/no-such-page', 'application/json'], ['/docs/no-such-page', 'text/html;q=0']] as const) {
    const response = await app.inject({ url, headers: accept === undefined ? {} : { accept } })
    t.equal(response.statusCode, 404, `${url} (${accept}): 404`)
    t.match(response.headers['content-type'], /^application\/json/, `${url} (${accept}): JSON`)
    t.same(response.json(), { error: 'not found', detail: `there is no such documentation page. Every page is listed at ${DOCS_URL}/llms.txt` })
    t.equal(response.headers['cache-control'], 'no-store', 'not cached either')
  }

  for (const url of ['/docs/Webhook', '/docs/webhook.md.md', '/docs/webhook.html', '/docs/a/b', '/docs//webhook', '/docs/webhook/', '/docs/%E2%80%A6', '/docs/pages.json', '/docs/README.md', '/docs/llms']) {
    t.equal((await app.inject({ url })).statusCode, 404, `${url}: 404`)
  }
  const nested = await app.inject({ url: '/docs/a/b.md', headers: { accept: 'text/plain' } })
  t.equal(nested.headers['content-type'], 'text/plain; charset=utf-8', 'a nested .md is a text 404')
  t.equal((await app.inject({ url: '/docs/<script>', headers: { accept: BROWSER_ACCEPT } })).body.includes('<script>'), false, 'the name asked for is never echoed')
})

/** A request sent as written (no normalisation of `..`), over a real socket. */
async function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  const url = new URL(base)
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

t.test('no path traversal: a page name cannot name a file', async (t) => {
  const built = await buildApp(t, { publicUrl: PUBLIC_URL, start: false })
  const base = await built.listen()
  const paths = [
    '/docs/../package.json',
    '/docs/..%2f..%2fpackage.json',
    '/docs/..%2f..%2fpackage.json.md',
    '/docs/%2e%2e%2f%2e%2e%2fpackage',
    '/docs/%2e%2e/%2e%2e/package.json',
    '/docs/..\\..\\package.json',
    '/docs/....//....//etc/passwd',
    '/docs/%2fetc%2fpasswd.md',
    '/docs/webhook%00.md',
    '/docs/pages',
    '/docs/pages.json',
    '/docs/index.md/..',
  ]
  for (const path of paths) {
    const res = await rawGet(base, path)
    t.not(res.status, 200, `${path}: not served`)
    t.notMatch(res.body, /"dependencies"|root:x:0|"sections"/, `${path}: no file content`)
  }
})

t.test('llms.txt', async (t) => {
  const app = await docsApp(t)
  const res = await app.inject({ url: '/docs/llms.txt' })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'text/plain; charset=utf-8')
  t.match(res.headers.etag, /^"/)
  t.equal(res.headers['cache-control'], 'public, max-age=300')
  const lines = res.body.split('\n')
  t.equal(lines[0], `# ${source.manifest.title}`, 'starts with the title as an H1')
  t.equal(lines[1], '')
  t.match(lines[2], /^> \S.{80,}$/, 'then the summary, one paragraph on one line, as a block quote')
  t.notMatch(res.body, /\{base_url\}|\{docs_url\}/)

  const sections = lines.filter((l) => l.startsWith('## ')).map((l) => l.slice(3))
  t.same(sections, source.manifest.sections.map((s) => s.title), 'sections in manifest order')
  t.notOk(lines.some((l) => l.startsWith('# ') && l !== lines[0]), 'one H1 only')

  const entries = lines.filter((l) => l.startsWith('- '))
  t.equal(entries.length, source.pages.length, 'one entry per page')
  for (const page of source.pages) {
    const entry = entries.filter((l) => l.includes(`](${DOCS_URL}/${page.name}.md)`))
    t.equal(entry.length, 1, `${page.name} is listed once`)
    t.match(entry[0], new RegExp(`^- \\[[^\\]]+\\]\\(${DOCS_URL.replace(/[.]/g, '\\.')}/${page.name}\\.md\\): \\S`), `${page.name}: "- [title](absolute url): description"`)
  }
  for (const entry of entries) {
    const url = /\]\((https?:[^)\s]+)\)/.exec(entry)?.[1] as string
    t.ok(url.startsWith(`${DOCS_URL}/`), `${url} is absolute`)
    const target = await app.inject({ url: url.slice(PUBLIC_URL.length) })
    t.equal(target.statusCode, 200, `${url} resolves`)
    t.equal(target.headers['content-type'], 'text/markdown; charset=utf-8', `${url} is markdown`)
  }
  // Other docs URLs in the text (llms-full.txt) resolve too; {base_url} endpoints are for POSTs.
  for (const url of [...res.body.matchAll(/https?:\/\/[^\s)]+[^\s).,;:]/g)].map((m) => m[0]).filter((u) => u.startsWith(DOCS_URL))) {
    t.equal((await app.inject({ url: url.slice(PUBLIC_URL.length) })).statusCode, 200, `${url} (in llms.txt) resolves`)
  }
})

t.test('llms-full.txt has every page', async (t) => {
  const app = await docsApp(t)
  const res = await app.inject({ url: '/docs/llms-full.txt' })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'text/plain; charset=utf-8')
  t.ok(res.body.startsWith(`# ${source.manifest.title}\n\n> `), 'starts like llms.txt')
  let at = 0
  for (const page of source.pages) {
    const md = (await app.inject({ url: `/docs/${page.name}.md` })).body.trimEnd()
    const found = res.body.indexOf(md, at)
    t.ok(found > at, `${page.name}: whole, in manifest order`)
    t.match(res.body, `Source: ${DOCS_URL}/${page.name}.md`)
    at = found
  }
  t.notMatch(res.body, /\{base_url\}|\{docs_url\}/)
})

t.test('the home page links every page', async (t) => {
  const index = source.pages.find((p) => p.name === 'index') as DocsPage
  for (const page of source.pages.filter((p) => p.name !== 'index')) {
    t.match(index.source, `](${page.name}.md)`, `index.md links ${page.name}.md in its text`)
  }
})

function linksIn(tokens: readonly Token[], found: string[] = []): string[] {
  for (const token of tokens) {
    if (token.type === 'link' || token.type === 'image') found.push((token as Tokens.Link).href)
    if (token.type === 'list') linksIn((token as Tokens.List).items, found)
    if (token.type === 'table') {
      const table = token as Tokens.Table
      for (const cell of [...table.header, ...table.rows.flat()]) linksIn(cell.tokens, found)
    }
    if ('tokens' in token && Array.isArray(token.tokens)) linksIn(token.tokens, found)
  }
  return found
}

t.test('no broken links or anchors in the sources', async (t) => {
  const app = await docsApp(t)
  const ids = new Map(source.pages.map((p) => [p.name, new Set(headingsOf(p.source).map((h) => h.id))]))
  for (const page of source.pages) {
    for (const href of linksIn(lex(page.source))) {
      const pageLink = PAGE_LINK.exec(href)
      if (href.startsWith('#')) {
        t.ok(ids.get(page.name)?.has(href.slice(1)), `${page.name}.md: ${href} is a heading of the page`)
      } else if (pageLink) {
        const target = pageLink[1] as string
        t.ok(ids.has(target), `${page.name}.md: ${href} is a page`)
        if (pageLink[2]) t.ok(ids.get(target)?.has(pageLink[2].slice(1)), `${page.name}.md: ${href}: the anchor is a heading of ${target}.md`)
      } else if (href.startsWith('{base_url}') || href.startsWith('{docs_url}')) {
        const path = href.replace('{base_url}', '').replace('{docs_url}', '/docs')
        t.equal((await app.inject({ url: path })).statusCode, 200, `${page.name}.md: ${href} resolves`)
      } else {
        t.match(href, /^(https?:|mailto:)/, `${page.name}.md: ${href} is a page (name.md), an anchor, a {base_url} link or an absolute URL`)
      }
    }
  }
})

t.test('no broken links or anchors in the served HTML', async (t) => {
  const app = await docsApp(t)
  const pages = new Map<string, string>()
  const load = async (path: string) => {
    if (!pages.has(path)) {
      const res = await app.inject({ url: path })
      t.equal(res.statusCode, 200, `${path} resolves`)
      pages.set(path, res.body)
    }
    return pages.get(path) as string
  }
  let checked = 0
  for (const page of source.pages) {
    const path = htmlPath(page.name)
    const html = await load(path)
    for (const href of hrefsOf(html)) {
      const local = href.startsWith(PUBLIC_URL) ? href.slice(PUBLIC_URL.length) : href
      if (!local.startsWith('/') && !local.startsWith('#')) {
        t.match(local, /^(https?:|mailto:)/, `${path}: ${href} is a link out`)
        continue
      }
      const [targetPath = '', fragment] = local.split('#')
      const target = targetPath === '' ? html : await load(targetPath)
      if (fragment !== undefined && (targetPath === '' || !/\.(md|txt)$/.test(targetPath))) {
        t.ok(idsOf(target).has(fragment), `${path}: ${href}: #${fragment} exists`)
      }
      checked += 1
    }
  }
  t.ok(checked > 100, `${checked} links checked`)
})

t.test('headings get GitHub-style ids, and anchors to them', async (t) => {
  const app = await docsApp(t)
  const html = (await app.inject({ url: '/docs/webhook' })).body
  t.match(html, '<h2 id="status-codes">Status codes <a class="anchor" href="#status-codes"')
  t.match(html, '<h2 id="the-token-header-or-query">')
  t.match(html, '<h3 id="phone-required-although-the-body-has-a-phone">')
  t.match(html, '<div class="table-wrap"><table>', 'tables scroll sideways on a phone')
  t.match(html, '<div class="code-head">Shell <span class="tested"', 'runnable examples are marked as tested')
  t.match(html, '<pre><code class="language-http">HTTP/1.1 201 Created', 'code blocks are labelled by language')
})

t.test('raw HTML and hostile public URLs are shown as text, never markup', async (t) => {
  const app = await docsApp(t, 'https://x.example.com/a"><script>alert(1)</script><img src=x onerror=alert(2)>')
  for (const page of source.pages) {
    const html = (await app.inject({ url: htmlPath(page.name) })).body
    // Text has every < escaped, so each < starts a real tag: none may be injected or carry a handler.
    const tags = html.match(/<[^>]*>/g) ?? []
    // The one image a page may have is our own screenshot, served under the docs path.
    t.notOk(tags.some((tag) => /^<script\b/i.test(tag) || (/^<img\b/i.test(tag) && !/^<img src="[^"]*\/docs\/screenshots\/console-[a-z0-9-]+\.png" alt="[^"]*" loading="lazy">$/.test(tag))), `${page.name}: no injected element`)
    t.notOk(tags.some((tag) => /\son[a-z]+\s*=/i.test(tag.replace(/"[^"]*"/g, '""'))), `${page.name}: no injected attribute`)
  }
  const llms = await app.inject({ url: '/docs/llms.txt' })
  t.equal(llms.headers['content-type'], 'text/plain; charset=utf-8', 'llms.txt is text, never HTML')
})

t.test('the console screenshots docs/console.md shows are served from docs/screenshots/, and nothing else is', async (t) => {
  const app = await docsApp(t)
  const page = await app.inject({ method: 'GET', url: '/docs/console' })
  const images = [...page.body.matchAll(/<img src="([^"]+)"/g)].map((m) => m[1] as string)
  t.ok(images.length >= 6, `${images.length} screenshots on the console page`)
  for (const src of images) {
    const image = await app.inject({ method: 'GET', url: src })
    t.equal(image.statusCode, 200, src)
    t.equal(image.headers['content-type'], 'image/png')
    t.same([...image.rawPayload.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${src}: a PNG`)
  }
  for (const url of ['/docs/screenshots/console-missing.png', '/docs/screenshots/..%2Fpages.json', '/docs/screenshots/docs-index-desktop.png', '/docs/screenshots/console-x.svg']) {
    t.equal((await app.inject({ method: 'GET', url })).statusCode, 404, url)
  }
})
