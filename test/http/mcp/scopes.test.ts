/**
 * The scope matrix (spec §2.2, §5): every tool called with a key of every scope set. A key with the
 * tool's scope gets the tool's answer; a key without it gets -32003 naming the scope, and nothing is
 * appended to the log. No tool creates or changes keys.
 */
import t from 'tap'
import { mcpApp, SCOPE_SETS } from './mcp-helpers.ts'

// Two half-hour slots two days on, on the hour (the test's type is bookable around the clock).
const SLOT = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 2 * 86_400_000).toISOString()
const NEXT_SLOT = new Date(Date.parse(SLOT) + 3_600_000).toISOString()
const OWNER = { kind: 'operator', id: 'test' } as const

const DIALABLE = { callerId: '+15125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, callsPerSecond: 50 }

const CALLS: Record<string, { scope: string; args: Record<string, unknown> }> = {
  get_next_actions: { scope: 'read', args: {} },
  list_leads: { scope: 'read', args: {} },
  get_lead: { scope: 'read', args: { phone: '312-555-0142' } },
  get_lead_history: { scope: 'read', args: { phone: '312-555-0142' } },
  mark_do_not_call: { scope: 'write', args: { phone: '312-555-0142', idempotency_key: 'matrix', dry_run: true } },
  place_call: { scope: 'dial', args: { phone: '312-555-0142', name: 'Jane Doe', idempotency_key: 'matrix', dry_run: true } },
  request_payment: { scope: 'write', args: { phone: '312-555-0142', amountCents: 12500, description: 'Deposit', idempotency_key: 'matrix', dry_run: true } },
  send_sms: { scope: 'write', args: { phone: '312-555-0142', body: 'Hi Jane', idempotency_key: 'matrix', dry_run: true } },
  list_calls: { scope: 'read', args: {} },
  // The call's id is set once place_call has placed one (below).
  get_call: { scope: 'read', args: {} },
  get_stats: { scope: 'read', args: { days: 7 } },
  add_note: { scope: 'write', args: { phone: '312-555-0142', text: 'Prefers mornings', idempotency_key: 'matrix', dry_run: true } },
  update_lead: { scope: 'write', args: { phone: '312-555-0142', email: 'jane@example.org', idempotency_key: 'matrix', dry_run: true } },
  pause_follow_up: { scope: 'write', args: { phone: '312-555-0142', idempotency_key: 'matrix', dry_run: true } },
  resume_follow_up: { scope: 'write', args: { phone: '312-555-0142', idempotency_key: 'matrix', dry_run: true } },
  schedule_callback: { scope: 'dial', args: { phone: '312-555-0142', callback_at: new Date(Date.now() + 2 * 86_400_000).toISOString(), idempotency_key: 'matrix', dry_run: true } },
  list_open_slots: { scope: 'read', args: { appointment_type_id: 'chat' } },
  book_appointment: { scope: 'write', args: { phone: '312-555-0142', appointment_type_id: 'chat', start: NEXT_SLOT, idempotency_key: 'matrix', dry_run: true } },
  // The appointment's id is set once one is booked (below).
  reschedule_appointment: { scope: 'write', args: {} },
  cancel_appointment: { scope: 'write', args: {} },
}

t.test('every tool × every scope set', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account('Acme Insurance', DIALABLE)
  await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  await app.leadline.calendars.connect(account.accountId, { kind: 'simulated' }, OWNER)
  await app.leadline.calendars.saveType(account.accountId, { id: 'chat', name: 'Chat', durationMinutes: 30, minimumNoticeMinutes: 0, bookableHours: 'mon-sun 00:00-24:00', calendarId: 'simulated:primary' }, OWNER)
  const { appointmentId } = await app.leadline.appointments.book({ accountId: account.accountId, phoneLast10: '3125550142', typeId: 'chat', start: SLOT, by: 'owner', actor: OWNER, idempotencyKey: 'matrix-booked', dryRun: false })
  ;(CALLS.reschedule_appointment as { args: Record<string, unknown> }).args = { phone: '312-555-0142', appointment_id: appointmentId, start: NEXT_SLOT, idempotency_key: 'matrix', dry_run: true }
  ;(CALLS.cancel_appointment as { args: Record<string, unknown> }).args = { phone: '312-555-0142', appointment_id: appointmentId, idempotency_key: 'matrix', dry_run: true }
  const listed = (await app.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, account.keys.read)).body.result.tools as Array<{ name: string }>
  t.same(listed.map((tool) => tool.name).sort(), Object.keys(CALLS).sort(), 'the matrix covers every tool')
  const placed = await app.call(account.keys.dial, 'place_call', { phone: '312-555-0142', name: 'Jane Doe', idempotency_key: 'a-call' })
  ;(CALLS.get_call as { args: Record<string, unknown> }).args = { call_id: placed.result?.structuredContent.call_id }
  // The simulated carrier plays both calls (speed to lead and place_call) out after the answer: wait until they
  // are over and the log is quiet, so "nothing appended" below measures the refused tool alone.
  for (let waited = 0; ; waited += 50) {
    const calls = (await app.call(account.keys.read, 'list_calls', {})).result?.structuredContent.calls as Array<{ result: string }>
    if (calls.length > 0 && calls.every((call) => call.result !== 'in_progress')) break
    if (waited > 15_000) throw new Error(`calls still in progress: ${JSON.stringify(calls)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  await app.quiet()

  for (const scopes of SCOPE_SETS) {
    const key = account.keys[scopes.join(',')] as string
    for (const [tool, { scope, args }] of Object.entries(CALLS)) {
      const before = await app.leadline.store.headPosition()
      const answer = await app.call(key, tool, args)
      const label = `${tool} with [${scopes.join(',')}]`
      if (scopes.includes(scope as never)) {
        t.ok(answer.result?.structuredContent, `${label}: answered`)
      } else {
        t.match(answer, { error: { code: -32003, data: { code: 'insufficient_scope', scope, key_scopes: scopes } } }, `${label}: -32003`)
        t.equal(await app.leadline.store.headPosition(), before, `${label}: nothing appended`)
      }
    }
  }
})

t.test('no tool creates or changes keys, and tools/list offers none that could', async (t) => {
  const app = await mcpApp(t)
  const account = await app.account()
  const { tools } = (await app.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, account.keys.all)).body.result
  for (const tool of tools as Array<{ name: string; description: string }>) t.notMatch(tool.name, /key|scope|token|account/, tool.name)
  for (const name of ['create_api_key', 'create_key', 'upgrade_key', 'rotate_webhook_token']) {
    t.match(await app.call(account.keys.all, name, { scopes: ['read', 'write', 'dial'] }), { error: { code: -32602, data: { code: 'unknown_tool' } } }, name)
  }
  const accountEvents = (await app.leadline.store.readStream(`account-${account.accountId}`)).filter((e) => e.metadata.actor.kind === 'api_key')
  t.same(accountEvents, [], 'no API key ever wrote to the account stream')
})
