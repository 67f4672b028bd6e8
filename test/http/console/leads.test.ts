/** Leads: the list (search, filters, pages), a lead's page and timeline; never recordings or transcripts; never another account's lead. */
import t from 'tap'
import { leadDecider, type LeadCommand } from '../../../src/domain/lead/lead.decider.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import { LEADS_PAGE_SIZE } from '../../../src/http/console/leads.route.ts'
import { buildApp } from '../../helpers/build-app.ts'
import { signedInConsole, TEST_ENV, type ConsoleFixture } from './console-helpers.ts'

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

t.test("a lead's page names the calling rule that kept speed to lead from calling (issue #27)", async (t) => {
  // 20:30 in Miami (Eastern, UTC-5): Florida allows sales calls 08:00-20:00.
  const f = await signedInConsole(t, { clock: () => new Date('2026-12-02T01:30:00Z') })
  await f.app.leadline.accounts.changeSettings(f.accountId, { speedToLead: true, callerId: '+13125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: true }, { actor: { kind: 'operator', id: 'test' } })
  const florida = await push(f, { name: 'Flo Rida', phone: '(305) 555-0142' })
  t.match((await f.browser.get(`/app/leads/${florida}`)).body, /Speed to lead: did not call: .*FL 501\.616.*\(<code>outside_lead_hours<\/code>, rule <code>FL 501\.616<\/code>\)/)
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

t.test("a lead's page sums up its calls: attempts, the last outcome in words, the callback asked for, the next follow-up (issue #26)", async (t) => {
  let now = new Date('2026-03-10T15:00:00Z') // 11:00 in New York
  // No process manager: nothing dials on its own while the story is told through the lead's commands.
  const app = await buildApp(t, { env: TEST_ENV, clock: () => now, start: false })
  const f = await signedInConsole(t, { app })
  await f.app.leadline.accounts.changeSettings(f.accountId, { callerId: '+13125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, onAnswer: 'greeting+bridge:+13125550199' }, { actor: { kind: 'operator', id: 'test' } })
  const leadId = await push(f, { name: 'Jane <b>Doe</b>', phone: '(312) 555-0142' })
  const stream = leadStream(f.accountId, '3125550142')
  const carrier = { actor: { kind: 'carrier' as const, id: 'twilio' } }
  const settings = async () => (await f.app.leadline.accounts.require(f.accountId)).settings
  const run = (command: LeadCommand) => f.app.leadline.commands.handle(stream, leadDecider, command, carrier)
  const place = async (decisionId: string, callId: string) => {
    await run({ type: 'StartCallAttempt', decisionId, node: 'test' })
    await run({ type: 'RecordCallPlaced', decisionId, callId, carrier: 'twilio' })
  }
  const summary = async () => {
    const body = (await f.browser.get(`/app/leads/${leadId}`)).body
    return /<section aria-labelledby="calls">[\s\S]*?<\/section>/.exec(body)?.[0] ?? ''
  }
  t.match(await summary(), '<dt>Attempts</dt><dd>0 today, 0 in all</dd><dt>Last outcome</dt><dd>none yet</dd><dt>Next follow-up</dt><dd>none scheduled</dd>')

  await run({ type: 'DecidePlaceCall', settings: await settings(), decisionId: 'dec_1', idempotencyKey: 'k1' })
  await place('dec_1', 'CA1')
  now = new Date('2026-03-10T15:00:20Z')
  await run({ type: 'RecordAnsweredBy', settings: await settings(), callId: 'CA1', answeredBy: 'machine_end_beep', node: 'test' })
  await run({ type: 'RecordVoicemailOutcome', decisionId: 'dec_1', failure: null })
  t.match(await summary(), '<dt>Attempts</dt><dd>1 today, 1 in all</dd><dt>Last outcome</dt><dd>a machine answered (machine_end_beep), not the lead; voicemail left, <time datetime="2026-03-10T15:00:20.000Z">2026-03-10 11:00 EDT</time></dd><dt>Next follow-up</dt><dd>attempt 2, due <time datetime="2026-03-10T15:10:20.000Z">2026-03-10 11:10 EDT</time></dd>')

  now = new Date('2026-03-10T15:11:00Z')
  await run({ type: 'ClaimFollowUp', settings: await settings(), attempt: 2, decisionId: 'dec_2' })
  await place('dec_2', 'CA2')
  await run({ type: 'PressMenuKey', settings: await settings(), decisionId: 'dec_2', digit: '2', ownerNumber: '+13125550199' })
  const page = await summary()
  t.match(page, '<dt>Attempts</dt><dd>2 today, 2 in all</dd>')
  t.match(page, '<dt>Last outcome</dt><dd>answered by a person; pressed 2 to be called back, <time datetime="2026-03-10T15:11:00.000Z">2026-03-10 11:11 EDT</time></dd>')
  t.match(page, '<dt>Callback asked for</dt><dd><time datetime="2026-03-10T16:11:00.000Z">2026-03-10 12:11 EDT</time></dd><dt>Next follow-up</dt><dd>attempt 3, due <time datetime="2026-03-10T16:11:00.000Z">')

  // A third lead call: 1 reaches nobody. The owner's leg is words too, escaped like the rest.
  now = new Date('2026-03-10T16:11:00Z')
  await run({ type: 'ClaimFollowUp', settings: await settings(), attempt: 3, decisionId: 'dec_3' })
  await place('dec_3', 'CA3')
  await run({ type: 'PressMenuKey', settings: await settings(), decisionId: 'dec_3', digit: '1', ownerNumber: '+13125550199' })
  t.match(await summary(), 'answered by a person; pressed 1 to talk to someone; the owner&#39;s phone rang')
  await run({ type: 'RecordOwnerConnect', decisionId: 'dec_3', status: 'no-answer', durationSeconds: null })
  t.match(await summary(), 'answered by a person; pressed 1 to talk to someone; not connected to the owner')
  t.match((await f.browser.get(`/app/leads/${leadId}`)).body, '<h1>Jane &#60;b&#62;Doe&#60;/b&#62;</h1>', 'lead data escaped')
})

t.test("a lead's page names a pending text step as a text, moved or not (#27)", async (t) => {
  let now = new Date('2026-03-10T15:00:00Z') // 11:00 in New York
  const app = await buildApp(t, { env: TEST_ENV, clock: () => now, start: false })
  const f = await signedInConsole(t, { app })
  const change = { callerId: '+13125550100', callingHours: 'mon-fri 09:00-11:05, mon-fri 11:30-18:00', leadTimeGuard: false, followUp: '10m text "Hi {first_name}", 1h' }
  await f.app.leadline.accounts.changeSettings(f.accountId, change, { actor: { kind: 'operator', id: 'test' } })
  const leadId = await push(f, { name: 'Jane Doe', phone: '(312) 555-0142' })
  const stream = leadStream(f.accountId, '3125550142')
  const run = (command: LeadCommand) => f.app.leadline.commands.handle(stream, leadDecider, command, { actor: { kind: 'carrier', id: 'twilio' } })
  const settings = async () => (await f.app.leadline.accounts.require(f.accountId)).settings
  const next = async () => /<dt>Next follow-up<\/dt><dd>(.*?)<\/dd>/.exec((await f.browser.get(`/app/leads/${leadId}`)).body)?.[1]
  await run({ type: 'DecidePlaceCall', settings: await settings(), decisionId: 'dec_1', idempotencyKey: 'k1' })
  await run({ type: 'StartCallAttempt', decisionId: 'dec_1', node: 'test' })
  await run({ type: 'RecordCallPlaced', decisionId: 'dec_1', callId: 'CA1', carrier: 'twilio' })
  await run({ type: 'RecordCallStatus', settings: await settings(), update: { callId: 'CA1', status: 'no-answer', timestamp: '', carrier: 'twilio' } })
  t.equal(await next(), 'a text (step 1), due <time datetime="2026-03-10T15:10:00.000Z">2026-03-10 11:10 EDT</time>')
  // Due in the gap between the calling hours' windows: moved to 11:30, still a text.
  now = new Date('2026-03-10T15:10:00Z')
  await run({ type: 'ClaimFollowUp', settings: await settings(), attempt: 2, decisionId: 'dec_2', textId: 'txt_2' })
  t.equal(await next(), 'a text (step 1), due <time datetime="2026-03-10T15:30:00.000Z">2026-03-10 11:30 EDT</time>')
  now = new Date('2026-03-10T15:30:00Z')
  await run({ type: 'ClaimFollowUp', settings: await settings(), attempt: 2, decisionId: 'dec_3', textId: 'txt_3' })
  t.equal(await next(), 'attempt 2, due <time datetime="2026-03-10T16:30:00.000Z">2026-03-10 12:30 EDT</time>', 'the text decided, the call step is next')
})

t.test("a lead's page shows its notes, newest first, escaped, with their author, and whether its follow-up is paused (issue #30)", async (t) => {
  const f = await signedInConsole(t)
  const leadId = await push(f, { name: 'Jane Doe', phone: '(312) 555-0142' })
  const stream = leadStream(f.accountId, '3125550142')
  const agent = { actor: { kind: 'api_key' as const, id: 'key_agent' } }
  t.match((await f.browser.get(`/app/leads/${leadId}`)).body, 'No notes.')
  await f.app.leadline.commands.handle(stream, leadDecider, { type: 'AddNote', noteId: 'note_1', text: 'Prefers mornings', author: agent.actor }, agent)
  await f.app.leadline.commands.handle(stream, leadDecider, { type: 'AddNote', noteId: 'note_2', text: 'Asked about <b>metal</b> roofs', author: agent.actor }, agent)
  await f.app.leadline.commands.handle(stream, leadDecider, { type: 'PauseFollowUp' }, agent)
  const page = (await f.browser.get(`/app/leads/${leadId}`)).body
  const notes = page.slice(page.indexOf('id="notes"'), page.indexOf('id="payments"'))
  t.match(notes, /API key key_agent<\/span><p>Asked about &#60;b&#62;metal&#60;\/b&#62; roofs<\/p>.*Prefers mornings/s, 'newest first, escaped, with the author')
  t.match(page, 'Follow-up paused')
  t.match(page, 'note by api_key key_agent: &#34;Prefers mornings&#34;', 'the timeline has the note')
})
