/**
 * One account per call (spec §1.6, §5 rule 5), proven by trying: account A's key reaches for
 * account B's leads through every argument every tool takes. A lead of B is `lead_not_found` exactly
 * like a lead that does not exist, B's streams never change, and nothing of B ever appears in an answer.
 */
import t from 'tap'
import { mcpApp, type McpTestAccount } from './mcp-helpers.ts'

const DIALABLE = { callerId: '+15125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, callsPerSecond: 50 }

async function twoAccounts(t: Parameters<typeof mcpApp>[0]) {
  const app = await mcpApp(t)
  const a = await app.account('Agency A', DIALABLE)
  const b = await app.account('Agency B', { ...DIALABLE, callerId: '+15125550200' })
  await a.pushLead({ name: 'Alice A', phone: '(312) 555-0101', source: 'A-campaign', vendor: 'A-vendor' })
  const bLead = await b.pushLead({ name: 'Bob B', phone: '(415) 555-0202', source: 'B-campaign', vendor: 'B-vendor', dnc: 'yes' })
  await b.pushLead({ name: 'Betty B', phone: '(415) 555-0203', source: 'B-campaign', vendor: 'B-vendor' })
  return { app, a, b, bLead }
}

/** Everything that would identify B or its leads in an answer. */
function secretsOf(b: McpTestAccount, bLead: { leadId: string }): string[] {
  return [b.accountId, bLead.leadId, '4155550202', '4155550203', 'Bob B', 'Betty B', 'B-campaign', 'B-vendor']
}

function leaks(answer: unknown, secrets: string[]): string[] {
  const text = JSON.stringify(answer)
  return secrets.filter((secret) => text.includes(secret))
}

t.test('list_leads: every filter lists only A\'s leads, and B\'s own cursor is refused', async (t) => {
  const { app, a, b, bLead } = await twoAccounts(t)
  const secrets = secretsOf(b, bLead)
  const bPage = (await app.call(b.keys.read, 'list_leads', { limit: 1 })).result?.structuredContent as { next_cursor: string }
  t.type(bPage.next_cursor, 'string', 'B has a second page')
  const attempts: Array<Record<string, unknown>> = [
    {},
    { source: 'B-campaign' },
    { vendor: 'B-vendor' },
    { since: '2000-01-01' },
    { do_not_call: true },
    { do_not_call: false },
    { limit: 500 },
  ]
  for (const args of attempts) {
    const answer = await app.call(a.keys.read, 'list_leads', args)
    const leads = answer.result?.structuredContent.leads as Array<{ full_name: string }>
    t.ok(leads.every((lead) => lead.full_name === 'Alice A'), `${JSON.stringify(args)}: only A's leads`)
    t.same(leaks(answer, secrets), [], `${JSON.stringify(args)}: nothing of B`)
  }
  // A cursor belongs to the account that got it.
  const borrowed = await app.call(a.keys.read, 'list_leads', { cursor: bPage.next_cursor })
  t.match(borrowed.error, { code: -32602, data: { code: 'invalid_cursor' } }, "B's cursor is refused")
  t.same(leaks(borrowed, secrets), [], "B's cursor: nothing of B")
})

t.test('get_lead and get_lead_history: B\'s lead by phone or id is lead_not_found, exactly like a missing one', async (t) => {
  const { app, a, b, bLead } = await twoAccounts(t)
  const secrets = secretsOf(b, bLead)
  for (const tool of ['get_lead', 'get_lead_history']) {
    const missingByPhone = await app.call(a.keys.read, tool, { phone: '(415) 555-0999' })
    const missingById = await app.call(a.keys.read, tool, { lead_id: 'ld_0000000000000000' })
    for (const [args, missing] of [
      [{ phone: '(415) 555-0202' }, missingByPhone],
      [{ phone: '+14155550202' }, missingByPhone],
      [{ phone: '4155550202' }, missingByPhone],
      [{ lead_id: bLead.leadId }, missingById],
    ] as const) {
      const answer = await app.call(a.keys.read, tool, args)
      t.same(answer.error, missing.error, `${tool} ${JSON.stringify(args)}: the same error as a missing lead`)
      t.match(answer.error, { code: -32603, data: { code: 'lead_not_found' } })
      t.same(leaks(answer, secrets), [])
    }
    t.ok((await app.call(b.keys.read, tool, { lead_id: bLead.leadId })).result, `${tool}: B itself sees it`)
  }
})

t.test('mark_do_not_call: B\'s lead cannot be changed; idempotency keys are per account', async (t) => {
  const { app, a, b, bLead } = await twoAccounts(t)
  const bStream = `lead-${b.accountId}-4155550203`
  for (const args of [{ phone: '415-555-0203' }, { lead_id: (await app.call(b.keys.read, 'get_lead', { phone: '4155550203' })).result?.structuredContent.lead.lead_id }]) {
    for (const dry_run of [true, false]) {
      const answer = await app.call(a.keys.write, 'mark_do_not_call', { ...args, idempotency_key: `try-${dry_run}-${Object.keys(args)[0]}`, dry_run })
      t.match(answer.error, { code: -32603, data: { code: 'lead_not_found' } }, `${JSON.stringify(args)} dry_run ${dry_run}`)
      t.same(leaks(answer, secretsOf(b, bLead)), [])
    }
  }
  const aKeys = new Set(Object.values(a.keyIds))
  const byA = (await app.leadline.store.readAll()).filter((e) => e.stream.includes(b.accountId) && aKeys.has(e.metadata.actor.id))
  t.same(byA, [], "no event in any of B's streams was caused by A's keys")
  t.equal((await app.call(b.keys.read, 'get_lead', { phone: '4155550203' })).result?.structuredContent.lead.do_not_call, false)

  // The same idempotency key in two accounts is two keys: B's use neither blocks nor answers A's.
  const bMarked = await app.call(b.keys.write, 'mark_do_not_call', { phone: '4155550203', idempotency_key: 'shared-key' })
  t.match(bMarked.result?.structuredContent, { changed: true })
  const aMarked = await app.call(a.keys.write, 'mark_do_not_call', { phone: '3125550101', idempotency_key: 'shared-key' })
  t.match(aMarked.result?.structuredContent, { changed: true, phone: '+13125550101' })
  t.equal(aMarked.result?._meta, undefined, "A's call ran: it is not B's result replayed")
})

t.test('place_call and get_next_actions never reach B', async (t) => {
  const { app, a, b, bLead } = await twoAccounts(t)
  const secrets = secretsOf(b, bLead)
  // B's lead is do-not-call in B; for A the number is just a number: A's dry run says nothing of B
  // (the number itself is A's own argument, echoed back).
  const dry = await app.call(a.keys.all, 'place_call', { phone: '(415) 555-0202', name: 'Someone', idempotency_key: 'x-1', dry_run: true })
  t.match(dry.result?.structuredContent, { lead_id: null, to: '+14155550202', check: { allowed: true } }, "B's do-not-call and lead are not A's")
  t.same(leaks(dry, secrets.filter((s) => s !== '4155550202')), [])
  const aKeys = new Set(Object.values(a.keyIds))
  t.same((await app.leadline.store.readAll()).filter((e) => e.stream.includes(b.accountId) && aKeys.has(e.metadata.actor.id)), [], "nothing of B's changed")

  const next = await app.call(a.keys.read, 'get_next_actions', {})
  t.same(leaks(next, secrets), [], 'get_next_actions shows nothing of B')
})

t.test('send_sms: B\'s lead by phone or id is lead_not_found, exactly like a missing one, and nothing is texted', async (t) => {
  const { app, a, b, bLead } = await twoAccounts(t)
  const args = { body: 'Hi', idempotency_key: 'sms-b', dry_run: true }
  const missingByPhone = await app.call(a.keys.write, 'send_sms', { ...args, phone: '(415) 555-0999' })
  const missingById = await app.call(a.keys.write, 'send_sms', { ...args, lead_id: 'ld_0000000000000000' })
  t.match(missingByPhone.error, { code: -32603, data: { code: 'lead_not_found' } })
  for (const [reference, missing] of [[{ phone: '(415) 555-0203' }, missingByPhone], [{ lead_id: bLead.leadId }, missingById]] as const) {
    for (const dry_run of [true, false]) {
      const answer = await app.call(a.keys.write, 'send_sms', { ...args, ...reference, dry_run, idempotency_key: `sms-${dry_run}-${Object.keys(reference)[0]}` })
      t.same(answer.error, missing.error, `${JSON.stringify(reference)} dry_run ${dry_run}`)
      t.same(leaks(answer, secretsOf(b, bLead)), [])
    }
  }
  t.same((await app.leadline.store.readAll()).filter((e) => e.type === 'TextDecided'), [], 'no text decided anywhere')
})

t.test('request_payment: B\'s lead by phone or id is customer_not_found, exactly like a missing one', async (t) => {
  const { app, a, b, bLead } = await twoAccounts(t)
  const args = { amountCents: 1000, description: 'Deposit', idempotency_key: 'pay-b', dry_run: true }
  const missingByPhone = await app.call(a.keys.write, 'request_payment', { ...args, phone: '(415) 555-0999' })
  const missingById = await app.call(a.keys.write, 'request_payment', { ...args, lead_id: 'ld_0000000000000000' })
  t.match(missingByPhone.error, { code: -32603, data: { code: 'customer_not_found' } })
  for (const [reference, missing] of [[{ phone: '(415) 555-0203' }, missingByPhone], [{ lead_id: bLead.leadId }, missingById]] as const) {
    for (const dry_run of [true, false]) {
      const answer = await app.call(a.keys.write, 'request_payment', { ...args, ...reference, dry_run, idempotency_key: `pay-${dry_run}-${Object.keys(reference)[0]}` })
      t.same(answer.error, missing.error, `${JSON.stringify(reference)} dry_run ${dry_run}`)
      t.same(leaks(answer, secretsOf(b, bLead)), [])
    }
  }
  const aKeys = new Set(Object.values(a.keyIds))
  t.same((await app.leadline.store.readAll()).filter((e) => e.stream.includes(b.accountId) && aKeys.has(e.metadata.actor.id)), [], "nothing of B's changed")
})

t.test('no tool takes an account id: an account argument is refused as invalid', async (t) => {
  const { app, a, b } = await twoAccounts(t)
  const args: Record<string, Record<string, unknown>> = {
    get_next_actions: {},
    list_leads: {},
    get_lead: { phone: '4155550202' },
    get_lead_history: { phone: '4155550202' },
    mark_do_not_call: { phone: '4155550202', idempotency_key: 'acct' },
    place_call: { phone: '4155550202', name: 'x', idempotency_key: 'acct' },
    request_payment: { phone: '4155550202', amountCents: 100, description: 'x', idempotency_key: 'acct' },
    send_sms: { phone: '4155550202', body: 'x', idempotency_key: 'acct' },
    list_calls: {},
    get_call: { call_id: 'CA1' },
    add_note: { phone: '4155550202', text: 'x', idempotency_key: 'acct' },
    update_lead: { phone: '4155550202', email: 'x@example.com', idempotency_key: 'acct' },
    schedule_callback: { phone: '4155550202', callback_at: '2099-01-01T12:00:00Z', idempotency_key: 'acct' },
    pause_follow_up: { phone: '4155550202', idempotency_key: 'acct' },
    resume_follow_up: { phone: '4155550202', idempotency_key: 'acct' },
    list_open_slots: {},
    book_appointment: { phone: '4155550202', appointment_type_id: 'estimate', start: '2099-01-01T12:00:00Z', idempotency_key: 'acct' },
    reschedule_appointment: { phone: '4155550202', appointment_id: 'apt_1', start: '2099-01-01T12:00:00Z', idempotency_key: 'acct' },
    cancel_appointment: { phone: '4155550202', appointment_id: 'apt_1', idempotency_key: 'acct' },
  }
  const { tools } = (await app.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, a.keys.all)).body.result
  for (const tool of tools as Array<{ name: string; inputSchema: { properties: Record<string, unknown> } }>) {
    t.notOk(Object.keys(tool.inputSchema.properties ?? {}).some((name) => /account/i.test(name)), `${tool.name}: no account argument`)
    for (const name of ['account_id', 'accountId', 'account']) {
      const answer = await app.call(a.keys.all, tool.name, { ...args[tool.name], [name]: b.accountId })
      t.match(answer.error, { code: -32602, data: { code: 'invalid_arguments', problems: [{ message: new RegExp(name) }] } }, `${tool.name} ${name}`)
    }
    // Three calls a tool, twenty tools: kept under the key's rate limit (20 a second, bursts of 40).
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
})
