/**
 * The tool client's shorthand commands are derived from the tool registry: each names a tool that
 * exists, each flag sets one of its arguments (argumentFlag), a write tool's command takes
 * --idempotency-key and --dry-run, and cli.md names the scope the tool needs and links its page.
 */
import t from 'tap'
import { argumentFlag, TOOL_OF_COMMAND } from '../../src/cli/client/client.command.ts'
import { commandUsage } from '../../src/cli/main.ts'
import { loadDocsSource } from '../../src/http/docs/docs-source.ts'
import { loadTools, ToolRegistry } from '../../src/http/mcp/tool-registry.ts'

const registry = new ToolRegistry(await loadTools())
const cli = loadDocsSource().pages.find((p) => p.name === 'cli')?.source ?? ''

t.test('argument names become flags', async (t) => {
  t.equal(argumentFlag('lead_id'), '--lead-id')
  t.equal(argumentFlag('amountCents'), '--amount-cents')
  t.equal(argumentFlag('idempotency_key'), '--idempotency-key')
  t.equal(argumentFlag('phone'), '--phone')
})

for (const [command, name] of Object.entries(TOOL_OF_COMMAND)) {
  t.test(`leadline ${command} is ${name}`, async (t) => {
    const tool = registry.get(name)
    const descriptor = registry.list.tools.find((d) => d.name === name)
    if (!tool || !descriptor) return t.fail(`${name} is not a tool of the registry`)
    const schema = descriptor.inputSchema as { properties?: Record<string, unknown>; required?: string[] }
    const flagOf = new Map(Object.keys(schema.properties ?? {}).map((argument) => [argumentFlag(argument), argument]))
    const usage = (commandUsage(command) ?? '').split('\n\n')[0] ?? ''
    const flags = new Set([...usage.matchAll(/--[a-z-]+/g)].map((m) => m[0]).filter((flag) => flag !== '--json'))
    t.ok(flags.size > 0 || flagOf.size === 0, 'the usage shows its flags')
    for (const flag of flags) t.ok(flagOf.has(flag), `${flag} sets an argument of ${name} (${[...flagOf.keys()].join(', ')})`)
    for (const required of schema.required ?? []) t.ok(flags.has(argumentFlag(required)), `${name}'s required ${required} has its flag`)
    t.equal(flags.has('--idempotency-key') && flags.has('--dry-run'), tool.writes, 'a write tool: --idempotency-key and --dry-run')

    const section = cli.slice(cli.indexOf(`\n## leadline ${command}\n`), cli.indexOf('\n## ', cli.indexOf(`\n## leadline ${command}\n`) + 1))
    t.match(section, `(${name.replaceAll('_', '-')}.md)`, `cli.md links the ${name} page`)
    t.match(section, `\`${tool.scope}\``, `cli.md names the ${tool.scope} scope`)
    for (const other of ['read', 'write', 'dial'].filter((s) => s !== tool.scope)) t.notMatch(section, `\`${other}\` key`, `and no other (${other})`)
  })
}
