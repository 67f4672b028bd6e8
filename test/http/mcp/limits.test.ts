/**
 * Limits, each answered as a JSON-RPC error with its code and, where waiting helps, a retry hint:
 * the per-key rate limit (-32029, 20/s with bursts of 40), the body limit (-32600 payload_too_large,
 * 1 MiB) and the tool time limit (-32603 tool_timeout, 30 s).
 */
import Fastify from 'fastify'
import t from 'tap'
import { z } from 'zod'
import { DEFAULT_MCP_LIMITS } from '../../../src/http/mcp/mcp-endpoint.ts'
import { mcpRoutes } from '../../../src/http/mcp/mcp.route.ts'
import { TokenBuckets } from '../../../src/http/token-buckets.ts'
import { defineTool, defineWriteTool } from '../../../src/http/mcp/tool.ts'
import { defaultToolRegistry, ToolRegistry } from '../../../src/http/mcp/tool-registry.ts'
import { buildApp, operatorContext } from '../../helpers/build-app.ts'
import { MCP, mcpApp } from './mcp-helpers.ts'

t.test('the documented defaults', async (t) => {
  t.same(DEFAULT_MCP_LIMITS, { ratePerSecond: 20, burst: 40, bodyLimitBytes: 1024 * 1024, toolTimeoutMs: 30_000, maxBatch: 20, heavyReads: 4, heavyReadsWaiting: 32 })
})

t.test('per key: a burst, then -32029 with retry_after_seconds; other keys are not affected', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account()
  const answers = await Promise.all(Array.from({ length: 100 }, () => app.call(account.keys.read, 'list_leads')))
  const limited = answers.filter((a) => a.error)
  t.ok(answers.filter((a) => a.result).length >= 40, 'the burst of 40 goes through')
  t.ok(limited.length >= 1, `${limited.length} of 100 at once refused`)
  t.match(limited[0], {
    error: { code: -32029, message: /at most 20 requests per second per key \(bursts of 40\)/, data: { code: 'rate_limited', retry_after_seconds: 1 } },
  })
  t.ok((await app.call(account.keys.all, 'list_leads')).result, 'another key of the same account is not limited')
  await new Promise((resolve) => setTimeout(resolve, 1100))
  t.ok((await app.call(account.keys.read, 'list_leads')).result, 'a second later the key may call again')
})

t.test('exactly the burst, then every request in a batch counts', async (t) => {
  const built = await buildApp(t)
  const { account } = await built.createAccount()
  const { key } = await built.leadline.accounts.createApiKey(account.accountId, ['read'], null, operatorContext)
  const fastify = Fastify()
  fastify.decorate('leadline', built.leadline)
  fastify.decorate('publicUrl', 'http://leadline.test')
  await fastify.register(mcpRoutes, { tools: await defaultToolRegistry(), limits: { ratePerSecond: 0.01, burst: 5 } })
  t.teardown(() => fastify.close())
  const post = async (body: unknown) => (await fastify.inject({ method: 'POST', url: MCP, headers: { authorization: `Bearer ${key.secret}` }, payload: body as object })).json()
  const batch = await post(Array.from({ length: 8 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'ping' })))
  t.same(batch.map((a: { result?: unknown }) => (a.result ? 'ok' : 'limited')), ['ok', 'ok', 'ok', 'ok', 'ok', 'limited', 'limited', 'limited'])
  t.match(batch[5], { error: { code: -32029, data: { code: 'rate_limited', retry_after_seconds: 100 } } }, 'at 0.01/s the next token is 100 s away')
  t.match(await post({ jsonrpc: '2.0', id: 9, method: 'tools/list' }), { error: { code: -32029 } })
})

t.test('token buckets refill at the rate, and forget idle keys when there are very many', async (t) => {
  let now = 0
  const buckets = new TokenBuckets(2, 3, () => now)
  t.same([buckets.take('a'), buckets.take('a'), buckets.take('a')], [0, 0, 0])
  t.equal(buckets.take('a'), 1, 'empty: wait a second')
  now = 500
  t.equal(buckets.take('a'), 0, 'one token back after half a second at 2/s')
  const slow = new TokenBuckets(0.25, 1, () => now)
  slow.take('x')
  t.equal(slow.take('x'), 4, 'whole seconds until the next token')
  for (let i = 0; i < 100_000; i++) buckets.take(`k${i}`)
  t.equal(buckets.size, 100_001)
  now += 10_000
  buckets.take('one-more')
  t.equal(buckets.size, 1, 'every refilled bucket was forgotten')
})

t.test('a body over 1 MiB is -32600 payload_too_large (HTTP 200)', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account()
  const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_leads', arguments: { source: 'x'.repeat(1024 * 1024) } } })
  const response = await app.post(big, account.keys.read)
  t.equal(response.status, 200)
  t.same(response.body, {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32600, message: 'the request body is limited to 1048576 bytes', data: { code: 'payload_too_large', limit_bytes: 1048576 } },
  })
  const justUnder = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(1024 * 1024 - 100) } })
  t.match((await app.post(justUnder, account.keys.read)).body, { result: {} })
})

t.test('a tool past its time limit is -32603 tool_timeout; a write still records its outcome for a retry', async (t) => {
  const built = await buildApp(t)
  const { account } = await built.createAccount()
  const { key } = await built.leadline.accounts.createApiKey(account.accountId, ['read', 'write'], null, operatorContext)
  let slowWrites = 0
  const slowRead = defineTool({
    name: 'slow_read',
    title: 'Slow read',
    description: 'Takes 200 ms',
    scope: 'read',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {},
    output: z.object({ done: z.boolean() }),
    run: () => new Promise<{ done: boolean }>((resolve) => setTimeout(() => resolve({ done: true }), 200)),
  })
  const slowWrite = defineWriteTool({
    name: 'slow_write',
    title: 'Slow write',
    description: 'Takes 200 ms',
    scope: 'write',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {},
    output: z.object({ run: z.number() }),
    async run() {
      slowWrites += 1
      const run = slowWrites
      return new Promise<{ run: number }>((resolve) => setTimeout(() => resolve({ run }), 200))
    },
  })
  const fastify = Fastify()
  fastify.decorate('leadline', built.leadline)
  fastify.decorate('publicUrl', 'http://leadline.test')
  await fastify.register(mcpRoutes, { tools: new ToolRegistry([slowRead, slowWrite]), limits: { toolTimeoutMs: 50 } })
  t.teardown(() => fastify.close())
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await fastify.inject({ method: 'POST', url: MCP, headers: { authorization: `Bearer ${key.secret}` }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } } })).json()

  t.same((await call('slow_read')).error, {
    code: -32603,
    message: 'slow_read did not finish within 0.05 s; try again',
    data: { code: 'tool_timeout', retry_after_seconds: 5, time_limit_seconds: 0.05 },
  })
  t.match((await call('slow_write', { idempotency_key: 'slow-1' })).error, {
    code: -32603,
    message: /may still complete: repeat the call with the same idempotency_key for its outcome/,
    data: { code: 'tool_timeout', retry_after_seconds: 5 },
  })
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.same(await call('slow_write', { idempotency_key: 'slow-1' }), {
    jsonrpc: '2.0',
    id: 1,
    result: { content: [{ type: 'text', text: '{"run":1}' }], structuredContent: { run: 1 }, _meta: { 'leadline/replayed': true } },
  }, 'the retry gets the outcome of the call that timed out, which ran once')
  t.equal(slowWrites, 1)
})

t.test('an unexpected failure is -32603 internal_error and logged, with nothing of it shown', async (t) => {
  const built = await buildApp(t)
  const { account } = await built.createAccount()
  const { key } = await built.leadline.accounts.createApiKey(account.accountId, ['read'], null, operatorContext)
  const broken = defineTool({
    name: 'broken',
    title: 'Broken',
    description: 'Throws',
    scope: 'read',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {},
    output: z.object({}),
    run: async () => {
      throw new Error('secret internals at /srv/db')
    },
  })
  const logged: string[] = []
  const fastify = Fastify({ logger: { level: 'error', stream: { write: (line: string) => logged.push(line) } } })
  fastify.decorate('leadline', built.leadline)
  fastify.decorate('publicUrl', 'http://leadline.test')
  await fastify.register(mcpRoutes, { tools: new ToolRegistry([broken]) })
  t.teardown(() => fastify.close())
  const answer = (await fastify.inject({ method: 'POST', url: MCP, headers: { authorization: `Bearer ${key.secret}` }, payload: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'broken' } } })).json()
  t.same(answer, { jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'internal error', data: { code: 'internal_error' } } })
  t.match(logged.join(''), /secret internals/, 'the details are in the log')
})
