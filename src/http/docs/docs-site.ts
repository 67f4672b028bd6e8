/**
 * Every representation the docs serve, built once for one public URL: each page as HTML and as
 * markdown, llms.txt, llms-full.txt and the 404s. Bodies and their ETags are computed here, so a
 * request only looks one up.
 */
import { createHash } from 'node:crypto'
import { INDEX_PAGE, type DocsPage, type DocsSource } from './docs-source.ts'
import { renderLayout, type LayoutInput, type NavSection } from './layout.ts'
import { escapeHtml } from '../escape-html.ts'
import { renderMarkdown, type Heading } from './render-markdown.ts'

export interface Representation {
  readonly body: string
  readonly contentType: string
  /** Strong validator: a hash of the body. */
  readonly etag: string
}

export interface SitePage {
  readonly page: DocsPage
  readonly html: Representation
  readonly markdown: Representation
  /** Heading ids of the HTML, in order. */
  readonly headings: readonly Heading[]
}

export interface DocsSite {
  readonly baseUrl: string
  /** `{docs_url}`: the absolute URL of the docs home. */
  readonly docsUrl: string
  /** The path the docs live under as seen from outside (`/docs`, or `/prefix/docs` behind a proxy). */
  readonly docsPath: string
  readonly pages: ReadonlyMap<string, SitePage>
  readonly llmsTxt: Representation
  readonly llmsFullTxt: Representation
  readonly notFoundHtml: Representation
  readonly notFoundText: Representation
  /** What a client that takes neither page gets as the JSON error's `detail`. */
  readonly notFoundDetail: string
  /** Path (under docsPath) of a page's HTML; the index page is the docs home. */
  pagePath(name: string): string
}

/** The screenshots the docs may show (saved by test/e2e/console.e2e.ts): `/docs/screenshots/<name>`. */
export const SCREENSHOT_NAME = /^console-[a-z0-9-]+\.png$/

export const HTML = 'text/html; charset=utf-8'
export const MARKDOWN = 'text/markdown; charset=utf-8'
export const TEXT = 'text/plain; charset=utf-8'

export function representation(body: string, contentType: string): Representation {
  return { body, contentType, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` }
}

/** `{base_url}` and `{docs_url}` in a page, filled. */
export function fillPlaceholders(text: string, urls: { baseUrl: string; docsUrl: string }): string {
  return text.replaceAll('{base_url}', urls.baseUrl).replaceAll('{docs_url}', urls.docsUrl)
}

/**
 * Links between pages are written relative (`webhook.md#status-codes`) so they work in the
 * repository too; served as markdown they become absolute (`{docs_url}/webhook.md#…`), since the
 * raw page is read on its own, or inside llms-full.txt, far from its neighbours.
 */
export function absolutePageLinks(markdown: string): string {
  let fenced = false
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s{0,3}(```|~~~)/.test(line)) fenced = !fenced
      if (fenced) return line
      return line
        .replace(/\]\(([a-z0-9-]+\.md(?:#[^)\s]*)?)\)/g, '](' + '{docs_url}/$1)')
        .replace(/^(\s{0,3}\[[^\]]+\]:\s*)([a-z0-9-]+\.md(?:#\S*)?)/, '$1{docs_url}/$2')
    })
    .join('\n')
}

function llmsTxt(source: DocsSource, urls: { baseUrl: string; docsUrl: string }, byName: ReadonlyMap<string, DocsPage>): string {
  const lines = [
    `# ${source.manifest.title}`,
    '',
    `> ${oneLine(fillPlaceholders(source.manifest.summary, urls))}`,
    '',
    `Every page below is markdown; its HTML is the same URL without \`.md\`. All pages in one file: ${urls.docsUrl}/llms-full.txt`,
  ]
  for (const section of source.manifest.sections) {
    lines.push('', `## ${section.title}`, '')
    for (const name of section.pages) {
      const page = byName.get(name) as DocsPage
      const note = fillPlaceholders(absolutePageLinks(page.description), urls)
      lines.push(`- [${fillPlaceholders(page.title, urls)}](${urls.docsUrl}/${name}.md): ${note}`)
    }
  }
  return `${lines.join('\n')}\n`
}

function oneLine(text: string): string {
  return text.trim().replace(/\s*\n\s*/g, ' ')
}

/** Builds every representation for a public URL (LEADLINE_PUBLIC_URL, no trailing slash). */
export function buildDocsSite(source: DocsSource, publicUrl: string): DocsSite {
  const baseUrl = publicUrl.replace(/\/+$/, '')
  const docsUrl = `${baseUrl}/docs`
  const docsPath = `${new URL(baseUrl).pathname.replace(/\/+$/, '')}/docs`
  const urls = { baseUrl, docsUrl }
  const pagePath = (name: string) => (name === INDEX_PAGE ? docsPath : `${docsPath}/${name}`)
  const byName = new Map(source.pages.map((p) => [p.name, p]))
  const nav: NavSection[] = source.manifest.sections.map((section) => ({
    title: section.title,
    pages: section.pages.map((name) => ({ name, title: (byName.get(name) as DocsPage).title, href: pagePath(name) })),
  }))
  const frame = (input: Pick<LayoutInput, 'title' | 'description' | 'body' | 'current' | 'headings' | 'markdownHref'>) =>
    renderLayout({
      ...input,
      siteTitle: source.manifest.title,
      homeHref: docsPath,
      nav,
      llmsHref: `${docsPath}/llms.txt`,
      llmsFullHref: `${docsPath}/llms-full.txt`,
    })

  const pages = new Map<string, SitePage>()
  for (const page of source.pages) {
    const markdown = fillPlaceholders(absolutePageLinks(page.source), urls)
    const rendered = renderMarkdown(fillPlaceholders(page.source, urls), {
      pageHref: pagePath,
      imageSrc: (href) => {
        const name = href.startsWith(`${docsUrl}/screenshots/`) ? href.slice(`${docsUrl}/screenshots/`.length) : ''
        return SCREENSHOT_NAME.test(name) ? `${docsPath}/screenshots/${name}` : null
      },
    })
    const html = frame({
      title: fillPlaceholders(page.title, urls),
      description: fillPlaceholders(page.descriptionText, urls),
      body: rendered.html,
      current: page.name,
      headings: rendered.headings,
      markdownHref: `${docsPath}/${page.name}.md`,
    })
    pages.set(page.name, { page, html: representation(html, HTML), markdown: representation(markdown, MARKDOWN), headings: rendered.headings })
  }

  const full = [
    `# ${source.manifest.title}`,
    '',
    `> ${oneLine(fillPlaceholders(source.manifest.summary, urls))}`,
    '',
    `Every page of ${docsUrl}, in the order of ${docsUrl}/llms.txt.`,
    ...source.pages.flatMap((page) => ['', '---', '', `Source: ${docsUrl}/${page.name}.md`, '', (pages.get(page.name) as SitePage).markdown.body.trimEnd()]),
  ].join('\n')

  const notFoundDetail = `there is no such documentation page. Every page is listed at ${docsUrl}/llms.txt`
  const notFound = frame({
    title: 'Page not found',
    description: 'There is no documentation page at this address.',
    body: `<h1 id="page-not-found">Page not found</h1>\n<p>There is no documentation page at this address. Every page is in the list on this page, and in <a href="${escapeHtml(`${docsPath}/llms.txt`)}">llms.txt</a>.</p>\n<p><a href="${escapeHtml(docsPath)}">Go to the quick start</a></p>\n`,
    current: null,
    headings: [],
    markdownHref: null,
  })

  return {
    baseUrl,
    docsUrl,
    docsPath,
    pages,
    llmsTxt: representation(llmsTxt(source, urls, byName), TEXT),
    llmsFullTxt: representation(`${full}\n`, TEXT),
    notFoundHtml: representation(notFound, HTML),
    notFoundText: representation(`not found: ${notFoundDetail}\n`, TEXT),
    notFoundDetail,
    pagePath,
  }
}
