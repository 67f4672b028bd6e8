/**
 * A lead's history is never silently cut: get_lead_history answers newest first, a page at a time,
 * with the total and a cursor for the older events, so a do-not-call recorded after a thousand
 * repeats is on the first page. get_lead always shows the lead's do-not-call state as its own
 * record has it, even before the read models have caught up, and a bounded number of its pay-links.
 */
import t from 'tap'
import { leadDecider } from '../../../src/domain/lead/lead.decider.ts'
import { CALLER_ID, paymentsApp } from '../payments/payments-helpers.ts'
import { mcpApp } from './mcp-helpers.ts'

type Entry = { revision: number; type: string }
type Page = { lead_id: string; events: Entry[]; total_events: number; next_cursor: string | null }

t.test('1,200 repeats then a do-not-call: the do-not-call leads the first page, and the cursors walk every event once', async (t) => {
  const app = await mcpApp(t, { webhookRateLimit: null })
  const account = await app.account()
  const jane = await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  for (let i = 0; i < 1200; i++) {
    const response = await app.app.inject({
      method: 'POST',
      url: '/api/ingest/lead',
      headers: { 'x-service-token': account.token, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'Jane Doe', phone: '312-555-0142', note: `repeat ${i}` }),
    })
    if (response.statusCode !== 200) throw new Error(response.body)
  }
  t.match(await app.call(account.keys.all, 'mark_do_not_call', { phone: '3125550142', idempotency_key: 'dnc-after-repeats' }), { result: { structuredContent: { changed: true } } })
  const stream = await app.leadline.store.readStream(`lead-${account.accountId}-3125550142`)

  const first = (await app.call(account.keys.read, 'get_lead_history', { lead_id: jane.leadId })).result?.structuredContent as Page
  t.equal(first.lead_id, jane.leadId)
  t.equal(first.total_events, stream.length, 'the total is the whole history')
  t.equal(first.events.length, 100, 'a page of the default size')
  t.ok(first.events.slice(0, 3).some((e) => e.type === 'LeadMarkedDoNotCall'), 'the do-not-call is among the newest')
  t.equal(first.events[0]?.revision, stream.length - 1, 'newest first')
  t.type(first.next_cursor, 'string', 'there is more, and the answer says so')

  const revisions: number[] = []
  let cursor: string | null = null
  let pages = 0
  do {
    const page = (await app.call(account.keys.read, 'get_lead_history', { phone: '(312) 555-0142', limit: 500, ...(cursor ? { cursor } : {}) })).result?.structuredContent as Page
    revisions.push(...page.events.map((e) => e.revision))
    cursor = page.next_cursor
    pages++
  } while (cursor !== null)
  t.same(revisions, stream.map((e) => e.revision).reverse(), 'every event once, newest to oldest')
  t.equal(pages, Math.ceil(stream.length / 500))
  t.equal(revisions.at(-1), 0, 'down to the first event')
})

t.test('a history page is cut by size too, with a cursor for the rest', async (t) => {
  const app = await mcpApp(t, { webhookRateLimit: null })
  const account = await app.account()
  // Forty submissions, each with new extra fields up to the 16 KiB a submission keeps: more than one page's 512 KiB.
  for (let i = 0; i < 40; i++) {
    const fields: Record<string, string> = { name: 'Jane Doe', phone: '(312) 555-0142' }
    for (let f = 0; f < 20; f++) fields[`note ${i}-${f}`] = 'x'.repeat(2000)
    await account.pushLead(fields)
  }
  const first = (await app.call(account.keys.read, 'get_lead_history', { phone: '3125550142', limit: 500 })).result?.structuredContent as Page
  t.ok(first.events.length < 40, `the page stops early (${first.events.length} events)`)
  t.type(first.next_cursor, 'string')
  t.ok(Buffer.byteLength(JSON.stringify(first)) <= 1024 * 1024, 'within the output bound')
  const rest = (await app.call(account.keys.read, 'get_lead_history', { phone: '3125550142', limit: 500, cursor: first.next_cursor })).result?.structuredContent as Page
  t.equal(rest.events[0]?.revision, (first.events.at(-1)?.revision ?? 0) - 1, 'the next page goes on where it stopped')
})

t.test('a history cursor belongs to its lead: another lead\'s, another account\'s or an altered one is -32602 invalid_cursor', async (t) => {
  const app = await mcpApp(t)
  const a = await app.account('A')
  const b = await app.account('B')
  for (const account of [a, b]) {
    for (let i = 0; i < 3; i++) await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142', note: String(i) })
    await account.pushLead({ name: 'John Roe', phone: '(312) 555-0143' })
  }
  const page = async (key: string, args: Record<string, unknown>) => app.call(key, 'get_lead_history', { limit: 1, ...args })
  const aCursor = (await page(a.keys.read, { phone: '3125550142' })).result?.structuredContent.next_cursor as string
  const bCursor = (await page(b.keys.read, { phone: '3125550142' })).result?.structuredContent.next_cursor as string
  t.match((await page(a.keys.read, { phone: '3125550142', cursor: aCursor })).result?.structuredContent, { events: [{ revision: 1 }] })
  for (const [args, why] of [
    [{ phone: '3125550142', cursor: bCursor }, "the same number's cursor from account B"],
    [{ phone: '3125550143', cursor: aCursor }, "another lead's cursor"],
    [{ phone: '3125550142', cursor: `${aCursor.slice(0, 3)}${aCursor[3] === 'A' ? 'B' : 'A'}${aCursor.slice(4)}` }, 'an altered cursor'],
    [{ phone: '3125550142', cursor: Buffer.from('2').toString('base64url') }, 'a made-up one'],
  ] as const) {
    t.match(await page(a.keys.read, args), { error: { code: -32602, data: { code: 'invalid_cursor' } } }, why)
  }
})

t.test('get_lead shows the lead\'s do-not-call state from its own record, before the read models have it', async (t) => {
  const app = await mcpApp(t, { start: false })
  const account = await app.account()
  await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  t.match(await app.call(account.keys.all, 'mark_do_not_call', { phone: '3125550142', idempotency_key: 'dnc-1' }), { result: { structuredContent: { changed: true } } })
  t.equal(app.leadline.inboundLeads.get(account.accountId, { phoneLast10: '3125550142' })?.doNotCall, false, 'Inbound Leads has not applied it yet')
  t.match((await app.call(account.keys.read, 'get_lead', { phone: '3125550142' })).result?.structuredContent, { lead: { do_not_call: true } })
})

t.test('get_lead shows a lead\'s newest 100 pay-links, oldest first, and how many there are in all', async (t) => {
  const app = await paymentsApp(t, { provider: 'simulated' })
  const stream = `lead-${app.acme.accountId}-3125550142`
  const operator = { actor: { kind: 'process', id: 'test' } } as const
  for (let i = 0; i < 103; i++) {
    await app.leadline.commands.handle(stream, leadDecider, {
      type: 'RequestPayment', requestId: `pay_many${String(i).padStart(12, '0')}`, amountCents: 5000 + i, currency: 'usd', description: `Deposit ${i}`,
      connectedAccount: null, provider: 'simulated', idempotencyKey: `many-${i}`, providerIdempotencyKey: `leadline-pay-many-${i}`, from: CALLER_ID,
    }, operator)
  }
  const answer = (await app.call(app.acme.keys.read, 'get_lead', { phone: '3125550142' })).result?.structuredContent as { payments: Array<{ amount_cents: number }>; payments_total: number }
  t.equal(answer.payments_total, 103)
  t.equal(answer.payments.length, 100)
  t.same([answer.payments[0]?.amount_cents, answer.payments.at(-1)?.amount_cents], [5003, 5102], 'the newest 100, oldest first')
})
