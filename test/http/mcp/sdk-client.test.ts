/**
 * Interoperability: the MCP SDK's own Client over StreamableHTTPClientTransport against a real
 * listening server. It negotiates, lists the tools (compiling their output schemas), calls them
 * (checking every structured result against its output schema), and sees every error code as an
 * McpError with our code and data.
 */
import { McpError, type Tool as SdkTool } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import t from 'tap'
import { SIMULATED_CALENDAR_ID } from '../../../src/integrations/calendar/simulated/index.ts'
import { operatorContext } from '../../helpers/build-app.ts'
import { rejection } from './mcp-helpers.ts'
import { mcpApp, sdkClient } from './mcp-helpers.ts'

const DIALABLE = { callerId: '+15125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, callsPerSecond: 50 }

t.test('the SDK client connects, lists the tools and calls them; results match their output schemas', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account('Acme Insurance', DIALABLE)
  const jane = await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142', source: 'Spring promo', vendor: 'LeadCo', email: 'jane@example.com' })
  await account.pushLead({ name: 'John Roe', phone: '312 555 0143', source: 'Autumn' })
  const url = await app.listen()
  const client = await sdkClient(t, url, account.keys.all)

  t.same(client.getServerVersion(), { name: 'leadline', title: 'Leadline', version: '0.1.0' })
  t.same(client.getServerCapabilities(), { tools: { listChanged: false } })
  t.match(client.getInstructions(), /idempotency_key/)
  await client.ping()

  const { tools } = await client.listTools()
  t.equal(tools.length, 20)
  const byName = new Map<string, SdkTool>(tools.map((tool) => [tool.name, tool]))
  t.match(byName.get('get_lead'), { annotations: { readOnlyHint: true }, _meta: { 'leadline/scope': 'read' } })

  const listed = await client.callTool({ name: 'list_leads', arguments: { source: 'spring PROMO' } })
  t.match(listed.structuredContent, { list: 'Inbound Leads', leads: [{ lead_id: jane.leadId, full_name: 'Jane Doe', vendor: 'LeadCo' }], next_cursor: null })
  t.same(JSON.parse((listed.content as Array<{ type: string; text: string }>)[0]?.text ?? ''), listed.structuredContent, 'content[0].text is the same output as JSON')
  t.equal((listed.content as Array<{ type: string }>)[0]?.type, 'text')

  const page1 = await client.callTool({ name: 'list_leads', arguments: { limit: 1 } })
  const page1Content = page1.structuredContent as { leads: Array<{ full_name: string }>; next_cursor: string }
  t.equal(page1Content.leads[0]?.full_name, 'John Roe', 'newest first')
  const page2 = await client.callTool({ name: 'list_leads', arguments: { limit: 1, cursor: page1Content.next_cursor } })
  t.match(page2.structuredContent, { leads: [{ full_name: 'Jane Doe' }], next_cursor: null })

  t.match((await client.callTool({ name: 'get_lead', arguments: { phone: '+1 (312) 555-0142' } })).structuredContent, {
    lead: { lead_id: jane.leadId, phone: '+13125550142', email: 'jane@example.com', do_not_call: false },
  })
  t.match((await client.callTool({ name: 'get_lead', arguments: { lead_id: jane.leadId } })).structuredContent, { lead: { phone: '+13125550142' } })
  const history = await client.callTool({ name: 'get_lead_history', arguments: { lead_id: jane.leadId } })
  // A new lead is one event: its list and why speed to lead did not call (off here) are on it.
  t.match(history.structuredContent, {
    lead_id: jane.leadId,
    events: [
      {
        revision: 0,
        type: 'LeadReceived',
        actor: { kind: 'webhook_token' },
        data: {
          leadId: jane.leadId,
          list: { listId: 'inbound-leads', listName: 'Inbound Leads' },
          speedToLeadSkipped: { reason: 'speed_to_lead_off', message: 'speed to lead is off for this account', nextAllowedAt: null },
        },
      },
    ],
    total_events: 1,
    next_cursor: null,
  })
  t.equal((history.structuredContent as { events: unknown[] }).events.length, 1, 'nothing else was appended for the new lead')

  const dry = await client.callTool({ name: 'mark_do_not_call', arguments: { phone: '3125550142', idempotency_key: 'sdk-1', dry_run: true } })
  t.match(dry.structuredContent, { lead_id: jane.leadId, changed: true, dry_run: true })
  const marked = await client.callTool({ name: 'mark_do_not_call', arguments: { phone: '3125550142', idempotency_key: 'sdk-1' } })
  t.match(marked.structuredContent, { lead_id: jane.leadId, do_not_call: true, changed: true, dry_run: false })
  t.equal(marked._meta, undefined)
  const again = await client.callTool({ name: 'mark_do_not_call', arguments: { phone: '3125550142', idempotency_key: 'sdk-1' } })
  t.same(again.structuredContent, marked.structuredContent, 'the same key: the original result')
  t.same(again._meta, { 'leadline/replayed': true })

  const call = await client.callTool({ name: 'place_call', arguments: { phone: '312-555-0143', name: 'John Roe', idempotency_key: 'sdk-call', dry_run: true } })
  t.match(call.structuredContent, { status: 'would_call', call_id: null, to: '+13125550143', from: '+15125550100', dry_run: true, check: { allowed: true } })

  t.match((await client.callTool({ name: 'get_next_actions', arguments: {} })).structuredContent, { summary: /^No stale leads/, stale_leads: [] })
  t.match((await client.callTool({ name: 'request_payment', arguments: { phone: '312-555-0143', amountCents: 12500, description: 'Deposit', idempotency_key: 'sdk-pay', dry_run: true } })).structuredContent, {
    status: 'would_text',
    amount_cents: 12500,
    dry_run: true,
  })
  t.match((await client.callTool({ name: 'send_sms', arguments: { phone: '312-555-0143', body: 'Hi John', idempotency_key: 'sdk-sms', dry_run: true } })).structuredContent, {
    status: 'would_send',
    body: 'Hi John\nReply STOP to opt out.',
    segments: 1,
    dry_run: true,
  })
  // The tools of issue #30: the SDK checks each structuredContent against the tool's output schema.
  const janePhone = { phone: '3125550142' }
  t.match((await client.callTool({ name: 'add_note', arguments: { ...janePhone, text: 'Prefers mornings', idempotency_key: 'sdk-note' } })).structuredContent, { notes_total: 1, dry_run: false })
  t.match((await client.callTool({ name: 'update_lead', arguments: { ...janePhone, email: 'jane@example.org', idempotency_key: 'sdk-edit', dry_run: true } })).structuredContent, { changed: ['email'], dry_run: true })
  t.match((await client.callTool({ name: 'pause_follow_up', arguments: { ...janePhone, idempotency_key: 'sdk-pause' } })).structuredContent, { paused: true, changed: true })
  t.match((await client.callTool({ name: 'resume_follow_up', arguments: { ...janePhone, idempotency_key: 'sdk-resume' } })).structuredContent, { paused: false, changed: true })
  const callbackAt = new Date(Date.now() + 86_400_000).toISOString()
  t.match((await client.callTool({ name: 'schedule_callback', arguments: { phone: '312-555-0143', callback_at: callbackAt, idempotency_key: 'sdk-cb', dry_run: true } })).structuredContent, { dry_run: true })
  const calls = (await client.callTool({ name: 'list_calls', arguments: {} })).structuredContent as { calls: Array<{ decision_id: string }> }
  t.ok(Array.isArray(calls.calls))
  await t.rejects(client.callTool({ name: 'get_call', arguments: { call_id: 'CA404' } }), { code: -32603, data: { code: 'call_not_found' } }, 'get_call of no call')
  const stats = (await client.callTool({ name: 'get_stats', arguments: { days: 7 } })).structuredContent as { summary: string; period: { days: number } }
  t.equal(stats.period.days, 7, 'get_stats: the last 7 days')
  // The appointment tools of issue #45, on the simulated calendar: a type listed, a slot offered, booked, moved and cancelled.
  await app.leadline.calendars.connect(account.accountId, { kind: 'simulated' }, operatorContext.actor)
  await app.leadline.calendars.saveType(account.accountId, { id: 'estimate', name: 'Roof estimate', durationMinutes: 60, bookableHours: 'mon-sun 00:00-23:59', minimumNoticeMinutes: 0, calendarId: SIMULATED_CALENDAR_ID }, operatorContext.actor)
  t.match((await client.callTool({ name: 'list_open_slots', arguments: {} })).structuredContent, { appointment_types: [{ id: 'estimate' }], slots: [] })
  const open = (await client.callTool({ name: 'list_open_slots', arguments: { appointment_type_id: 'estimate', ...janePhone } })).structuredContent as { slots: Array<{ start: string }> }
  const [first, second] = open.slots
  t.ok(first !== undefined && second !== undefined, 'open slots offered')
  const booked = (await client.callTool({ name: 'book_appointment', arguments: { ...janePhone, appointment_type_id: 'estimate', start: first?.start, idempotency_key: 'sdk-book' } })).structuredContent as { appointment_id: string }
  t.match(booked, { appointment_id: /^apt_/, status: 'booked' })
  t.match((await client.callTool({ name: 'reschedule_appointment', arguments: { ...janePhone, appointment_id: booked.appointment_id, start: second?.start, idempotency_key: 'sdk-move' } })).structuredContent, { start: second?.start })
  t.match((await client.callTool({ name: 'cancel_appointment', arguments: { ...janePhone, appointment_id: booked.appointment_id, idempotency_key: 'sdk-cancel' } })).structuredContent, { status: 'cancelled' })
  t.equal(new Set(tools.map((tool) => tool.name)).size, 20, 'every tool was listed, and every one was called above')
})

t.test('the SDK client sees every error code as an McpError with our code and data', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account()
  const url = await app.listen()

  const noKey = await rejection(sdkClient(t, url, undefined))
  t.match(noKey, { code: -32001, data: { code: 'api_key_missing' } }, 'initialize without a key')
  const badKey = await rejection(sdkClient(t, url, 'll_live_nope'))
  t.match(badKey, { code: -32001, data: { code: 'api_key_invalid' } })

  const reader = await sdkClient(t, url, account.keys.read)
  t.match(await rejection(reader.callTool({ name: 'place_call', arguments: { phone: '3125550142', name: 'J', idempotency_key: 'k' } })), {
    code: -32003,
    data: { code: 'insufficient_scope', scope: 'dial' },
  })
  t.match(await rejection(reader.callTool({ name: 'delete_everything', arguments: {} })), { code: -32602, data: { code: 'unknown_tool' } })
  t.match(await rejection(reader.callTool({ name: 'get_lead', arguments: { phone: 'call me' } })), {
    code: -32602,
    data: { code: 'invalid_arguments', problems: [{ path: 'phone', message: 'must hold at least ten digits' }] },
  })
  t.match(await rejection(reader.callTool({ name: 'get_lead', arguments: { phone: '3125550199' } })), {
    code: -32603,
    message: 'MCP error -32603: no lead with that phone number or id in this account',
    data: { code: 'lead_not_found' },
  })
  t.match(await rejection(reader.request({ method: 'resources/list', params: {} }, z.object({}).loose())), { code: -32601, data: { code: 'method_not_found' } })

  // Beyond the burst, the key is rate limited with a retry hint (however slowly this machine sends): the
  // SDK's pings go beside plain requests on the same key, sent all at once, which keep its bucket empty.
  const drain = () =>
    Promise.all(Array.from({ length: 60 }, (_, id) => fetch(`${url}/api/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${account.keys.read}` }, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }) })))
  let limited: McpError | undefined
  for (let round = 0; round < 20 && !limited; round++) {
    const [results] = await Promise.all([Promise.allSettled(Array.from({ length: 10 }, () => reader.ping())), drain()])
    limited = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')?.reason as McpError | undefined
  }
  t.match(limited, { code: -32029, data: { code: 'rate_limited', retry_after_seconds: 1 } })
})
