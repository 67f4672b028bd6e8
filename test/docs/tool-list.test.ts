/**
 * The docs' lists of tools are the registry's: docs/mcp.md's tools table (name, page, scope and the
 * tool's summary) and scopes table, its lists of write and read tools, and docs/index.md's links.
 * A new tool file fails here until the docs name it; each failure prints the rows to paste.
 */
import t from 'tap'
import { loadDocsSource } from '../../src/http/docs/docs-source.ts'
import { loadTools, ToolRegistry } from '../../src/http/mcp/tool-registry.ts'
import { SCOPES } from '../../src/domain/account/account.events.ts'

const registry = new ToolRegistry(await loadTools())
const tools = registry.tools
const pages = new Map(loadDocsSource().pages.map((p) => [p.name, p.source]))
const mcp = pages.get('mcp') ?? ''
const pageOf = (name: string) => name.replaceAll('_', '-')
const sorted = (items: Iterable<string>) => [...items].sort()
const codeList = (text: string) => sorted([...text.matchAll(/`([a-z_]+)`/g)].map((m) => m[1] as string))

/** The part of a page from `start` to the next heading of that level or higher. */
function section(page: string, start: string): string {
  const from = page.indexOf(start)
  if (from === -1) return ''
  const next = page.slice(from + start.length).search(/\n#{1,2} /)
  return next === -1 ? page.slice(from) : page.slice(from, from + start.length + next)
}

t.test('every tool has its page', async (t) => {
  for (const tool of tools) t.ok(pages.has(pageOf(tool.name)), `docs/${pageOf(tool.name)}.md exists for ${tool.name}`)
})

t.test("mcp.md's tools table is the registry's", async (t) => {
  const rows = sorted(mcp.split('\n').filter((line) => /^\| \[`[a-z_]+`\]/.test(line)))
  const expected = sorted(tools.map((tool) => `| [\`${tool.name}\`](${pageOf(tool.name)}.md) | \`${tool.scope}\` | ${tool.summary} |`))
  t.same(rows, expected, `docs/mcp.md's table under "| Tool | Scope | What it does |" should hold these rows:\n${expected.join('\n')}`)
})

t.test("mcp.md's scopes table lists each scope's tools", async (t) => {
  const table = section(mcp, '\n## Keys and scopes\n')
  for (const scope of SCOPES) {
    const row = new RegExp(`^\\| \`${scope}\` \\| (.*) \\|$`, 'm').exec(table)
    const expected = sorted(tools.filter((tool) => tool.scope === scope).map((tool) => tool.name))
    t.same(row ? codeList(row[1] as string) : null, expected, `| \`${scope}\` | ${expected.map((n) => `\`${n}\``).join(', ')} |`)
  }
})

t.test('mcp.md names the write tools and the read tools', async (t) => {
  const writes = /Every tool that changes something \(([^)]*)\)/.exec(mcp)
  t.same(writes ? codeList(writes[1] as string) : null, sorted(tools.filter((tool) => tool.writes).map((tool) => tool.name)), 'write tools')
  const reads = /The read tools \(([^)]*)\)/.exec(mcp)
  t.same(reads ? codeList(reads[1] as string) : null, sorted(tools.filter((tool) => tool.annotations.readOnlyHint).map((tool) => tool.name)), 'read tools')
})

t.test("index.md links every tool's page", async (t) => {
  const line = (pages.get('index') ?? '').split('\n').find((l) => l.startsWith('- Tools: ')) ?? ''
  const links = sorted([...line.matchAll(/\[([a-z_]+)\]\(([a-z-]+)\.md\)/g)].map((m) => `${m[1]} ${m[2]}`))
  t.same(links, sorted(tools.map((tool) => `${tool.name} ${pageOf(tool.name)}`)))
})
