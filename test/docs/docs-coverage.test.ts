/**
 * What the code accepts or answers, the docs must say: every field alias and industry field
 * (webhook.md), every HTTP error and warning code (errors.md, webhook.md), every `leadline`
 * command and `account set` option (cli.md, configuration.md), every environment variable and
 * the limits (configuration.md, limits.md). A change that adds one fails here until it is documented.
 */
import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { USAGE } from '../../src/cli/main.ts'
import { CORE_FIELD_ALIASES } from '../../src/domain/lead/intake/field-aliases.ts'
import { MAX_FIELD_LENGTH } from '../../src/domain/lead/intake/field-value.ts'
import { INDUSTRIES, INDUSTRY_FIELDS } from '../../src/domain/lead/intake/industry-fields.ts'
import { HTTP_ERRORS } from '../../src/http/errors.ts'
import { WEBHOOK_BODY_LIMIT } from '../../src/http/webhook/ingest-lead.route.ts'
import { loadDocsSource } from '../../src/http/docs/docs-source.ts'
import { OUTBOUND_EVENT_TYPES } from '../../src/domain/outbound-events/outbound-events.ts'
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../projections/inbound-leads/inbound-leads.queries.ts'

const pages = new Map(loadDocsSource().pages.map((p) => [p.name, p.source]))
const page = (name: string) => pages.get(name) ?? ''
const source = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')

t.test('webhook.md names every accepted field name', async (t) => {
  for (const [field, aliases] of Object.entries(CORE_FIELD_ALIASES)) {
    for (const alias of aliases) t.match(page('webhook'), `\`${alias}\``, `${field}: \`${alias}\``)
  }
})

t.test('webhook.md lists every industry field', async (t) => {
  for (const industry of INDUSTRIES) {
    t.match(page('webhook'), `(\`${industry}\`)`, `industry ${industry}`)
    for (const field of INDUSTRY_FIELDS[industry]) {
      t.match(page('webhook'), `\`${field.key}\``, `${industry}: ${field.key}`)
      for (const alias of field.aliases) t.match(page('webhook'), `\`${alias}\``, `${industry}.${field.key}: \`${alias}\``)
    }
  }
  t.match(page('configuration'), INDUSTRIES.map((i) => `\`${i}\``).join(', ').replace(/, (?=[^,]*$)/, ' or '), 'configuration.md names every industry')
})

t.test('events.md lists every outbound event type in its table, in order', async (t) => {
  const rows = [...page('events').matchAll(/^\| `([a-z_.]+)` \| /gm)].map((m) => m[1]).filter((type) => (OUTBOUND_EVENT_TYPES as readonly string[]).includes(type as string))
  t.same(rows, [...OUTBOUND_EVENT_TYPES])
})

t.test('errors.md lists every HTTP error with its status and text', async (t) => {
  for (const [code, { status, error }] of Object.entries(HTTP_ERRORS)) {
    t.match(page('errors'), new RegExp(`\\| ${status} \\| \`${error}\` \\| \`${code}\` \\|`), `${status} ${error} (${code})`)
  }
})

t.test('webhook.md lists every warning code', async (t) => {
  // Warning codes are the snake_case literals intake passes to warn() and unreadable(), and the dob checks.
  const code = source('src/domain/lead/intake/normalize-lead-input.ts') + source('src/domain/lead/intake/dates.ts')
  const codes = new Set([
    ...[...code.matchAll(/(?:warn|unreadable)\([^,]*,\s*'([a-z]+(?:_[a-z]+)+)'/g)].map((m) => m[1] as string),
    ...[...code.matchAll(/this\.warn\('([a-z]+(?:_[a-z]+)+)'/g)].map((m) => m[1] as string),
    ...[...code.matchAll(/code: '(dob_[a-z_]+)'/g)].map((m) => m[1] as string),
  ])
  t.ok(codes.size >= 8, `warning codes found in the code (${[...codes].join(', ')})`)
  for (const c of codes) t.match(page('webhook'), `| \`${c}\` |`, `warning ${c}`)
})

t.test('cli.md documents every leadline command', async (t) => {
  const commands = new Set(
    [...USAGE.matchAll(/^ {2}leadline ((?:[a-z][a-z-]*)(?: [a-z][a-z-]*)?)/gm)].map((m) => m[1] as string),
  )
  t.ok(commands.size >= 10, `commands found in USAGE (${[...commands].join(', ')})`)
  for (const command of commands) {
    t.match(page('cli'), `\n## leadline ${command}\n`, `cli.md has a "## leadline ${command}" section (add it with the command: docs/README.md)`)
  }
  const setOptions = [...(/leadline account set ACCOUNT_ID([\s\S]*?)\n {2}leadline /.exec(USAGE)?.[1] ?? '').matchAll(/--[a-z-]+/g)].map((m) => m[0])
  t.ok(setOptions.length >= 6, 'account set options found')
  for (const option of setOptions) {
    t.match(page('cli'), option, `cli.md: ${option}`)
    t.match(page('configuration'), `\`${option}`, `configuration.md: ${option}`)
  }
})

t.test('configuration.md documents every environment variable', async (t) => {
  const names = [...source('src/config/config.ts').matchAll(/^ {2}([A-Z][A-Z_]+): z/gm)].map((m) => m[1] as string)
  t.ok(names.length >= 6, `variables found (${names.join(', ')})`)
  for (const name of names) t.match(page('configuration'), `| \`${name}\` |`, name)
  const simulated = [...source('src/integrations/carrier/open-carrier.ts').matchAll(/^ {4}(LEADLINE_SIMULATED_[A-Z_]+):/gm)].map((m) => m[1] as string)
  t.ok(simulated.length >= 5, `the simulated carrier's variables found (${simulated.join(', ')})`)
  for (const name of simulated) t.match(page('configuration'), `| \`${name}\` |`, name)
})

t.test('configuration.md lists every variable the code reads, whatever reads it (core, carrier, payments, assistant, the tool client)', async (t) => {
  const files = (dir: string): string[] => readdirSync(new URL(`../../${dir}`, import.meta.url), { withFileTypes: true })
    .flatMap((entry) => entry.isDirectory() ? files(`${dir}/${entry.name}`) : entry.name.endsWith('.ts') ? [`${dir}/${entry.name}`] : [])
  const read = new Set<string>()
  for (const file of [...files('src'), ...files('projections')]) {
    const text = source(file)
    // Schema keys (`NAME: z…`), `env.NAME` and `env['NAME']`.
    for (const m of text.matchAll(/^\s+([A-Z][A-Z0-9_]+): (?:z\b|wholeNumber|httpUrl)|env\.([A-Z][A-Z0-9_]+)|env\[['"]([A-Z][A-Z0-9_]+)/gm)) read.add((m[1] ?? m[2] ?? m[3]) as string)
  }
  for (const name of ['TWILIO_ACCOUNT_SID', 'STRIPE_SECRET_KEY', 'LEADLINE_URL', 'OPENAI_API_KEY', 'PORT']) t.ok(read.has(name), `the scan finds ${name}`)
  for (const name of read) t.match(page('configuration'), `| \`${name}\` |`, name)
})

t.test('limits.md states the limits the code enforces', async (t) => {
  t.match(page('limits'), `${WEBHOOK_BODY_LIMIT / 1024} KiB (${WEBHOOK_BODY_LIMIT.toLocaleString('en-US')} bytes)`, 'webhook body')
  t.match(page('limits'), `${MAX_FIELD_LENGTH.toLocaleString('en-US')} characters`, 'field length')
  t.match(page('limits'), `${DEFAULT_PAGE_SIZE} leads by default, \`--limit\` up to ${MAX_PAGE_SIZE}`, 'page sizes')
})
