/**
 * The docs as written: `docs/pages.json` (the site title, its summary, and the pages in sections)
 * and one `docs/<page>.md` per page. Read once at start and checked, so a broken page stops the
 * server with a clear message instead of serving a half site. Upper-case files (README.md) are
 * notes for writers, not pages.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { projectPath } from '../../config/project-root.ts'
import type { Tokens } from 'marked'
import { lex, plainText } from './render-markdown.ts'

export const DEFAULT_DOCS_DIR = projectPath('docs')
/** The console screenshots docs/console.md shows (saved by test/e2e/console.e2e.ts). */
export const SCREENSHOTS_DIR = projectPath('docs', 'screenshots')

/** Page names are URL path segments: lower-case letters, digits and hyphens, nothing else. */
export const PAGE_NAME = /^[a-z0-9-]+$/

/** The page served at `/docs` itself. */
export const INDEX_PAGE = 'index'

export interface DocsSection {
  readonly title: string
  readonly pages: readonly string[]
}

export interface DocsManifest {
  /** The site's name: the llms.txt title. */
  readonly title: string
  /** One paragraph saying what the service is: the llms.txt summary. */
  readonly summary: string
  /** Sidebar and llms.txt sections, in order. A section titled "Optional" means what llms.txt says it means. */
  readonly sections: readonly DocsSection[]
}

export interface DocsPage {
  readonly name: string
  /** The first `# ` heading. */
  readonly title: string
  /** The first paragraph after the title, on one line: the page's llms.txt note and meta description. */
  readonly description: string
  /** The description without markdown, for the HTML meta description. */
  readonly descriptionText: string
  readonly section: string
  /** The file as written, placeholders unfilled. */
  readonly source: string
}

export interface DocsSource {
  readonly manifest: DocsManifest
  /** Every page, in manifest order. */
  readonly pages: readonly DocsPage[]
}

export class DocsError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`the docs cannot be served:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'DocsError'
  }
}

const MAX_DESCRIPTION = 300

function readManifest(dir: string, problems: string[]): DocsManifest | null {
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(path.join(dir, 'pages.json'), 'utf8'))
  } catch (error) {
    problems.push(`pages.json: ${(error as Error).message}`)
    return null
  }
  const m = raw as Partial<Record<keyof DocsManifest, unknown>>
  const ok =
    typeof m.title === 'string' && m.title.trim() !== '' &&
    typeof m.summary === 'string' && m.summary.trim() !== '' &&
    Array.isArray(m.sections) &&
    m.sections.every(
      (s: unknown) =>
        typeof s === 'object' && s !== null &&
        typeof (s as DocsSection).title === 'string' &&
        Array.isArray((s as DocsSection).pages) &&
        (s as DocsSection).pages.every((p) => typeof p === 'string'),
    )
  if (!ok) {
    problems.push('pages.json: expected {"title": string, "summary": string, "sections": [{"title": string, "pages": [page names]}]}')
    return null
  }
  return m as DocsManifest
}

/** Title and description of a page, by the convention above. */
function readPage(name: string, section: string, source: string, problems: string[]): DocsPage | null {
  const tokens = lex(source).filter((t) => t.type !== 'space' && !(t.type === 'html' && /^\s*<!--/.test(t.raw)))
  const [first, second] = tokens
  if (first?.type !== 'heading' || (first as Tokens.Heading).depth !== 1) {
    problems.push(`${name}.md: must start with a "# Title" heading`)
    return null
  }
  if (second?.type !== 'paragraph') {
    problems.push(`${name}.md: the title must be followed by a one-line paragraph describing the page`)
    return null
  }
  const description = (second as Tokens.Paragraph).text.trim()
  if (description.includes('\n') || description.length > MAX_DESCRIPTION) {
    problems.push(`${name}.md: the paragraph after the title is the page's description: keep it to one line of at most ${MAX_DESCRIPTION} characters`)
  }
  const later = tokens.slice(1).filter((t) => t.type === 'heading' && (t as Tokens.Heading).depth === 1)
  if (later.length > 0) problems.push(`${name}.md: only the title may be a "# " heading; use "## " for sections`)
  const descriptionText = plainText((second as Tokens.Paragraph).tokens).trim()
  return { name, title: plainText((first as Tokens.Heading).tokens).trim(), description, descriptionText, section, source }
}

/** Reads and checks the docs directory; throws DocsError listing every problem found. */
export function loadDocsSource(dir: string = DEFAULT_DOCS_DIR): DocsSource {
  const problems: string[] = []
  const manifest = readManifest(dir, problems)
  if (!manifest) throw new DocsError(problems)

  let files: string[]
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.md') && f === f.toLowerCase())
  } catch (error) {
    throw new DocsError([`${dir}: ${(error as Error).message}`])
  }
  const listed = new Set<string>()
  const pages: DocsPage[] = []
  for (const section of manifest.sections) {
    for (const name of section.pages) {
      if (!PAGE_NAME.test(name)) problems.push(`pages.json: "${name}" is not a page name (a-z, 0-9 and -)`)
      else if (listed.has(name)) problems.push(`pages.json: "${name}" is listed twice`)
      else if (!files.includes(`${name}.md`)) problems.push(`pages.json: "${name}" has no file ${name}.md`)
      else {
        const page = readPage(name, section.title, readFileSync(path.join(dir, `${name}.md`), 'utf8'), problems)
        if (page) pages.push(page)
      }
      listed.add(name)
    }
  }
  for (const file of files) {
    const name = file.slice(0, -'.md'.length)
    if (!listed.has(name)) problems.push(`${file}: not listed in pages.json (every page needs a section)`)
  }
  if (!listed.has(INDEX_PAGE)) problems.push(`pages.json: the "${INDEX_PAGE}" page (served at /docs) is missing`)
  if (problems.length > 0) throw new DocsError(problems)
  return { manifest, pages }
}
