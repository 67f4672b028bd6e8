/**
 * The README's Quick start, pasted as written: its shell blocks run in order in one shell session
 * (test/helpers/shell-session.ts, as docs/index.md's are), in the checkout, against a running
 * server. Nothing in them changes: the test's server listens on a free port, exported as PORT
 * (as a reader on another port does), and LEADLINE_STORE is a test directory, not ./data.
 */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { ROOT, startServer } from '../helpers/cli.ts'
import { ShellSession } from '../helpers/shell-session.ts'

/** The ```sh blocks of the README's "## Quick start" section, in order. */
function quickStartBlocks(): string[] {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')
  const section = /\n## Quick start\n([\s\S]*?)(?=\n## )/.exec(readme)?.[1] ?? ''
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string)
}

t.test('the README quick start works pasted as written, in order', async (t) => {
  const blocks = quickStartBlocks()
  const script = blocks.join('\n')
  t.match(script, 'http://127.0.0.1:${PORT:-3000}', 'the quick start talks to the address npm start listens on, on any PORT')
  t.notMatch(script, /--account ACCOUNT_ID|<[A-Z_]+>/, 'no value left for the reader to fill in by hand')

  const dir = t.testdir()
  const env = { LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}`, LOG_LEVEL: 'warn' }
  const server = await startServer(env)
  t.teardown(() => server.stop())
  const shell = new ShellSession({ cwd: ROOT, env: { ...process.env, ...env, PORT: new URL(server.url).port }, stateDir: dir })
  let stdout = ''
  for (const block of blocks) {
    const run = await shell.run(block)
    t.equal(run.code, 0, run.stderr)
    stdout += run.stdout
  }
  t.match(stdout, /\{"leadId":"ld_\w+","created":true,"phone":"\+13125550142","lists":\["Inbound Leads"\],"warnings":\[\]\}/, 'the curl creates the lead (the token was set)')
  t.match(stdout, /\nld_\w+\s+Jane Doe\s+\+13125550142\s+Spring promo/, 'leads lists it (the account id was set)')
})
