/**
 * ./.env (issue #41): every `leadline` command and the server read it, the environment wins over it,
 * and `leadline config` prints the effective configuration with where each value came from and the
 * secrets masked; `--check` refuses a bad setting (in any part: core, carrier, payments) by name.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { BIN } from '../helpers/cli.ts'

const SECRET_KEY = Buffer.alloc(32, 7).toString('base64')
const STRIPE_KEY = 'sk_test_dotenvsecret0123456789'

/** The CLI in `cwd`, with only the given variables of ours (the test's own environment has none of them). */
function leadline(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(PORT|HOST|LOG_LEVEL|LEADLINE_|TWILIO_|STRIPE_|FACEBOOK_)/.test(name)))
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: { ...base, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr })
    })
  })
}

t.test('.env is read by every command; the environment wins; leadline config says where each value came from', async (t) => {
  const dir = t.testdir({
    '.env': [
      'PORT=3222',
      'LOG_LEVEL=debug',
      `LEADLINE_SECRET_KEY=${SECRET_KEY}`,
      'LEADLINE_STORE=sqlite:./from-dotenv.db',
      'LEADLINE_PUBLIC_URL=https://dotenv.example.com',
      `STRIPE_SECRET_KEY=${STRIPE_KEY}`,
      'STRIPE_WEBHOOK_SECRET=whsec_dotenv0123456789abcdef',
    ].join('\n'),
  })
  const shown = await leadline(dir, ['config', '--json'], { LOG_LEVEL: 'warn' })
  t.equal(shown.code, 0, shown.stderr)
  const { variables, publicUrl, payments, envFile } = JSON.parse(shown.stdout) as { variables: Array<{ name: string; value: string; from: string }>; publicUrl: string; payments: string; envFile: string }
  const row = (name: string) => variables.find((v) => v.name === name)
  t.match(row('PORT'), { value: '3222', from: '.env' })
  t.match(row('LOG_LEVEL'), { value: 'warn', from: 'environment' }, 'the environment wins over the file')
  t.match(row('HOST'), { value: '127.0.0.1', from: 'default' })
  t.match(row('LEADLINE_SECRET_KEY'), { value: '******** (44 characters)', from: '.env' })
  t.match(row('STRIPE_SECRET_KEY'), { value: `******** (${STRIPE_KEY.length} characters)`, from: '.env' })
  t.notMatch(shown.stdout, SECRET_KEY, 'no secret printed')
  t.notMatch(shown.stdout, STRIPE_KEY)
  t.equal(publicUrl, 'https://dotenv.example.com')
  t.equal(payments, 'stripe')
  t.equal(envFile, '.env')

  const readable = await leadline(dir, ['config'])
  t.match(readable.stdout, /^variable\s+value\s+from\n/)
  t.match(readable.stdout, /\nLOG_LEVEL\s+debug\s+\.env\n/)

  const created = await leadline(dir, ['account', 'create', '--name', 'Dotenv', '--json'])
  t.equal(created.code, 0, created.stderr)
  t.equal(JSON.parse(created.stdout).webhookUrl, 'https://dotenv.example.com/api/ingest/lead', 'a command takes the public URL from .env')
  t.ok(fs.existsSync(path.join(dir, 'from-dotenv.db')), 'and the store')
})

t.test('a bad setting, in .env or the environment, is refused by name; serve reads .env too', async (t) => {
  const dir = t.testdir({ '.env': 'PORT=abc\nTWILIO_ACCOUNT_SID=ACnot\n' })
  const checked = await leadline(dir, ['config', '--check'])
  t.equal(checked.code, 2)
  t.equal(checked.stdout, '')
  t.match(checked.stderr, 'leadline: invalid configuration:\n  - PORT: must be a TCP port number from 0 to 65535, such as 3000\n')
  t.match(checked.stderr, '  - TWILIO_ACCOUNT_SID: must be a Twilio Account SID')
  const fixed = await leadline(dir, ['config', '--check'], { PORT: '3111' })
  t.equal(fixed.code, 2, 'the file\'s bad Twilio SID is still refused')
  t.notMatch(fixed.stderr, /PORT/, 'the environment\'s PORT wins over the file\'s')
  const serve = await leadline(dir, ['serve'])
  t.equal(serve.code, 2)
  t.match(serve.stderr, /PORT: must be a TCP port number/, 'the server reads .env')
})
