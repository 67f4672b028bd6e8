/**
 * Runs a docs page's examples (see examples.test.ts): curl examples with the real curl against a
 * listening server, `leadline` examples through `runCli` on the same store, and the blocks that set or
 * use shell variables in the page's one shell session (test/helpers/shell-session.ts), in the checkout.
 */
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import type { Test } from 'tap'
import type { DocsPage } from '../../src/http/docs/docs-source.ts'
import { type CliExample, type DocExample, type HttpExample, type VariablesExample } from '../../src/http/docs/doc-examples.ts'
import { operatorContext, type TestApp } from '../helpers/build-app.ts'
import { ROOT } from '../helpers/cli.ts'
import { ShellSession } from '../helpers/shell-session.ts'
import { DOCS_FACEBOOK_ENV, DOCS_PAGE_TOKEN, listeningApp } from './listening-app.ts'
import { compareCliOutput, compareResponse, fillExample, parseCurlOutput, runCliExample, runCurl, shellWords, type CliRun, type Placeholders, type RealResponse } from './example-runner.ts'

/** API key placeholders and the scopes of the key each stands for. */
const API_KEYS: Readonly<Record<string, readonly string[]>> = {
  '<API_KEY>': ['read', 'write', 'dial'],
  '<READ_ONLY_API_KEY>': ['read'],
}

/** The name of every page's example account, so outputs that show it read naturally. */
const EXAMPLE_ACCOUNT_NAME = 'Acme Insurance'

/** A fresh account for a page's examples; API keys only when the page uses them (they show in `key list`). */
async function accountPlaceholders(app: TestApp, example: DocExample, pageSource: string, urls: Placeholders): Promise<Placeholders> {
  const { account, token } = await app.createAccount(EXAMPLE_ACCOUNT_NAME, example.accountSettings)
  const keys: Record<string, string> = {}
  for (const [placeholder, scopes] of Object.entries(API_KEYS)) {
    if (!pageSource.includes(placeholder)) continue
    const { key } = await app.leadline.accounts.createApiKey(account.accountId, scopes, null, operatorContext)
    keys[placeholder] = key.secret
    keys['<KEY_ID>'] ??= key.id
  }
  return { ...urls, '<WEBHOOK_TOKEN>': token, '<ACCOUNT_ID>': account.accountId, '<FACEBOOK_VERIFY_TOKEN>': DOCS_FACEBOOK_ENV.FACEBOOK_VERIFY_TOKEN, '<PAGE_TOKEN>': DOCS_PAGE_TOKEN, ...keys }
}

/** Known placeholders in a documented response are filled; anything else in it is text. */
function fillDocumented(text: string, placeholders: Placeholders): string {
  return text.replace(/\{[a-z_]+\}|<[A-Z][A-Z0-9_]*>/g, (name) => placeholders[name] ?? name)
}

function describeRequest(example: HttpExample): string {
  const words = shellWords(example.request.replace(/<[A-Z][A-Z0-9_]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/g, 'x'))
  const flag = words.findIndex((w) => w === '-X' || w === '--request')
  const sendsData = words.some((w) => /^(-d|--data.*|-F|--form)$/.test(w))
  const method = flag === -1 ? (sendsData ? 'POST' : 'GET') : words[flag + 1]
  const url = words.find((w) => w.startsWith('{base_url}') || w.startsWith('{docs_url}') || w.startsWith('http')) ?? '?'
  return `${method} ${url.replace('{base_url}', '').replace('{docs_url}', '/docs').replace(/\?.*/, '')} → ${example.response.status}`
}

async function runHttpExample(t: Test, example: HttpExample, placeholders: Placeholders, cwd: string, shell: ShellSession): Promise<void> {
  let real: RealResponse
  if (example.shell) {
    const run = await shell.run(fillExample(example.request, placeholders))
    if (run.code !== 0) return void t.fail(`the command failed (exit ${run.code}): ${run.stderr.trim()}`)
    real = parseCurlOutput(run.stdout)
  } else {
    const words = shellWords(fillExample(example.request, placeholders))
    t.equal(words[0], 'curl', 'the example is one curl command')
    real = await runCurl(words.slice(1), cwd)
  }
  const documented = {
    ...example.response,
    headers: example.response.headers.map(([n, v]) => [n, fillDocumented(v, placeholders)] as const),
    body: fillDocumented(example.response.body, placeholders),
  }
  t.same(compareResponse(documented, real), [], 'the response is the one the page documents', { real })
}

/** Runs a command-line example; returns placeholders it changed (a rotated token, a new key). */
async function runCommandExample(t: Test, example: CliExample, placeholders: Placeholders, env: NodeJS.ProcessEnv, shell: ShellSession): Promise<Placeholders> {
  if (example.shell) {
    // As pasted: the whole block in the page's shell, each command a process of its own.
    const run = await shell.run(fillExample(example.commands.join('\n'), placeholders))
    const real: CliRun = { code: run.code, output: [run.stdout, run.stderr].filter((o) => o !== '').join('\n') }
    const documented = example.output === null ? null : fillDocumented(example.output, placeholders)
    t.same(compareCliOutput(documented, real), [], `${documented === null ? 'succeeds' : 'prints what the page shows'}`, { real })
    return {}
  }
  const updated: Record<string, string> = {}
  for (const command of example.commands) {
    const real = await runCliExample(fillExample(command, placeholders), env)
    const documented = example.output === null ? null : fillDocumented(example.output, placeholders)
    t.same(compareCliOutput(documented, real), [], `${command}: ${documented === null ? 'succeeds' : 'prints what the page shows'}`, { real })
    if (/\stoken\s+rotate\s/.test(command) && command.includes('<ACCOUNT_ID>')) {
      const token = /llwh_[0-9a-z]{32}/.exec(real.output)?.[0]
      if (token) updated['<WEBHOOK_TOKEN>'] = token
    }
    if (/\skey\s+create\s/.test(command)) {
      const keyId = /key_[0-9a-z]{16}/.exec(real.output)?.[0]
      if (keyId) updated['<KEY_ID>'] = keyId
    }
  }
  return updated
}

/** Runs a block of `NAME=$(…)` lines in the page's shell: it must succeed, its variables kept for the blocks after it. */
async function runVariablesExample(t: Test, example: VariablesExample, placeholders: Placeholders, shell: ShellSession): Promise<void> {
  const run = await shell.run(fillExample(example.text, placeholders))
  t.equal(run.code, 0, 'sets its variables', { stderr: run.stderr })
}

/** True when a page has an example that runs in its shell session (`npx leadline` as a process): those pages run in `npm run test:integration`. */
export function runsInShell(examples: readonly DocExample[]): boolean {
  return examples.some((example) => example.kind === 'variables' || example.shell)
}

/** Runs a page's examples in order against a listening server of its own, each a subtest of `t`. */
export async function runPageExamples(t: Test, page: Pick<DocsPage, 'name' | 'source'>, examples: readonly DocExample[]): Promise<void> {
  const { app, baseUrl } = await listeningApp(t)
  // Not t.testdir(): a second call would empty the directory the app's store lives in.
  const cwd = path.join(app.dir, 'examples')
  mkdirSync(cwd)
  const urls = { '{base_url}': baseUrl, '{docs_url}': `${baseUrl}/docs` }
  // The CLI shares the server's log but keeps its own read models, as a second process would.
  // LEADLINE_EVENTS_ALLOW_PRIVATE: the pages subscribe crm.example.com, a name no resolver answers where the tests run.
  const env = { LEADLINE_STORE: app.store, LEADLINE_VIEWS: path.join(cwd, 'cli.views.db'), LEADLINE_PUBLIC_URL: baseUrl, LEADLINE_EVENTS_ALLOW_PRIVATE: '1' }
  // A reader's terminal in the checkout, whose `npx leadline` uses the test's store (and whose npm
  // does not look for its own updates, which would print a notice among the command's output).
  const shell = new ShellSession({ cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn', npm_config_update_notifier: 'false', ...env }, stateDir: cwd })
  let generation = -1
  let placeholders: Placeholders = urls
  for (const example of examples) {
    if (example.accountGeneration !== generation) {
      placeholders = await accountPlaceholders(app, example, page.source, urls)
      generation = example.accountGeneration
    }
    if (example.kind === 'http') {
      await t.test(`${page.name}.md:${example.line} ${describeRequest(example)}`, (t) => runHttpExample(t, example, placeholders, cwd, shell))
    } else if (example.kind === 'variables') {
      const names = [...example.text.matchAll(/^\s*([A-Za-z_][A-Za-z0-9_]*)=/gm)].map((m) => m[1]).join(', ')
      await t.test(`${page.name}.md:${example.line} sets ${names}`, (t) => runVariablesExample(t, example, placeholders, shell))
    } else {
      const name = example.commands.map((c) => c.replace(/^npx\s+/, '')).join('; ')
      await t.test(`${page.name}.md:${example.line} ${name.slice(0, 80)}`, async (t) => {
        placeholders = { ...placeholders, ...(await runCommandExample(t, example, placeholders, env, shell)) }
      })
    }
  }
}
