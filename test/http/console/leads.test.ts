/** Leads: the list (search, filters, pages), a lead's page and timeline; never recordings or transcripts; never another account's lead. */
import t from 'tap'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import { LEADS_PAGE_SIZE } from '../../../src/http/console/leads.route.ts'
import { signedInConsole, type ConsoleFixture } from './console-helpers.ts'

async function push(f: ConsoleFixture, fields: Record<string, unknown>, token = f.token): Promise<string> {
  const response = await f.app.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token }, payload: fields })
  if (response.statusCode >= 300) throw new Error(response.body)
  return (response.json() as { leadId: string }).leadId
}

t.test('the list: newest first, search by name, email or phone digits, filters, pages', async (t) => {
  const f = await signedInConsole(t)
  await push(f, { name: 'Jane Doe', phone: '(312) 555-0142', email: 'jane@example.com', source: 'Spring promo', vendor: 'Acme Leads' })
  await push(f, { first_name: 'John', last_name: 'Roe', phone: '415-555-0100', source: 'Facebook', dnc: 'yes' })
  await push(f, { name: '<script>alert(1)</script>', phone: '212-555-0199', source: 'Facebook' })
  await f.app.leadline.runner.catchUp()
  const names = async (query: string) => [...(await f.browser.get(`/app/leads${query}`)).body.matchAll(/<td><a href="\/app\/leads\/ld_[0-9a-z]+">([^<]*)<\/a><\/td>/g)].map((m) => m[1])
  t.same(await names(''), ['&#60;script&#62;alert(1)&#60;/script&#62;', 'John Roe', 'Jane Doe'], 'newest first, lead data escaped')
  t.same(await names('?q=jane'), ['Jane Doe'], 'by name')
  t.same(await names('?q=JANE%40example'), ['Jane Doe'], 'by email')
  t.same(await names('?q=(415)%20555'), ['John Roe'], 'by phone digits, any formatting')
  t.same(await names('?q=john%20roe'), ['John Roe'], 'first and last name together')
  t.same(await names('?q=100%25'), [], 'LIKE wildcards are literal')
  t.same(await names('?source=facebook'), ['&#60;script&#62;alert(1)&#60;/script&#62;', 'John Roe'], 'by source')
  t.same(await names('?vendor=Acme%20Leads'), ['Jane Doe'], 'by vendor')
  t.same(await names('?dnc=yes'), ['John Roe'], 'do-not-call only')
  t.same(await names('?dnc=no&source=Facebook'), ['&#60;script&#62;alert(1)&#60;/script&#62;'], 'filters combine')
  t.same(await names('?since=2999-01-01'), [], 'received since')
  t.match((await f.browser.get('/app/leads?since=yesterday')).body, '&#34;yesterday&#34; is not a date.')
  t.match((await f.browser.get('/app/leads?cursor=bogus')).body, 'That page link no longer works')

  for (let i = 0; i < LEADS_PAGE_SIZE; i++) await push(f, { name: `Person ${i}`, phone: `617-555-${String(1000 + i)}` })
  await f.app.leadline.runner.catchUp()
  const first = await f.browser.get('/app/leads')
  const next = /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(first.body)?.[1]?.replaceAll('&#38;', '&')
  t.ok(next, 'a next page')
  const second = await f.browser.get(next as string)
  t.same([...second.body.matchAll(/<td><a href="\/app\/leads\/[^"]+">([^<]*)<\/a>/g)].map((m) => m[1]), ['&#60;script&#62;alert(1)&#60;/script&#62;', 'John Roe', 'Jane Doe'])
  t.match(second.body, '<a href="/app/leads">First page</a>')
  t.notMatch(second.body, 'rel="next"')
})

t.test('a lead page: details, calls, payments and the replayed timeline, never a recording or a transcript', async (t) => {
  const f = await signedInConsole(t)
  const leadId = await push(f, { name: 'Jane Doe', phone: '(312) 555-0142', 'Recording URL': 'https://api.twilio.com/2010-04-01/Accounts/AC1/Recordings/RE9', favourite: 'blue' })
  const stream = leadStream(f.accountId, '3125550142')
  const meta = { correlationId: 'c', causationId: null, actor: { kind: 'carrier' as const, id: 'twilio' }, schemaVersion: 1 }
  const story = [
    { type: 'CallDecided', data: { leadId, decisionId: 'dec_1', purpose: 'place_call', attempt: 1, from: '+15125550100', to: '+13125550142', decidedAt: '2026-03-10T15:04:00.000Z', idempotencyKey: null }, metadata: meta },
    { type: 'CallPlaced', data: { decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio', placedAt: '2026-03-10T15:04:01.000Z' }, metadata: meta },
    { type: 'CallRecordingAvailable', data: { decisionId: 'dec_1', callId: 'CA1', recordingUrl: 'https://api.twilio.com/2010-04-01/Accounts/AC1/Recordings/RE123', at: '2026-03-10T15:05:00.000Z' }, metadata: meta },
    { type: 'CallTranscriptAvailable', data: { decisionId: 'dec_1', callId: 'CA1', transcript: 'TOP SECRET TRANSCRIPT', at: '2026-03-10T15:05:00.000Z' }, metadata: meta },
    { type: 'CallAnswered', data: { decisionId: 'dec_1', callId: 'CA1', answeredBy: 'human', at: '2026-03-10T15:04:30.000Z' }, metadata: meta },
  ]
  // Speed to lead records its own decision on the stream meanwhile: append after whatever is there.
  for (let attempt = 0; ; attempt++) {
    const [head] = await f.app.leadline.store.readStream(stream, { direction: 'backwards', limit: 1 })
    try {
      await f.app.leadline.store.appendToStream(stream, story, head?.revision ?? 0)
      break
    } catch (error) {
      if (attempt > 20) throw error
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  const page = await f.browser.get(`/app/leads/${leadId}`)
  t.equal(page.statusCode, 200)
  t.match(page.body, '<h1>Jane Doe</h1>')
  t.match(page.body, '<dt>favourite</dt><dd>blue</dd>', 'extra fields are shown')
  t.match(page.body, /Placed by an agent<\/td><td class="num">1<\/td><td>\+15125550100 → \+13125550142<\/td>\s*<td><span class="ok">answered<\/span>/)
  t.match(page.body, 'recording stored (not shown)')
  t.match(page.body, 'transcript stored (not shown)')
  t.notMatch(page.body, /Recordings\/|TOP SECRET|Recording URL/i, 'no recording URL, no transcript, not even a field named so')
  t.match(page.body, 'its hash chain is intact')
})

t.test("a lead's timeline shows the warnings its sender got", async (t) => {
  const f = await signedInConsole(t)
  const leadId = await push(f, { name: 'Lee Park', phone: '000-000-0000', dnc: 'maybe' })
  const page = await f.browser.get(`/app/leads/${leadId}`)
  t.equal(page.statusCode, 200)
  t.match(page.body, 'lead received: Lee Park, +10000000000; warnings: phone_not_valid (phone), dnc_unrecognized (dnc)')
})

t.test("a lead's page says why speed to lead did not call, with its reason code (issue #24)", async (t) => {
  const f = await signedInConsole(t)
  await f.app.leadline.accounts.changeSettings(f.accountId, { speedToLead: true, callerId: '+13125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false }, { actor: { kind: 'operator', id: 'test' } })
  const premium = await push(f, { name: 'Pat Premium', phone: '+1 900 234 5678' })
  t.match((await f.browser.get(`/app/leads/${premium}`)).body, /Speed to lead: did not call: \+19002345678 is a premium-rate number: only fixed-line and mobile numbers are dialed \(<code>number_type_not_allowed<\/code>\)/)
  const abroad = await push(f, { name: 'Abdi', phone: '+252 61 234 5678' })
  t.match((await f.browser.get(`/app/leads/${abroad}`)).body, /Speed to lead: did not call: .*\(<code>country_not_allowed<\/code>\)/)
})

t.test('another account\'s lead id reads exactly like one that does not exist', async (t) => {
  const f = await signedInConsole(t)
  const other = await f.app.createAccount('Other Co')
  const theirs = await push(f, { name: 'Their Lead', phone: '312-555-0142' }, other.token)
  await f.app.leadline.runner.catchUp()
  const page = await f.browser.get(`/app/leads/${theirs}`)
  t.equal(page.statusCode, 404)
  t.notMatch(page.body, 'Their Lead')
  const missing = await f.browser.get('/app/leads/ld_doesnotexist0000')
  t.equal(missing.statusCode, 404)
  const comparable = (body: string) => body.replace(/name="_csrf" value="[^"]+"/g, '')
  t.equal(comparable(page.body), comparable(missing.body), 'the same page')
  t.notMatch((await f.browser.get('/app/leads')).body, 'Their Lead', 'not in the list either')
})
