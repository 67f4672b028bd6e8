/**
 * The server's `instructions` (initialize) are made from the tool registry: every tool with its scope
 * and one-line summary, and the scope sentence grouped from the same entries, so a new tool is listed
 * the moment its file exists.
 */
import t from 'tap'
import { z } from 'zod'
import { serverInstructions } from '../../../src/http/mcp/instructions.ts'
import { defineTool } from '../../../src/http/mcp/tool.ts'
import { loadTools, ToolRegistry } from '../../../src/http/mcp/tool-registry.ts'
import { mcpApp } from './mcp-helpers.ts'

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }

t.test('every tool of the registry is listed with its scope and summary, and nothing else', async (t) => {
  const registry = new ToolRegistry(await loadTools())
  const text = serverInstructions(registry)
  const listed = text.split('\n').filter((line) => line.startsWith('- '))
  t.same(
    listed.toSorted(),
    registry.tools.map((tool) => `- ${tool.name} (${tool.scope}): ${tool.summary}`).toSorted(),
    'one line per tool',
  )
  t.match(text, 'the scopes: read (get_call, get_lead, get_lead_history, get_next_actions, get_stats, list_calls, list_leads, list_open_slots), write (add_note, book_appointment, cancel_appointment, mark_do_not_call, pause_follow_up, request_payment, reschedule_appointment, resume_follow_up, send_sms, update_lead), dial (place_call, schedule_callback).')
  for (const tool of registry.tools) t.notMatch(tool.summary, /\n/, `${tool.name}: its summary is one line`)
  // The fixed prose may name tools only when the registry has them.
  const named = new Set([...text.matchAll(/\b[a-z]+(?:_[a-z]+)+\b/g)].map((m) => m[0]))
  for (const name of ['get_next_actions', 'place_call']) t.ok(named.has(name), `${name} is named`)
  for (const name of named) {
    if (/^(get|list|mark|place|request)_/.test(name)) t.ok(registry.get(name), `${name} is a tool`)
  }
})

t.test('a tool added to the registry is in the instructions; scopes without tools are left out', async (t) => {
  const tool = (name: string, description: string, summary?: string) =>
    defineTool({
      name,
      title: name,
      ...(summary === undefined ? {} : { summary }),
      description,
      scope: 'read',
      annotations: READ_ONLY,
      input: {},
      output: z.object({}),
      run: async () => ({}),
    })
  const extra = tool('count_leads', 'Counts the leads.', 'How many leads the account holds')
  const unsummarised = tool('other_thing', 'Does another thing. Then more.')
  const text = serverInstructions(new ToolRegistry([extra, unsummarised]))
  t.match(text, '\n- count_leads (read): How many leads the account holds\n')
  t.match(text, '\n- other_thing (read): Does another thing\n', 'without a summary: the first sentence of the description')
  t.match(text, 'the scopes: read (count_leads, other_thing).')
  t.notMatch(text, 'get_next_actions', 'no tool named: no advice to start with it')
})

t.test('initialize answers them', async (t) => {
  const app = await mcpApp(t)
  const { keys } = await app.account()
  const { body } = await app.post(
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } } },
    keys.read,
  )
  t.equal(body.result.instructions, serverInstructions(new ToolRegistry(await loadTools())))
})
