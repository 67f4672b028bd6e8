/**
 * list_leads cursors are opaque and per account: one holds nothing of the shared log (no position,
 * which would tell an account how many leads others received in between), works only for the account
 * that got it, and is refused (-32602 invalid_cursor) when it comes from another account, is altered,
 * or was never one.
 */
import t from 'tap'
import { mcpApp } from './mcp-helpers.ts'

async function twoBooks(t: Parameters<typeof mcpApp>[0], othersFirst = 0) {
  const app = await mcpApp(t)
  const a = await app.account('Agency A')
  const b = await app.account('Agency B')
  for (let i = 0; i < othersFirst; i++) await b.pushLead({ name: `Other ${i}`, phone: `(415) 555-${String(1000 + i)}` })
  const aLeads = []
  for (const [i, name] of ['Ann One', 'Ann Two', 'Ann Three'].entries()) aLeads.push(await a.pushLead({ name, phone: `(312) 555-010${i}` }))
  await b.pushLead({ name: 'Bob B', phone: '(415) 555-0202' })
  await b.pushLead({ name: 'Betty B', phone: '(415) 555-0203' })
  return { app, a, b, aLeads }
}

type Page = { leads: Array<{ full_name: string; lead_id: string }>; next_cursor: string | null }

t.test('paging with cursors walks the account\'s own leads, newest first, and ends with null', async (t) => {
  const { app, a } = await twoBooks(t)
  const names: string[] = []
  let cursor: string | null = null
  do {
    const answer = await app.call(a.keys.read, 'list_leads', { limit: 1, ...(cursor ? { cursor } : {}) })
    const page = answer.result?.structuredContent as Page
    names.push(...page.leads.map((lead) => lead.full_name))
    cursor = page.next_cursor
  } while (cursor !== null)
  t.same(names, ['Ann Three', 'Ann Two', 'Ann One'])
})

t.test('a cursor holds no position in the shared log', async (t) => {
  const { app, a, aLeads } = await twoBooks(t, 120)
  const page = (await app.call(a.keys.read, 'list_leads', { limit: 1 })).result?.structuredContent as Page
  const [received] = await app.leadline.store.readStream(`lead-${a.accountId}-3125550102`)
  t.equal(page.leads[0]?.lead_id, aLeads[2]?.leadId)
  t.ok((received?.position ?? 0) > 120, 'the lead sits after the other account\'s 120')
  const decoded = Buffer.from(page.next_cursor ?? '', 'base64url').toString('latin1')
  t.notOk(decoded.includes(String(received?.position)), `the cursor does not carry the lead's log position ${received?.position}`)
})

t.test('another account\'s cursor, an altered cursor or a made-up one is -32602 invalid_cursor', async (t) => {
  const { app, a, b } = await twoBooks(t)
  const bPage = (await app.call(b.keys.read, 'list_leads', { limit: 1 })).result?.structuredContent as Page
  const aPage = (await app.call(a.keys.read, 'list_leads', { limit: 1 })).result?.structuredContent as Page
  const bCursor = bPage.next_cursor as string
  const aCursor = aPage.next_cursor as string
  t.type(bCursor, 'string')
  const refused = await app.call(a.keys.read, 'list_leads', { cursor: bCursor })
  t.match(refused.error, { code: -32602, data: { code: 'invalid_cursor' } }, "B's cursor with A's key")
  t.notOk(JSON.stringify(refused).includes('Bob B') || JSON.stringify(refused).includes(bCursor), 'nothing of B, not even the cursor, in the answer')

  const flipped = `${aCursor.slice(0, 5)}${aCursor[5] === 'A' ? 'B' : 'A'}${aCursor.slice(6)}`
  const positional = Buffer.from(JSON.stringify({ p: 99_999 })).toString('base64url')
  for (const cursor of [flipped, positional, `${aCursor}A`, aCursor.slice(0, -2), 'not-a-cursor']) {
    t.match(await app.call(a.keys.read, 'list_leads', { cursor }), { error: { code: -32602, data: { code: 'invalid_cursor' } } }, cursor)
  }
  t.match((await app.call(a.keys.read, 'list_leads', { cursor: aCursor })).result?.structuredContent, { leads: [{ full_name: 'Ann Two' }] }, 'the real one still works')
})
