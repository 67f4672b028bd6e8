/**
 * The tool catalogue is loaded once a process, before any fastify plugin registers: importing every
 * tool is the slow part of starting an app, and fastify bounds each plugin's registration
 * (AVV_ERR_PLUGIN_EXEC_TIMEOUT on a busy machine when the tool endpoint's plugin imported them).
 */
import fs from 'node:fs'
import t from 'tap'
import { defaultToolRegistry, TOOLS_DIR } from '../../../src/http/mcp/tool-registry.ts'
import { mcpApp } from './mcp-helpers.ts'

t.test('every tool file, loaded once and shared by every app the process builds', async (t) => {
  const registry = await defaultToolRegistry()
  t.equal(await defaultToolRegistry(), registry, 'the same registry the second time: nothing imported again')
  const files = fs.readdirSync(TOOLS_DIR).filter((file) => /\.tool\.[jt]s$/.test(file))
  t.equal(registry.names().length, files.length, 'one tool a file')

  const app = await mcpApp(t)
  const account = await app.account()
  const listed = await app.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, account.keys.read)
  t.same(listed.body.result.tools.map((tool: { name: string }) => tool.name), registry.list.tools.map((tool) => tool.name), 'the app serves that registry')
})
