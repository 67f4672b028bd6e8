/**
 * Executable examples: the convention that lets the test suite run the examples in `docs/` against
 * a live server and the real CLI, so the docs cannot drift from the code (docs/README.md explains
 * it to writers; test/docs/examples.test.ts enforces it).
 *
 * - A request is a ```sh block whose command is `curl -i …` (one command; `\` continues a line;
 *   lines starting with `#` are comments). The next code block must be its response: a ```http
 *   block with the status line, the headers that matter, a blank line and the body.
 * - A command-line example is a ```sh block of `npx leadline …` commands (`leadline serve` is
 *   never run). When the next code block is a ```text block, it is the output of the block's one
 *   command; output that starts with `leadline: ` is an error message and the command must fail.
 * - Placeholders (`{base_url}`, `<WEBHOOK_TOKEN>`, `<ACCOUNT_ID>`, …) are filled in by the test.
 * - A ```sh block of `NAME=$(command …)` lines sets shell variables from commands' output. It and
 *   every example that uses a variable (`"$TOKEN"`) run in bash, in one shell session per page, so
 *   a page can be pasted into a terminal block by block, in order. Such a page writes `$NAME`,
 *   never `<NAME>`: a placeholder would have to be filled in by hand.
 * - `<!-- example-account: {"industry":"insurance"} -->` gives the examples after it a fresh
 *   account with those settings. Each page starts with a fresh default account.
 */
import { Lexer, getDefaults, type Token, type Tokens } from 'marked'

export const SHELL_LANGUAGES: ReadonlySet<string> = new Set(['sh', 'bash', 'shell', 'console'])

const CURL_LINE = /^\s*(?:\$\s+)?curl\s/m
/** `npx leadline …`, `leadline …` or `./bin/leadline …` (or `./bin/leadline.js …`), optionally after `NAME=value` settings. */
export const CLI_LINE = /^\s*(?:\$\s+)?(?:[A-Z_][A-Z0-9_]*=[^\s$]*\s+)*(?:npx\s+leadline|leadline|\.\/bin\/leadline(?:\.js)?)(?:\s|$)/
/** `NAME=$(command …)`: sets a shell variable from a command's output. */
const VARIABLE_LINE = /^[A-Za-z_][A-Za-z0-9_]*=\$\(.*\)$/
/** A `<NAME>` placeholder, filled in by the test (and by hand by a reader). */
const PLACEHOLDER = /<[A-Z][A-Z0-9_]*>/
const ACCOUNT_DIRECTIVE = /^\s*<!--\s*example-account:\s*([\s\S]*?)\s*-->\s*$/

/** The first word of a code block's info string (```sh title → `sh`). */
export function codeLanguage(lang: string | undefined): string {
  return (lang ?? '').trim().split(/\s+/)[0] ?? ''
}

/** Command lines of a shell block: comments dropped, `\` continuations joined. */
export function commandLines(text: string): string[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
}

/** True for a code block that is a runnable request (and so must be followed by its response). */
export function isCurlExample(language: string, text: string): boolean {
  return SHELL_LANGUAGES.has(language) && CURL_LINE.test(text)
}

/** True for a shell block of `NAME=$(command …)` lines only: it sets variables for the blocks after it. */
export function isVariablesExample(language: string, text: string): boolean {
  if (!SHELL_LANGUAGES.has(language)) return false
  const lines = commandLines(text)
  return lines.length > 0 && lines.every((line) => VARIABLE_LINE.test(line))
}

/** True when a block expands a shell variable or a command (`$NAME`, `${NAME}`, `$(…)`) outside single quotes. */
export function usesShell(text: string): boolean {
  return commandLines(text).some((line) => /\$[A-Za-z_{(]/.test(line.replace(/'[^']*'/g, "''")))
}

/** True for any block the test suite runs: a request, a command line, or variables. */
export function isExample(language: string, text: string): boolean {
  return isVariablesExample(language, text) || isCurlExample(language, text) || isCliExample(language, text)
}

/** True for a shell block made only of `leadline` commands, other than `leadline serve`. */
export function isCliExample(language: string, text: string): boolean {
  if (!SHELL_LANGUAGES.has(language)) return false
  const lines = commandLines(text)
  return lines.length > 0 && lines.every((line) => CLI_LINE.test(line) && !/\sserve(?:\s|$)/.test(line))
}

export interface DocumentedResponse {
  readonly status: number
  /** Headers the example shows; each must be present in the real response with this value. */
  readonly headers: ReadonlyArray<readonly [name: string, value: string]>
  /** The body as written (JSON or text); empty when the example shows none. */
  readonly body: string
}

interface ExampleBase {
  /** 1-based position among the page's examples. */
  readonly index: number
  /** 1-based line of the example's block in the page source, for failure messages. */
  readonly line: number
  /** Settings of the account this example runs against (from the latest directive; {} = defaults). */
  readonly accountSettings: Readonly<Record<string, unknown>>
  /** Which account: increases with each `example-account` directive, so examples after one share it. */
  readonly accountGeneration: number
  /** Runs in the page's shell session (bash), since it uses or sets shell variables. */
  readonly shell: boolean
}

export interface HttpExample extends ExampleBase {
  readonly kind: 'http'
  /** The shell text of the request, as written. */
  readonly request: string
  readonly response: DocumentedResponse
}

export interface CliExample extends ExampleBase {
  readonly kind: 'cli'
  /** One command per entry, as written. */
  readonly commands: readonly string[]
  /** The documented output of the one command, when the page shows it. */
  readonly output: string | null
}

export interface VariablesExample extends ExampleBase {
  readonly kind: 'variables'
  /** The block as written: `NAME=$(command …)` lines. */
  readonly text: string
}

export type DocExample = HttpExample | CliExample | VariablesExample

export class DocExampleError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`)
    this.name = 'DocExampleError'
  }
}

/** Parses an ```http response block: `HTTP/1.1 201 Created`, header lines, a blank line, the body. */
export function parseDocumentedResponse(text: string, line: number): DocumentedResponse {
  const [head = '', ...rest] = text.split('\n')
  const status = /^HTTP\/[\d.]+\s+(\d{3})\b/.exec(head.trim())
  if (!status) throw new DocExampleError(line, `a response block must start with a status line such as "HTTP/1.1 200 OK", not ${JSON.stringify(head)}`)
  const headers: Array<readonly [string, string]> = []
  let i = 0
  for (; i < rest.length; i++) {
    const headerLine = (rest[i] as string).trimEnd()
    if (headerLine === '') break
    const colon = headerLine.indexOf(':')
    if (colon <= 0) throw new DocExampleError(line, `"${headerLine}" is not a header line; leave a blank line before the body`)
    headers.push([headerLine.slice(0, colon).trim().toLowerCase(), headerLine.slice(colon + 1).trim()])
  }
  return { status: Number(status[1]), headers, body: rest.slice(i + 1).join('\n').trim() }
}

interface Located {
  readonly token: Token
  readonly line: number
}

// Code blocks and comments in reading order, including those inside lists and block quotes.
function walk(tokens: readonly Token[], visit: (token: Token) => void): void {
  for (const token of tokens) {
    visit(token)
    if (token.type === 'list') walk((token as Tokens.List).items, visit)
    else if ('tokens' in token && Array.isArray(token.tokens) && token.type !== 'paragraph') walk(token.tokens, visit)
  }
}

/** Every executable example of a page, in order; throws DocExampleError when one breaks the convention. */
export function extractExamples(markdown: string): DocExample[] {
  const located: Located[] = []
  let offset = 0
  walk(new Lexer({ ...getDefaults(), gfm: true }).lex(markdown), (token) => {
    if (token.type !== 'code' && token.type !== 'html') return
    // Inside a list the token's raw text is dedented, so look for its first line only.
    const firstLine = token.raw.trimStart().split('\n')[0] ?? ''
    const at = markdown.indexOf(firstLine, offset)
    const position = at === -1 ? offset : at
    if (at !== -1) offset = at + firstLine.length
    located.push({ token, line: markdown.slice(0, position).split('\n').length })
  })

  const examples: DocExample[] = []
  let accountSettings: Record<string, unknown> = {}
  let accountGeneration = 0
  for (let i = 0; i < located.length; i++) {
    const { token, line } = located[i] as Located
    if (token.type === 'html') {
      const directive = ACCOUNT_DIRECTIVE.exec((token as Tokens.HTML).text)
      if (!directive) continue
      try {
        const parsed: unknown = JSON.parse(directive[1] || '{}')
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object')
        accountSettings = parsed as Record<string, unknown>
      } catch {
        throw new DocExampleError(line, 'example-account takes a JSON object of account settings')
      }
      accountGeneration += 1
      continue
    }
    const code = token as Tokens.Code
    const language = codeLanguage(code.lang)
    const next = located.slice(i + 1).find((entry) => entry.token.type === 'code')
    const nextLanguage = next ? codeLanguage((next.token as Tokens.Code).lang) : null
    const base = { index: examples.length + 1, line, accountSettings, accountGeneration, shell: usesShell(code.text) }
    if (isVariablesExample(language, code.text)) {
      examples.push({ ...base, kind: 'variables', text: code.text })
    } else if (isCurlExample(language, code.text)) {
      if (!next || nextLanguage !== 'http') {
        throw new DocExampleError(line, 'a curl example must be followed by an ```http block showing its response')
      }
      examples.push({ ...base, kind: 'http', request: code.text, response: parseDocumentedResponse((next.token as Tokens.Code).text, next.line) })
    } else if (isCliExample(language, code.text)) {
      const commands = commandLines(code.text)
      const output = next && nextLanguage === 'text' ? (next.token as Tokens.Code).text : null
      if (output !== null && commands.length > 1) {
        throw new DocExampleError(line, 'show the output of one command at a time: split the block, or drop the ```text block after it')
      }
      examples.push({ ...base, kind: 'cli', commands, output })
    }
  }
  if (examples.some((example) => example.kind === 'variables')) {
    const placeholder = examples.find((example) => PLACEHOLDER.test(exampleText(example)))
    if (placeholder) {
      const name = PLACEHOLDER.exec(exampleText(placeholder))?.[0] ?? ''
      throw new DocExampleError(placeholder.line, `this page sets shell variables to be pasted in order: write "$${name.slice(1, -1)}", set by a block before, not the placeholder ${name}`)
    }
  }
  return examples
}

function exampleText(example: DocExample): string {
  return example.kind === 'http' ? example.request : example.kind === 'cli' ? example.commands.join('\n') : example.text
}
