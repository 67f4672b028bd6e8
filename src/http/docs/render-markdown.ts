/**
 * Markdown to HTML for the docs (marked, GFM). Our additions: GitHub-style heading ids, links
 * between pages (`webhook.md#anchor`) pointed at the served HTML pages, tables that scroll on a
 * phone, labelled code blocks, and raw HTML shown as text: the pages are ours, but the values
 * filled into them (the public URL) are not, so nothing in a page can become markup.
 */
import { getDefaults, Lexer, Parser, Renderer, type MarkedOptions, type Token, type Tokens } from 'marked'
import { escapeHtml } from '../escape-html.ts'
import { codeLanguage, isExample } from './doc-examples.ts'
import { createSlugger } from './slug.ts'

export interface Heading {
  readonly depth: number
  /** Plain text of the heading, without markdown. */
  readonly text: string
  readonly id: string
}

export interface RenderedMarkdown {
  readonly html: string
  readonly headings: readonly Heading[]
}

export interface RenderOptions {
  /** The href of another docs page's HTML, e.g. `webhook` → `/docs/webhook`. */
  readonly pageHref: (page: string) => string
  /** Where an image of ours is served (the console screenshots), or null for any other image. */
  readonly imageSrc?: (href: string) => string | null
}

/** A link to another page of the docs as written in the sources: `cli.md`, `webhook.md#status-codes`. */
export const PAGE_LINK = /^([a-z0-9-]+)\.md(#[^\s]*)?$/

const SAFE_SCHEME = /^(?:https?:|mailto:)/i
const HTML_COMMENT = /^\s*<!--[\s\S]*?-->\s*$/

const CODE_LABELS: Readonly<Record<string, string>> = {
  sh: 'Shell',
  bash: 'Shell',
  shell: 'Shell',
  console: 'Shell',
  http: 'HTTP response',
  json: 'JSON',
  text: 'Output',
}


/** The plain text of inline tokens (for heading ids and the table of contents). */
export function plainText(tokens: readonly Token[]): string {
  let text = ''
  for (const token of tokens) {
    if ('tokens' in token && Array.isArray(token.tokens) && token.type !== 'codespan') text += plainText(token.tokens)
    else if (token.type === 'html') continue
    else if ('text' in token && typeof token.text === 'string') text += token.text
  }
  return text
}

/** Every heading of a page with the id the HTML gives it, in order. */
export function headingsOf(markdown: string): Heading[] {
  const slug = createSlugger()
  const headings: Heading[] = []
  for (const token of lex(markdown)) {
    if (token.type !== 'heading') continue
    const text = plainText((token as Tokens.Heading).tokens)
    headings.push({ depth: (token as Tokens.Heading).depth, text, id: slug(text) })
  }
  return headings
}

/** Where a link in a page's source points in the HTML: another page, an anchor, or outside. */
export function htmlHref(href: string, options: RenderOptions): string | null {
  const page = PAGE_LINK.exec(href)
  if (page) return options.pageHref(page[1] as string) + (page[2] ?? '')
  if (href.startsWith('#') || SAFE_SCHEME.test(href)) return href
  // Any other relative link or scheme (javascript:, data:) is not something a page of ours links to.
  return null
}

class DocsRenderer extends Renderer {
  readonly headings: Heading[] = []
  private readonly slug = createSlugger()

  constructor(private readonly renderOptions: RenderOptions) {
    super()
  }

  override heading({ tokens, depth }: Tokens.Heading): string {
    const text = plainText(tokens)
    const id = this.slug(text)
    this.headings.push({ depth, text, id })
    const anchor = depth === 1 ? '' : ` <a class="anchor" href="#${escapeHtml(id)}" aria-label="Link to this section">#</a>`
    return `<h${depth} id="${escapeHtml(id)}">${this.parser.parseInline(tokens)}${anchor}</h${depth}>\n`
  }

  override link(token: Tokens.Link): string {
    const href = htmlHref(token.href, this.renderOptions)
    const inner = this.parser.parseInline(token.tokens)
    if (href === null) return inner
    const title = token.title ? ` title="${escapeHtml(token.title)}"` : ''
    return `<a href="${escapeHtml(href)}"${title}>${inner}</a>`
  }

  override image(token: Tokens.Image): string {
    // Only our own screenshots are shown; any other image is its alt text, never fetched from anywhere.
    const src = this.renderOptions.imageSrc?.(token.href) ?? null
    if (src === null) return escapeHtml(token.text)
    return `<img src="${escapeHtml(src)}" alt="${escapeHtml(token.text)}" loading="lazy">`
  }

  override html({ text }: Tokens.HTML | Tokens.Tag): string {
    // Comments are notes for writers and the example runner; any other HTML is shown as written.
    if (HTML_COMMENT.test(text)) return ''
    return escapeHtml(text)
  }

  override code({ text, lang }: Tokens.Code): string {
    const language = codeLanguage(lang)
    const label = CODE_LABELS[language] ?? language
    const tested = isExample(language, text)
      ? ' <span class="tested" title="The test suite runs this example and checks what it documents">tested</span>'
      : ''
    const head = label === '' ? '' : `<div class="code-head">${escapeHtml(label)}${tested}</div>`
    const cls = language === '' ? '' : ` class="language-${escapeHtml(language)}"`
    return `<div class="code">${head}<pre><code${cls}>${escapeHtml(text)}\n</code></pre></div>\n`
  }

  override table(token: Tokens.Table): string {
    return `<div class="table-wrap">${super.table(token)}</div>\n`
  }
}

function markedOptions(): MarkedOptions {
  return { ...getDefaults(), gfm: true, breaks: false, pedantic: false }
}

/** The block tokens of a page, as marked reads it (GFM). */
export function lex(markdown: string): Token[] {
  return new Lexer(markedOptions()).lex(markdown)
}

/** Renders one page's markdown (placeholders already filled). */
export function renderMarkdown(markdown: string, options: RenderOptions): RenderedMarkdown {
  // A renderer instance per page holds that page's heading ids; `Marked#use` would copy only
  // its own enumerable members, so the parser is given the instance directly.
  const renderer = new DocsRenderer(options)
  const html = new Parser({ ...markedOptions(), renderer }).parse(lex(markdown))
  return { html, headings: renderer.headings }
}
