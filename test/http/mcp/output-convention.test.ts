/**
 * One naming convention for every tool's output: snake_case members, as every argument but
 * request_payment's `amountCents` (the interface's own name) is. Checked on the output schemas that
 * tools/list advertises, which are the schemas the outputs are made to.
 */
import t from 'tap'
import { loadTools, ToolRegistry } from '../../../src/http/mcp/tool-registry.ts'

function memberNames(schema: unknown, path: string, found: Array<[string, string]>): void {
  if (typeof schema !== 'object' || schema === null) return
  const { properties } = schema as { properties?: Record<string, unknown> }
  for (const [name, member] of Object.entries(properties ?? {})) found.push([`${path}.${name}`, name])
  for (const [key, value] of Object.entries(schema)) {
    if (Array.isArray(value)) value.forEach((item, i) => memberNames(item, `${path}.${key}[${i}]`, found))
    else memberNames(value, key === 'properties' ? path : `${path}.${key}`, found)
  }
}

t.test('every member of every tool output schema is snake_case', async (t) => {
  const registry = new ToolRegistry(await loadTools())
  for (const tool of registry.list.tools) {
    const found: Array<[string, string]> = []
    memberNames(tool.outputSchema, tool.name, found)
    t.ok(found.length > 0, `${tool.name} has members`)
    t.same(found.filter(([, name]) => !/^[a-z][a-z0-9_]*$/.test(name)).map(([path]) => path), [], `${tool.name}: snake_case`)
  }
})
