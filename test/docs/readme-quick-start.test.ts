/**
 * The README's Quick start, pasted as written: its shell blocks run in order in one bash, in the
 * checkout, against a running server. Only the address changes (the test's server listens on a free
 * port, not 3000) and LEADLINE_STORE (a test directory, not ./data).
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { ROOT, startServer } from '../helpers/cli.ts'

/** The ```sh blocks of the README's "## Quick start" section, in order. */
function quickStartScript(): string {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')
  const section = /\n## Quick start\n([\s\S]*?)(?=\n## )/.exec(readme)?.[1] ?? ''
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n')
}

t.test('the README quick start works pasted as written, in order', async (t) => {
  const script = quickStartScript()
  t.match(script, 'http://127.0.0.1:3000', 'the quick start talks to the address npm start listens on')
  t.notMatch(script, /--account ACCOUNT_ID|<[A-Z_]+>/, 'no value left for the reader to fill in by hand')

  const env = { LEADLINE_STORE: `sqlite:${path.join(t.testdir(), 'leadline.db')}`, LOG_LEVEL: 'warn' }
  const server = await startServer(env)
  t.teardown(() => server.stop())
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile('bash', ['-e', '-o', 'pipefail', '-c', script.replaceAll('http://127.0.0.1:3000', server.url)], { cwd: ROOT, env: { ...process.env, ...env } }, (error, out, err) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: out, stderr: err }),
    )
  })
  t.equal(code, 0, stderr)
  t.match(stdout, /\{"leadId":"ld_\w+","created":true,"phone":"\+13125550142","lists":\["Inbound Leads"\],"warnings":\[\]\}/, 'the curl creates the lead (the token was set)')
  t.match(stdout, /\nld_\w+\s+Jane Doe\s+\+13125550142\s+Spring promo/, 'leads lists it (the account id was set)')
})
