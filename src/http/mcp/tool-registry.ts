/**
 * The tool catalogue. Every `tools/<name>.tool.ts` exports one `tool`; the registry picks them up, so
 * adding a tool is adding its file. tools/list is computed once: JSON Schemas generated from the
 * same zod schemas that validate calls, so the advertised schema and the check cannot differ.
 */
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { z } from 'zod'
import type { Tool } from './tool.ts'

export const TOOLS_DIR = fileURLToPath(new URL('./tools/', import.meta.url))
/** `.tool.ts` in the sources, `.tool.js` in the build (docs/deployment.md). */
const TOOL_FILE = /^([a-z0-9-]+)\.tool\.[jt]s$/

export interface ToolDescriptor {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: Record<string, unknown>
  readonly outputSchema: Record<string, unknown>
  readonly annotations: Record<string, unknown>
  readonly _meta: { readonly 'leadline/scope': string }
}

/** Every tool in `dir`, by file name; a file whose export is missing or misnamed stops the server. */
export async function loadTools(dir: string = TOOLS_DIR): Promise<Tool[]> {
  const tools: Tool[] = []
  for (const file of readdirSync(dir).sort()) {
    const match = TOOL_FILE.exec(file)
    if (!match) continue
    const module = (await import(pathToFileURL(path.join(dir, file)).href)) as { tool?: Tool }
    const expected = (match[1] as string).replaceAll('-', '_')
    if (module.tool?.name !== expected) throw new Error(`${file} must export \`tool\` named ${expected}`)
    tools.push(module.tool)
  }
  return tools.sort((a, b) => a.name.localeCompare(b.name))
}

let defaultRegistry: Promise<ToolRegistry> | undefined

/**
 * Every tool of `tools/`, loaded once a process (a server builds one app, the tests hundreds). Called
 * before the app's plugins are registered: importing the tools is the slow part of starting, and
 * fastify gives each plugin a bounded time to register.
 */
export function defaultToolRegistry(): Promise<ToolRegistry> {
  defaultRegistry ??= loadTools().then(
    (tools) => new ToolRegistry(tools),
    (error: unknown) => {
      defaultRegistry = undefined
      throw error
    },
  )
  return defaultRegistry
}

function describe(tool: Tool): ToolDescriptor {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.input, { io: 'input' }) as Record<string, unknown>,
    outputSchema: z.toJSONSchema(tool.output, { io: 'output' }) as Record<string, unknown>,
    annotations: { title: tool.title, ...tool.annotations },
    _meta: { 'leadline/scope': tool.scope },
  }
}

export class ToolRegistry {
  private readonly byName: ReadonlyMap<string, Tool>
  /** The tools/list result. */
  readonly list: { readonly tools: readonly ToolDescriptor[] }

  constructor(readonly tools: readonly Tool[]) {
    const byName = new Map<string, Tool>()
    for (const tool of tools) {
      if (byName.has(tool.name)) throw new Error(`two tools are named ${tool.name}`)
      byName.set(tool.name, tool)
    }
    this.byName = byName
    this.list = { tools: tools.map(describe) }
  }

  get(name: string): Tool | undefined {
    return this.byName.get(name)
  }

  names(): string[] {
    return [...this.byName.keys()]
  }
}
