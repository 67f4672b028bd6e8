/**
 * `leadline config`: the effective configuration, each value with where it came from (the
 * environment, ./.env, or the default), secrets masked; and every setting checked as a server
 * start checks it, so `--check` can refuse a bad setting before `npm start` builds anything.
 */
import { ConfigError, CORE_VARIABLES, coreSettings, loadConfig } from '../../config/config.ts'
import { DOTENV_FILE, dotEnvValues } from '../../config/dotenv.ts'
import { serverUrl } from '../../config/server-address.ts'
import { config, json, parse, table, type Io } from '../cli-io.ts'

/** Variables of ours or of the providers we talk to, shown when set even if the core schema does not read them. */
const OURS = /^(LEADLINE_|TWILIO_|STRIPE_|FACEBOOK_|GOOGLE_|OPENAI_API_KEY$|ANTHROPIC_API_KEY$)/

/** Values never printed: keys, tokens, secrets (the operator token's hash as well, to be safe). */
const SECRET = /(_SECRET|_TOKEN|_API_KEY|_SECRET_KEY|_PASSWORD|_TOKEN_HASH)$/

interface Row {
  readonly name: string
  readonly value: string
  readonly from: 'environment' | '.env' | 'default'
}

function shownValue(name: string, value: unknown): string {
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) return '(not set)'
  const text = Array.isArray(value) ? value.join(',') : Buffer.isBuffer(value) ? value.toString('base64') : String(value)
  return SECRET.test(name) && text !== '' ? `******** (${text.length} characters)` : text
}

/** Every setting checked as a start checks it; all problems at once. */
async function check(env: NodeJS.ProcessEnv): Promise<void> {
  const problems: string[] = []
  const collect = async (run: () => unknown) => {
    try {
      await run()
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error
      problems.push(...error.problems)
    }
  }
  const cfg = { publicUrl: 'http://127.0.0.1:3000' }
  await collect(() => Object.assign(cfg, loadConfig(env)))
  await collect(async () => (await import('../../commands/password-hasher.ts')).scryptLogNFromEnv(env))
  await collect(async () => (await import('../../integrations/carrier/open-carrier.ts')).openCarrier(env))
  await collect(async () => (await import('../../integrations/payments/open-payments.ts')).openPayments(env, cfg.publicUrl))
  await collect(async () => (await import('../../integrations/assistant/open-assistant-provider.ts')).openAssistantProvider(env))
  if (problems.length > 0) throw new ConfigError(problems)
}

export async function configCommand(args: string[], io: Io): Promise<void> {
  const { values } = parse(args, { json: { type: 'boolean' }, check: { type: 'boolean' } })
  await check(io.env)
  if (values.check) return
  const fromFile = dotEnvValues()
  const origin = (name: string): Row['from'] => {
    const value = io.env[name]
    if (value === undefined || value === '') return 'default'
    return fromFile[name] === value ? '.env' : 'environment'
  }
  const effective = coreSettings(io.env)
  const rows: Row[] = CORE_VARIABLES.map((name) => {
    const from = origin(name)
    return { name, value: shownValue(name, from === 'default' ? effective[name] : io.env[name]), from }
  })
  for (const name of Object.keys(io.env).filter((n) => OURS.test(n) && !CORE_VARIABLES.includes(n)).sort()) {
    if (io.env[name] === undefined || io.env[name] === '') continue
    rows.push({ name, value: shownValue(name, io.env[name]), from: origin(name) })
  }
  const cfg = config(io)
  const server = serverUrl(io.env)
  const summary = {
    publicUrl: cfg.publicUrl,
    serverUrl: server.url,
    serverUrlFrom: server.from,
    carrier: io.env.TWILIO_ACCOUNT_SID ? 'twilio' : 'simulated',
    payments: io.env.STRIPE_SECRET_KEY ? 'stripe' : 'simulated',
    envFile: Object.keys(fromFile).length > 0 ? DOTENV_FILE : null,
  }
  if (values.json) return io.out(json({ variables: rows, ...summary }))
  io.out(
    [
      table(['variable', 'value', 'from'], rows.map((r) => [r.name, r.value, r.from])),
      '',
      `public URL   ${summary.publicUrl}  (printed and served URLs)`,
      `server URL   ${summary.serverUrl}  (where commands reach the server: from ${summary.serverUrlFrom})`,
      `carrier      ${summary.carrier}`,
      `payments     ${summary.payments}`,
      `.env         ${summary.envFile === null ? 'none here (the environment wins over it when there is one)' : `./${DOTENV_FILE} read (the environment wins over it)`}`,
    ].join('\n'),
  )
}
