/**
 * Heavy reads (list_leads, get_lead_history) run a few at a time per process, with a bounded queue
 * behind them; one more is -32603 busy with retry_after_seconds. And no tool answer is ever over the
 * output bound: a tool that tried is -32603 answer_too_large, logged, with nothing of it sent.
 */
import Fastify from 'fastify'
import t from 'tap'
import { z } from 'zod'
import { MAX_OUTPUT_BYTES } from '../../../src/http/mcp/answer-budget.ts'
import { mcpRoutes } from '../../../src/http/mcp/mcp.route.ts'
import { defineTool } from '../../../src/http/mcp/tool.ts'
import { loadTools, ToolRegistry } from '../../../src/http/mcp/tool-registry.ts'
import { buildApp, operatorContext } from '../../helpers/build-app.ts'
import { MCP } from './mcp-helpers.ts'

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }

async function endpoint(t: Parameters<typeof buildApp>[0], tools: ToolRegistry, limits: Record<string, number> = {}) {
  const built = await buildApp(t)
  const { account } = await built.createAccount()
  const { key } = await built.leadline.accounts.createApiKey(account.accountId, ['read'], null, operatorContext)
  const logged: string[] = []
  const fastify = Fastify({ logger: { level: 'error', stream: { write: (line: string) => logged.push(line) } } })
  fastify.decorate('leadline', built.leadline)
  fastify.decorate('publicUrl', 'http://leadline.test')
  await fastify.register(mcpRoutes, { tools, limits })
  t.teardown(() => fastify.close())
  const post = async (body: unknown) =>
    (await fastify.inject({ method: 'POST', url: MCP, headers: { authorization: `Bearer ${key.secret}` }, payload: body as object })).json()
  return { post, logged }
}

t.test('list_leads, list_calls and get_lead_history are heavy reads; the others are not', async (t) => {
  const heavy = (await loadTools()).filter((tool) => tool.heavy).map((tool) => tool.name)
  t.same(heavy, ['get_lead_history', 'list_calls', 'list_leads'])
})

t.test('two heavy reads run at once, two wait, the rest are -32603 busy; light tools are not held up', async (t) => {
  let release: () => void = () => undefined
  const gate = new Promise<void>((resolve) => (release = resolve))
  let running = 0
  let most = 0
  const slowPage = defineTool({
    name: 'slow_page',
    title: 'Slow page',
    description: 'Waits for the test',
    scope: 'read',
    heavy: true,
    annotations: READ_ONLY,
    input: { n: z.number().int() },
    output: z.object({ n: z.number() }),
    async run({ n }) {
      running++
      most = Math.max(most, running)
      await gate
      running--
      return { n }
    },
  })
  const light = defineTool({ name: 'light', title: 'Light', description: 'Answers at once', scope: 'read', annotations: READ_ONLY, input: {}, output: z.object({ ok: z.boolean() }), run: async () => ({ ok: true }) })
  const { post } = await endpoint(t, new ToolRegistry([slowPage, light]), { heavyReads: 2, heavyReadsWaiting: 2 })
  const call = (id: number, name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } })
  const batch = post(Array.from({ length: 8 }, (_, n) => call(n, 'slow_page', { n })))
  // While the eight are in flight, a light tool answers.
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.match(await post(call(99, 'light', {})), { result: { structuredContent: { ok: true } } }, 'a light tool does not wait')
  release()
  const answers = (await batch) as Array<{ result?: unknown; error?: { code: number; data: { code: string; retry_after_seconds?: number } } }>
  t.equal(answers.filter((a) => a.result).length, 4, 'two ran and two waited their turn')
  const busy = answers.filter((a) => a.error)
  t.equal(busy.length, 4)
  for (const answer of busy) t.match(answer.error, { code: -32603, data: { code: 'busy', retry_after_seconds: 1 } })
  t.equal(most, 2, 'never more than two at once')
  t.match(await post(call(100, 'slow_page', { n: 100 })), { result: { structuredContent: { n: 100 } } }, 'free again afterwards')
})

t.test('an answer over the output bound is -32603 answer_too_large, logged, and none of it is sent', async (t) => {
  const huge = defineTool({
    name: 'huge',
    title: 'Huge',
    description: 'Answers too much',
    scope: 'read',
    annotations: READ_ONLY,
    input: { bytes: z.number().int() },
    output: z.object({ text: z.string() }),
    run: async ({ bytes }) => ({ text: 'é'.repeat(bytes / 2) }),
  })
  const { post, logged } = await endpoint(t, new ToolRegistry([huge]))
  const call = (bytes: number) => post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'huge', arguments: { bytes } } })
  const over = await call(MAX_OUTPUT_BYTES)
  t.same(over.error, {
    code: -32603,
    message: `the answer of huge is over ${MAX_OUTPUT_BYTES} bytes; ask for less (a smaller limit)`,
    data: { code: 'answer_too_large', limit_bytes: MAX_OUTPUT_BYTES },
  })
  t.notOk(JSON.stringify(over).includes('éé'), 'nothing of the answer')
  t.match(logged.join(''), /an answer over the output bound/)
  t.match((await call(MAX_OUTPUT_BYTES - 100)).result?.structuredContent, { text: String }, 'just under the bound is answered')
})
