/**
 * The documentation (spec §1.9): `GET /docs` (the quick start), `/docs/<page>` (HTML),
 * `/docs/<page>.md` (markdown), `/docs/llms.txt` (also at `/llms.txt`) and `/docs/llms-full.txt`. Pages are read from
 * `docs/` once at start; a request only picks a prepared body, so no request reaches the disk and
 * a page name cannot name a file.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import path from 'node:path'
import { INDEX_PAGE, loadDocsSource, PAGE_NAME, SCREENSHOTS_DIR, type DocsSource } from './docs-source.ts'
import { readdirSync, readFileSync } from 'node:fs'
import { buildDocsSite, SCREENSHOT_NAME, type DocsSite, type Representation } from './docs-site.ts'
import { STYLE_HASH } from './layout.ts'
import { validatorCompiler } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { sendErrorPage } from '../errors.ts'
import { PAGE_FOR_PEOPLE } from '../route-schemas.ts'

export interface DocsOptions {
  /** Pages already loaded (tests); otherwise `docs/` of this checkout is read. */
  readonly source?: DocsSource
  /** Overrides the app's public URL. */
  readonly publicUrl?: string
}

export const CACHE_CONTROL = 'public, max-age=300'

/** Only this page's own style sheet: no scripts, no frames, nothing fetched from elsewhere. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${STYLE_HASH}`,
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const HTML_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
} as const

/** True when an If-None-Match header names this ETag (weak comparison, RFC 9110 §13.1.2). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false
  if (ifNoneMatch.trim() === '*') return true
  const opaque = etag.replace(/^W\//, '')
  return ifNoneMatch.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === opaque)
}

function send(request: FastifyRequest, reply: FastifyReply, rep: Representation): FastifyReply {
  reply.header('x-content-type-options', 'nosniff')
  if (rep.contentType.startsWith('text/html')) reply.headers(HTML_HEADERS)
  reply.header('etag', rep.etag).header('cache-control', CACHE_CONTROL)
  if (matchesEtag(request.headers['if-none-match'], rep.etag)) return reply.code(304).send()
  return reply.code(200).type(rep.contentType).send(rep.body)
}

let screenshots: Map<string, Buffer> | undefined

/** The console screenshots docs/console.md shows, read once, on first request (none when absent). */
function screenshot(name: string): Buffer | undefined {
  if (!screenshots) {
    screenshots = new Map()
    try {
      for (const file of readdirSync(SCREENSHOTS_DIR)) if (SCREENSHOT_NAME.test(file)) screenshots.set(file, readFileSync(path.join(SCREENSHOTS_DIR, file)))
    } catch {
      // no screenshots in this build: their images are 404s
    }
  }
  return screenshots.get(name)
}

// A process reads docs/ once and builds a site once per public URL, however many apps it starts
// (a server starts one; the test suite starts hundreds).
let checkoutDocs: DocsSource | undefined
const sites = new WeakMap<DocsSource, Map<string, DocsSite>>()

function siteFor(source: DocsSource, publicUrl: string): DocsSite {
  const byUrl = sites.get(source) ?? new Map<string, DocsSite>()
  sites.set(source, byUrl)
  let site = byUrl.get(publicUrl)
  if (!site) {
    site = buildDocsSite(source, publicUrl)
    byUrl.set(publicUrl, site)
  }
  return site
}

export const docsRoutes: FastifyPluginAsync<DocsOptions> = async (fastify, options) => {
  // Its schemas are zod's, also when the site is served on an app of its own (a directory given in `source`).
  fastify.setValidatorCompiler(validatorCompiler)
  const source = options.source ?? (checkoutDocs ??= loadDocsSource())
  const site = siteFor(source, options.publicUrl ?? fastify.publicUrl)
  const index = site.pages.get(INDEX_PAGE)
  if (!index) throw new Error(`docs: the ${INDEX_PAGE} page is missing`)
  const home = site.docsPath

  /** No such page: a page for people to a browser or a markdown reader, the JSON error every route answers to any other client. */
  const notFound = (reply: FastifyReply, markdown: boolean) => {
    const rep = markdown ? site.notFoundText : site.notFoundHtml
    reply.header('x-content-type-options', 'nosniff').header('cache-control', 'no-store')
    if (!markdown) reply.headers(HTML_HEADERS)
    const page = { type: rep.contentType, body: rep.body, acceptedAs: markdown ? ['text/plain', 'text/markdown'] : ['text/html'] }
    return sendErrorPage(reply, 404, page, { error: 'not_found', detail: site.notFoundDetail })
  }

  // HTML pages name their markdown, for agents that arrive at the HTML first.
  const alternate = (reply: FastifyReply, name: string) =>
    reply.header('link', `<${site.docsPath}/${name}.md>; rel="alternate"; type="text/markdown"`)

  const page = { schema: PAGE_FOR_PEOPLE }
  const named = { schema: { ...PAGE_FOR_PEOPLE, params: z.object({ name: z.string() }) } }
  fastify.get('/docs', page, (request, reply) => send(request, alternate(reply, INDEX_PAGE), index.html))
  // The home page's own URL plus `.md` (spec §1.9); /docs/index.md serves the same.
  fastify.get('/docs.md', page, (request, reply) => send(request, reply, index.markdown))
  fastify.get('/docs/', page, (_request, reply) => reply.redirect(home, 301))
  fastify.get('/docs/llms.txt', page, (request, reply) => send(request, reply, site.llmsTxt))
  // Where agents look first (llmstxt.org): the same index at the root.
  fastify.get('/llms.txt', page, (request, reply) => send(request, reply, site.llmsTxt))
  fastify.get('/docs/llms-full.txt', page, (request, reply) => send(request, reply, site.llmsFullTxt))

  fastify.get<{ Params: { name: string } }>('/docs/:name', named, (request, reply) => {
    const requested = request.params.name
    const markdown = requested.endsWith('.md')
    const name = markdown ? requested.slice(0, -'.md'.length) : requested
    const page = PAGE_NAME.test(name) ? site.pages.get(name) : undefined
    if (!page) return notFound(reply, markdown)
    if (markdown) return send(request, reply, page.markdown)
    if (name === INDEX_PAGE) return reply.redirect(home, 301)
    return send(request, alternate(reply, name), page.html)
  })

  fastify.get<{ Params: { name: string } }>('/docs/screenshots/:name', named, (request, reply) => {
    const image = SCREENSHOT_NAME.test(request.params.name) ? screenshot(request.params.name) : undefined
    if (!image) return notFound(reply, true)
    return reply.header('cache-control', CACHE_CONTROL).header('x-content-type-options', 'nosniff').type('image/png').send(image)
  })

  // Deeper paths (`/docs/a/b`, `/docs//x`) are never pages.
  fastify.get<{ Params: { '*': string } }>('/docs/*', { schema: { ...PAGE_FOR_PEOPLE, params: z.object({ '*': z.string() }) } }, (request, reply) =>
    notFound(reply, request.params['*'].endsWith('.md')),
  )
}
