/**
 * The HTML around a docs page: a sidebar of pages (a compact list above the page on a phone), the
 * page's own sections, and links to its markdown and to llms.txt. One inline style sheet, no
 * scripts, no fonts or anything else from elsewhere, so the Content-Security-Policy can allow
 * exactly this style sheet by its hash and nothing more.
 */
import { createHash } from 'node:crypto'
import { escapeHtml } from '../escape-html.ts'
import type { Heading } from './render-markdown.ts'

export const STYLE = `
:root{--bg:#fff;--fg:#1f2328;--muted:#59636e;--border:#d1d9e0;--accent:#0b57d0;--code-bg:#f6f8fa;--code-fg:#1f2328;--side-bg:#f6f8fa;--badge:#1a7f37;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--border:#3d444d;--accent:#4493f8;--code-bg:#151b23;--code-fg:#e6edf3;--side-bg:#010409;--badge:#3fb950}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Liberation Sans",sans-serif}
a{color:var(--accent);text-underline-offset:.15em}
.skip{position:absolute;left:-10000px;top:0}
.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.5rem;z-index:1}
.layout{display:grid;grid-template-columns:minmax(0,1fr)}
.sidebar{background:var(--side-bg);border-bottom:1px solid var(--border);padding:.75rem 1rem;font-size:.9375rem}
.brand{display:inline-block;font-weight:700;font-size:1.0625rem;color:var(--fg);text-decoration:none;margin-bottom:.25rem}
.sidebar h2{font-size:.75rem;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:.75rem 0 .25rem}
.sidebar ul{list-style:none;margin:0;padding:0}
.sidebar li a{display:block;padding:.2rem .5rem;border-radius:6px;color:var(--fg);text-decoration:none}
.sidebar li a:hover{background:var(--border)}
.sidebar li a[aria-current=page]{background:var(--accent);color:#fff}
.toc,.sidebar .meta{display:none}
.sidebar .meta a{color:var(--muted)}
main{padding:1.25rem 1rem 3rem;max-width:52rem;min-width:0}
main>h1:first-child{margin-top:0}
h1{font-size:1.875rem;line-height:1.25}
h2{font-size:1.375rem;line-height:1.3;margin-top:2.25rem;padding-bottom:.3rem;border-bottom:1px solid var(--border)}
h3{font-size:1.125rem;margin-top:1.75rem}
h2,h3,h4{scroll-margin-top:1rem}
.anchor{color:var(--muted);text-decoration:none;font-weight:400;opacity:0}
h2:hover .anchor,h3:hover .anchor,h4:hover .anchor,.anchor:focus{opacity:1}
code{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"DejaVu Sans Mono","Liberation Mono",monospace;font-size:.875em}
:not(pre)>code{background:var(--code-bg);border:1px solid var(--border);border-radius:4px;padding:.05em .3em;overflow-wrap:anywhere}
.code{margin:1rem 0;border:1px solid var(--border);border-radius:8px;background:var(--code-bg);overflow:hidden}
.code-head{display:flex;gap:.5rem;align-items:center;padding:.3rem .75rem;font-size:.75rem;color:var(--muted);border-bottom:1px solid var(--border)}
.tested{color:var(--badge);border:1px solid currentColor;border-radius:999px;padding:0 .45rem;font-size:.6875rem}
pre{margin:0;padding:.75rem;overflow-x:auto;line-height:1.45;color:var(--code-fg)}
pre code{font-size:.8125rem;white-space:pre}
.table-wrap{overflow-x:auto;margin:1rem 0}
table{border-collapse:collapse;font-size:.9375rem;min-width:60%}
th,td{border:1px solid var(--border);padding:.35rem .6rem;text-align:left;vertical-align:top}
th{background:var(--code-bg)}
td :not(pre)>code,td>code,th>code{overflow-wrap:normal}
blockquote{margin:1rem 0;padding:.25rem 1rem;border-left:4px solid var(--accent);background:var(--code-bg);border-radius:0 6px 6px 0}
blockquote p{margin:.5rem 0}
hr{border:0;border-top:1px solid var(--border);margin:2rem 0}
.page-foot{margin-top:3rem;padding-top:1rem;border-top:1px solid var(--border);font-size:.875rem;color:var(--muted)}
.page-foot a{color:var(--muted)}
@media (max-width:59.99rem){
.sidebar nav>div{display:inline}
.sidebar h2{display:none}
.sidebar ul{display:inline-flex;flex-wrap:wrap;gap:.125rem .25rem}
}
@media (min-width:60rem){
.layout{grid-template-columns:17rem minmax(0,1fr)}
.sidebar{position:sticky;top:0;height:100vh;overflow-y:auto;border-bottom:0;border-right:1px solid var(--border);padding:1.5rem 1rem}
.toc,.sidebar .meta{display:block}
.toc li a{font-size:.875rem;color:var(--muted);padding:.1rem .5rem}
main{padding:2.5rem 3rem 4rem}
h1{font-size:2.125rem}
}
`.trim()

/** The CSP source that allows this style sheet and no other. */
export const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`

export interface NavPage {
  readonly name: string
  readonly title: string
  readonly href: string
}

export interface NavSection {
  readonly title: string
  readonly pages: readonly NavPage[]
}

export interface LayoutInput {
  readonly siteTitle: string
  /** Href of the docs home (`/docs`). */
  readonly homeHref: string
  readonly title: string
  /** Plain text for the meta description. */
  readonly description: string
  /** The page body, already HTML. */
  readonly body: string
  readonly nav: readonly NavSection[]
  /** The page to mark as current in the sidebar, if any. */
  readonly current: string | null
  /** Sections of this page for the "On this page" list. */
  readonly headings: readonly Heading[]
  /** The page's markdown, when it has one. */
  readonly markdownHref: string | null
  readonly llmsHref: string
  readonly llmsFullHref: string
}

function navHtml(input: LayoutInput): string {
  const sections = input.nav
    .map((section) => {
      const items = section.pages
        .map((page) => {
          const current = page.name === input.current ? ' aria-current="page"' : ''
          return `<li><a href="${escapeHtml(page.href)}"${current}>${escapeHtml(page.title)}</a></li>`
        })
        .join('')
      return `<div><h2>${escapeHtml(section.title)}</h2><ul>${items}</ul></div>`
    })
    .join('')
  const sectionsOfPage = input.headings.filter((h) => h.depth === 2)
  const toc =
    sectionsOfPage.length === 0
      ? ''
      : `<div class="toc"><h2>On this page</h2><ul>${sectionsOfPage
          .map((h) => `<li><a href="#${escapeHtml(h.id)}">${escapeHtml(h.text)}</a></li>`)
          .join('')}</ul></div>`
  const meta = [
    input.markdownHref ? `<li><a href="${escapeHtml(input.markdownHref)}">This page as markdown</a></li>` : '',
    `<li><a href="${escapeHtml(input.llmsHref)}">llms.txt</a></li>`,
    `<li><a href="${escapeHtml(input.llmsFullHref)}">llms-full.txt</a></li>`,
  ].join('')
  return `<nav aria-label="Documentation">${sections}</nav>${toc}<div class="meta"><h2>For agents</h2><ul>${meta}</ul></div>`
}

/** A complete HTML document for one page. */
export function renderLayout(input: LayoutInput): string {
  const title = input.title === input.siteTitle ? input.siteTitle : `${input.title} · ${input.siteTitle} docs`
  const alternate = input.markdownHref
    ? `\n<link rel="alternate" type="text/markdown" href="${escapeHtml(input.markdownHref)}">`
    : ''
  const foot = input.markdownHref
    ? `<footer class="page-foot">Also as <a href="${escapeHtml(input.markdownHref)}">markdown</a>; every page is listed in <a href="${escapeHtml(input.llmsHref)}">llms.txt</a>.</footer>`
    : ''
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<meta name="description" content="${escapeHtml(input.description)}">
<link rel="icon" href="data:,">${alternate}
<style>${STYLE}</style>
</head>
<body>
<a class="skip" href="#content">Skip to content</a>
<div class="layout">
<aside class="sidebar">
<a class="brand" href="${escapeHtml(input.homeHref)}">${escapeHtml(input.siteTitle)} docs</a>
${navHtml(input)}
</aside>
<main id="content">
${input.body}${foot}
</main>
</div>
</body>
</html>
`
}
