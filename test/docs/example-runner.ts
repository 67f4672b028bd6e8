/**
 * Runs the docs' curl examples with the real curl binary and compares what comes back with what the
 * page documents. The convention itself is in src/http/docs/doc-examples.ts; this file is how the
 * test holds a page to it.
 *
 * How a documented response is compared with the real one:
 * - the status code must be equal (the reason phrase is for the reader);
 * - every header the example shows must be present with that value (others may be added);
 * - a JSON body must have the same shape: objects the same keys (an object with a key "…" allows
 *   more), arrays the same length (a last element "…" allows more), and the same values, except:
 *   the string "…" stands for any value, and "…" inside a string stands for any text there
 *   ("ld_…" is any string starting with "ld_"). A string holding JSON (a JSON-RPC `text`) is
 *   compared as the JSON it holds;
 * - a text body must match as written, "…" standing for any text.
 *
 * A command-line example runs in this process through `runCli`, on the test's store. Its output is
 * compared with the documented ```text block after both are normalised (see `normaliseCliOutput`:
 * ids, secrets, times and cursors stand for any such value, runs of spaces count as one), with
 * "…" standing for any text, and a line of only "…" for any number of lines.
 */
import { execFile } from 'node:child_process'
import { runCli } from '../../src/cli/main.ts'
import { CLI_LINE, type DocumentedResponse } from '../../src/http/docs/doc-examples.ts'

export const CURL = '/usr/bin/curl'
export const ANY = '…'

/** Values the test fills into an example: `{base_url}`, `<WEBHOOK_TOKEN>`, `<API_KEY>`, … */
export type Placeholders = Readonly<Record<string, string>>

export class ExampleError extends Error {
  override name = 'ExampleError'
}

/**
 * Splits a shell command the way sh would, for the subset the docs use: words, '…' and "…"
 * quoting, backslash escapes and `\` line continuations. Anything that needs a real shell
 * (pipes, redirects, variables, command substitution, several commands) is refused, since a
 * reader pasting the example would get a different command from the one tested.
 */
export function shellWords(command: string): string[] {
  const text = command
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/^\s*\$\s+/, '')
  const words: string[] = []
  let word: string | null = null
  const push = (chars: string) => {
    word = (word ?? '') + chars
  }
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string
    if (c === '\\') {
      const next = text[i + 1]
      i += 1
      if (next === '\n') continue
      if (next === undefined) throw new ExampleError('a command cannot end with a backslash')
      push(next)
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1)
      if (end === -1) throw new ExampleError('unterminated single quote')
      push(text.slice(i + 1, end))
      i = end
    } else if (c === '"') {
      let j = i + 1
      let chunk = ''
      for (; j < text.length && text[j] !== '"'; j++) {
        const d = text[j] as string
        if (d === '$' || d === '`') throw new ExampleError(`"${d}" inside double quotes needs a shell; write the value itself or use single quotes`)
        if (d === '\\' && ['"', '\\', '$', '`', '\n'].includes(text[j + 1] as string)) {
          j += 1
          if (text[j] !== '\n') chunk += text[j]
        } else chunk += d
      }
      if (j >= text.length) throw new ExampleError('unterminated double quote')
      push(chunk)
      i = j
    } else if (/\s/.test(c)) {
      // A second line without a continuation is a second command.
      if (c === '\n' && (word !== null || words.length > 0) && text.slice(i + 1).trim() !== '') {
        throw new ExampleError('one command per example; continue long lines with \\')
      }
      if (word !== null) words.push(word)
      word = null
    } else if ('|&;<>()$`'.includes(c)) {
      throw new ExampleError(`"${c}" needs a shell; examples are run as one curl command (quote it if it is part of a value)`)
    } else if ('?*['.includes(c)) {
      // Unquoted, these are globs: zsh refuses a URL with ? in it.
      throw new ExampleError(`quote words containing "${c}" (a shell would read it as a pattern)`)
    } else push(c)
  }
  if (word !== null) words.push(word)
  return words
}

/** Fills `{base_url}`-style and `<TOKEN>`-style placeholders; an unknown `<UPPER_CASE>` one is an error. */
export function fillExample(text: string, placeholders: Placeholders): string {
  const filled = text.replace(/\{[a-z_]+\}|<[A-Z][A-Z0-9_]*>/g, (name) => {
    const value = placeholders[name]
    if (value !== undefined) return value
    if (name.startsWith('<')) throw new ExampleError(`unknown placeholder ${name} (known: ${Object.keys(placeholders).join(', ')})`)
    return name
  })
  return filled
}

export interface RealResponse {
  readonly status: number
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body: string
}

/** Runs curl with the example's own arguments; the output must start with the status line (`curl -i`). */
export async function runCurl(args: readonly string[], cwd: string): Promise<RealResponse> {
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      CURL,
      ['--silent', '--show-error', '--max-time', '20', ...args],
      { cwd, env: { PATH: '/usr/bin:/bin', HOME: cwd }, maxBuffer: 4 * 1024 * 1024, encoding: 'utf8' },
      (error, out, err) => (error ? reject(new ExampleError(`curl failed: ${err || error.message}`)) : resolve(out)),
    )
  })
  return parseCurlOutput(stdout)
}

/** What `curl -i` printed: the status line, the headers and the body of the final response. */
export function parseCurlOutput(stdout: string): RealResponse {
  let rest = stdout
  // Interim 1xx responses (100 Continue) come before the real one.
  for (;;) {
    if (!rest.startsWith('HTTP/')) throw new ExampleError('the example must use curl -i, so readers see the status line it documents')
    const split = rest.search(/\r?\n\r?\n/)
    const head = split === -1 ? rest : rest.slice(0, split)
    const body = split === -1 ? '' : rest.slice(split).replace(/^\r?\n\r?\n/, '')
    const [statusLine = '', ...headerLines] = head.split(/\r?\n/)
    const status = Number(/^HTTP\/[\d.]+\s+(\d{3})/.exec(statusLine)?.[1])
    if (status >= 100 && status < 200) {
      rest = body
      continue
    }
    const headers = headerLines.map((line) => {
      const colon = line.indexOf(':')
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()] as const
    })
    return { status, headers, body }
  }
}

function pattern(text: string): RegExp {
  const escaped = text.split(ANY).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  return new RegExp(`^${escaped.join('[\\s\\S]*')}$`)
}

function describe(value: unknown): string {
  const json = JSON.stringify(value)
  return json === undefined ? String(value) : json.length > 80 ? `${json.slice(0, 77)}...` : json
}

function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false } {
  const trimmed = text.trim()
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) return { ok: false }
  try {
    return { ok: true, value: JSON.parse(trimmed) as unknown }
  } catch {
    return { ok: false }
  }
}

/** Differences between a documented JSON value and the real one (empty when they match). */
export function matchShape(expected: unknown, actual: unknown, at = '$'): string[] {
  if (expected === ANY) return []
  if (typeof expected === 'string') {
    if (typeof actual !== 'string') return [`${at}: expected a string ${describe(expected)}, got ${describe(actual)}`]
    const documented = parseJsonText(expected)
    if (documented.ok) {
      const real = parseJsonText(actual)
      if (!real.ok) return [`${at}: expected a string holding JSON, got ${describe(actual)}`]
      return matchShape(documented.value, real.value, `${at}<json>`)
    }
    if (expected.includes(ANY)) return pattern(expected).test(actual) ? [] : [`${at}: ${describe(actual)} does not match ${describe(expected)}`]
    return expected === actual ? [] : [`${at}: expected ${describe(expected)}, got ${describe(actual)}`]
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${at}: expected an array, got ${describe(actual)}`]
    const open = expected.length > 0 && expected[expected.length - 1] === ANY
    const fixed = open ? expected.slice(0, -1) : expected
    if (open ? actual.length < fixed.length : actual.length !== fixed.length) {
      return [`${at}: expected ${open ? 'at least ' : ''}${fixed.length} elements, got ${actual.length}: ${describe(actual)}`]
    }
    return fixed.flatMap((item, i) => matchShape(item, actual[i], `${at}[${i}]`))
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${at}: expected an object, got ${describe(actual)}`]
    const want = expected as Record<string, unknown>
    const got = actual as Record<string, unknown>
    const open = Object.hasOwn(want, ANY)
    const problems: string[] = []
    for (const key of Object.keys(want)) {
      if (key === ANY) continue
      if (!Object.hasOwn(got, key)) problems.push(`${at}.${key}: missing`)
      else problems.push(...matchShape(want[key], got[key], `${at}.${key}`))
    }
    if (!open) {
      for (const key of Object.keys(got)) if (!Object.hasOwn(want, key)) problems.push(`${at}.${key}: not documented (value ${describe(got[key])})`)
    }
    return problems
  }
  return Object.is(expected, actual) ? [] : [`${at}: expected ${describe(expected)}, got ${describe(actual)}`]
}

/** Differences between a documented response and the real one (empty when the docs are right). */
export function compareResponse(documented: DocumentedResponse, real: RealResponse): string[] {
  const problems: string[] = []
  if (documented.status !== real.status) problems.push(`status: documented ${documented.status}, got ${real.status}`)
  for (const [name, value] of documented.headers) {
    const found = real.headers.filter(([n]) => n === name).map(([, v]) => v)
    if (found.length === 0) problems.push(`header ${name}: missing`)
    else if (!found.some((v) => (value.includes(ANY) ? pattern(value).test(v) : v === value))) problems.push(`header ${name}: documented ${JSON.stringify(value)}, got ${JSON.stringify(found.join(', '))}`)
  }
  const body = documented.body
  if (body === '') {
    if (real.body.trim() !== '') problems.push(`body: documented none, got ${describe(real.body)}`)
    return problems
  }
  const json = parseJsonText(body)
  if (json.ok) {
    const realJson = parseJsonText(real.body)
    if (!realJson.ok) problems.push(`body: documented JSON, got ${describe(real.body)}`)
    else problems.push(...matchShape(json.value, realJson.value).map((p) => `body ${p}`))
  } else if (!pattern(body.trim()).test(real.body.trim())) {
    problems.push(`body: ${describe(real.body)} does not match the documented text ${describe(body)}`)
  }
  return problems
}

/**
 * Output with what differs from run to run made comparable: ids (`acc_…`, `ld_…`, `key_…`,
 * `wht_…`), secrets and their hints, ISO times and page cursors become fixed tokens, and column
 * padding collapses to one space.
 */
export function normaliseCliOutput(text: string): string {
  return text
    .replace(/\b(acc|ld|key|wht)_[0-9a-z]{16}(?:[0-9a-z]{10})?\b/g, '$1_<id>')
    .replace(/\b(llwh_|ll_live_|llop_)[0-9a-z]{32}\b/g, '$1<secret>')
    .replace(/\b(llwh_|ll_live_|llop_)[0-9a-z]{4}…/g, '$1<hint>…')
    .replace(/\b[0-9a-f]{64}\b/g, '<sha256>')
    .replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z\b/g, '<time>')
    .replace(/(--cursor |"nextCursor": ")[A-Za-z0-9_-]+/g, '$1<cursor>')
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').trim())
    .join('\n')
    .trim()
}

export interface CliRun {
  readonly code: number
  /** stdout, then stderr. */
  readonly output: string
}

/** Runs one `leadline …` command line (placeholders already filled) in this process. */
export async function runCliExample(command: string, env: NodeJS.ProcessEnv): Promise<CliRun> {
  const words = shellWords(command)
  const runEnv: NodeJS.ProcessEnv = {}
  while (words.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(words[0] as string)) {
    const setting = words.shift() as string
    const eq = setting.indexOf('=')
    runEnv[setting.slice(0, eq)] = setting.slice(eq + 1)
  }
  // The names a command may go by are the ones the docs site recognises a command block by.
  if (!CLI_LINE.test(command)) throw new ExampleError(`not a leadline command: ${command}`)
  if (words.shift() === 'npx') words.shift()
  const out: string[] = []
  const err: string[] = []
  // The test's store always wins: an example must never write to a path it names.
  const code = await runCli(words, { out: (t) => out.push(t), err: (t) => err.push(t), env: { ...runEnv, ...env } })
  return { code, output: [...out, ...err].join('\n') }
}

/** A documented output as a pattern: a line that is only "…" stands for any number of lines, even none. */
function outputPattern(documented: string): RegExp {
  const lines = documented.split('\n').map((line) =>
    line === ANY ? '(?:[^\\n]*\\n)*' : `${line.split(ANY).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*')}\\n`,
  )
  return new RegExp(`^${lines.join('')}$`)
}

/** Differences between a documented command output and the real one (empty when the docs are right). */
export function compareCliOutput(documented: string | null, real: CliRun): string[] {
  const failing = documented !== null && documented.trimStart().startsWith('leadline: ')
  const problems: string[] = []
  if (failing && real.code === 0) problems.push('documented as failing (output starts with "leadline: "), but the command succeeded')
  if (!failing && real.code !== 0) problems.push(`exit code ${real.code}: ${real.output.trim()}`)
  if (documented !== null && !outputPattern(normaliseCliOutput(documented)).test(`${normaliseCliOutput(real.output)}\n`)) {
    problems.push(`output differs from the documented one.\n--- documented (normalised)\n${normaliseCliOutput(documented)}\n--- real (normalised)\n${normaliseCliOutput(real.output)}`)
  }
  return problems
}
