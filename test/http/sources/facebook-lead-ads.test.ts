/**
 * Facebook Lead Ads through the real app and a fake Graph API on 127.0.0.1: the subscription check,
 * signatures checked before anything is recorded, each leadgen notification recorded once and
 * answered 200, its lead fetched after the answer (retried when the Graph API fails, held for a
 * person when it refuses), received through the webhook's intake with Facebook's ids kept.
 */
import t, { type Test } from 'tap'
import { buildApp, operatorContext } from '../../helpers/build-app.ts'
import { mcpApp } from '../mcp/mcp-helpers.ts'
import { manualClock } from '../../helpers/dialing-app.ts'
import { signedInConsole, TEST_ENV } from '../console/console-helpers.ts'
import { FAKE_APP_SECRET, FAKE_PAGE_TOKEN, FAKE_VERIFY_TOKEN, hubSignature, leadgenNotification, startFakeGraph, type FakeGraph } from '../../doubles/fake-facebook-graph.ts'
import { facebookLeadStream } from '../../../src/domain/facebook-lead-ads/facebook-lead.events.ts'
import { openLeadline, type Leadline } from '../../../src/leadline.ts'
import { redactUrl } from '../../../src/http/redact.ts'

const PAGE = '104000000000001'
const PATH = '/api/ingest/facebook'

async function graph(t: Test): Promise<FakeGraph> {
  const fake = await startFakeGraph()
  t.teardown(() => fake.close())
  return fake
}

function facebookEnv(fake: FakeGraph): NodeJS.ProcessEnv {
  return { LEADLINE_SIMULATED_DELAY_MS: '20', FACEBOOK_APP_SECRET: FAKE_APP_SECRET, FACEBOOK_VERIFY_TOKEN: FAKE_VERIFY_TOKEN, FACEBOOK_GRAPH_URL: fake.url, FACEBOOK_GRAPH_TIMEOUT_MS: '2000' }
}

/** Waits until `check` holds (the fetch runs after the 200). */
async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

async function facebookEvents(leadline: Leadline): Promise<Array<{ type: string; stream: string; data: any }>> {
  return (await leadline.store.readAll()).filter((e) => e.type.startsWith('Facebook')) as Array<{ type: string; stream: string; data: any }>
}

async function leadReceived(leadline: Leadline): Promise<Array<{ type: string; stream: string; data: any }>> {
  return (await leadline.store.readAll()).filter((e) => e.type === 'LeadReceived' || e.type === 'LeadUpdated') as Array<{ type: string; stream: string; data: any }>
}

t.test('the subscription check: the challenge for the right verify token, 403 for a wrong one', async (t) => {
  const fake = await graph(t)
  const { app } = await buildApp(t, { env: facebookEnv(fake) })
  const right = await app.inject({ method: 'GET', url: PATH, query: { 'hub.mode': 'subscribe', 'hub.verify_token': FAKE_VERIFY_TOKEN, 'hub.challenge': '1158201444' } })
  t.equal(right.statusCode, 200)
  t.equal(right.body, '1158201444')
  t.match(right.headers['content-type'], /^text\/plain/)

  const wrong = await app.inject({ method: 'GET', url: PATH, query: { 'hub.mode': 'subscribe', 'hub.verify_token': 'not-the-token', 'hub.challenge': '1158201444' } })
  t.equal(wrong.statusCode, 403)
  t.same(wrong.json(), { error: 'invalid verify token', detail: 'hub.verify_token is not the verify token this server was given (FACEBOOK_VERIFY_TOKEN)' })
  t.notMatch(wrong.body, /1158201444/, 'no challenge echoed')

  const missing = await app.inject({ method: 'GET', url: PATH, query: { 'hub.mode': 'subscribe', 'hub.challenge': '1' } })
  t.equal(missing.statusCode, 403)
  const notSubscribe = await app.inject({ method: 'GET', url: PATH, query: { 'hub.mode': 'unsubscribe', 'hub.verify_token': FAKE_VERIFY_TOKEN, 'hub.challenge': '1' } })
  t.equal(notSubscribe.statusCode, 400)
  const script = await app.inject({ method: 'GET', url: PATH, query: { 'hub.mode': 'subscribe', 'hub.verify_token': FAKE_VERIFY_TOKEN, 'hub.challenge': '<script>alert(1)</script>' } })
  t.equal(script.statusCode, 400, 'a challenge that is not plain characters is never echoed')
})

t.test('without FACEBOOK_* the endpoint is 404 and nothing is recorded', async (t) => {
  const { app, leadline } = await buildApp(t)
  const body = leadgenNotification([{ leadgenId: '900000000000001', pageId: PAGE }])
  const post = await app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(body) }, payload: body })
  t.equal(post.statusCode, 404)
  t.equal((await app.inject({ method: 'GET', url: PATH, query: { 'hub.mode': 'subscribe', 'hub.verify_token': FAKE_VERIFY_TOKEN, 'hub.challenge': '1' } })).statusCode, 404)
  t.same(await facebookEvents(leadline), [])
})

t.test('a bad or missing signature is 403 and records nothing; the Graph API is never asked', async (t) => {
  const fake = await graph(t)
  const { app, leadline, createAccount } = await buildApp(t, { env: facebookEnv(fake) })
  const { account } = await createAccount('Acme Roofing')
  await leadline.facebookLeadAds.connectPage(account.accountId, PAGE, FAKE_PAGE_TOKEN, operatorContext)
  fake.addLead('900000000000002', { full_name: 'Jane Roe', phone_number: '+15125550142' })
  const head = await leadline.store.headPosition()
  const body = leadgenNotification([{ leadgenId: '900000000000002', pageId: PAGE }])
  for (const [name, headers] of [
    ['signed with another secret', { 'x-hub-signature-256': hubSignature(body, 'another-app-secret') }],
    ['SHA-1 only', { 'x-hub-signature': 'sha1=0123456789abcdef0123456789abcdef01234567' }],
    ['no signature', {}],
    ['not hex', { 'x-hub-signature-256': 'sha256=zz' }],
  ] as const) {
    const post = await app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'application/json', ...headers }, payload: body })
    t.equal(post.statusCode, 403, name)
    t.equal(post.json().error, 'invalid signature', name)
  }
  // The body changed after signing: the signature is over the exact bytes.
  const tampered = await app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(body) }, payload: body.replace(PAGE, '104000000000009') })
  t.equal(tampered.statusCode, 403, 'a changed body')
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(await leadline.store.headPosition(), head, 'nothing appended')
  t.same(fake.requests(), [], 'no fetch')
})

t.test('a leadgen notification: 200 at once, then the lead fetched through two Graph failures, once, with its fields and Facebook ids', async (t) => {
  const fake = await graph(t)
  const built = await mcpApp(t, { env: facebookEnv(fake), facebookRetryDelaysMs: [50, 50, 50] })
  const acme = await built.account('Acme Roofing', { timeZone: 'America/Chicago' })
  await built.leadline.facebookLeadAds.connectPage(acme.accountId, PAGE, FAKE_PAGE_TOKEN, operatorContext)
  const leadgenId = '900000000000003'
  fake.addLead(leadgenId, { full_name: 'Jane Roe', phone_number: '+15125550143', email: 'jane@example.com', 'what_is_your_roof_type?': 'metal' })
  fake.fail({ kind: 'status', status: 500, code: 2, transient: true, message: 'Service temporarily unavailable' }, { kind: 'status', status: 400, code: 4, message: 'Application request limit reached' })

  const body = leadgenNotification([{ leadgenId, pageId: PAGE, formId: '1200000000000003', adId: '238500000000003' }])
  const post = await built.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(body) }, payload: body })
  t.equal(post.statusCode, 200)
  t.same(post.json(), { received: 1, recorded: 1, duplicates: 0, unknown_pages: 0 })

  await until(async () => (await leadReceived(built.leadline)).length > 0, 'the lead')
  await until(async () => (await facebookEvents(built.leadline)).some((e) => e.type === 'FacebookLeadReceived'), 'the fetch recorded')
  const requests = fake.requests()
  t.same(requests.map((r) => r.answered), [500, 400, 200], 'a 5xx, a rate limit, then the lead')
  t.ok(requests.every((r) => r.leadgenId === leadgenId && r.accessToken === FAKE_PAGE_TOKEN && /^v\d+\.\d+$/.test(r.version)), "the lead's own id with the page's token, at a pinned version")

  const leads = await leadReceived(built.leadline)
  t.equal(leads.length, 1, 'one lead')
  const fields = leads[0]?.data.fields
  t.equal(fields.phone, '+15125550143')
  t.equal(fields.fullName, 'Jane Roe')
  t.equal(fields.email, 'jane@example.com')
  const extra = Object.fromEntries((fields.extraFields as Array<{ name: string; value: unknown }>).map((f) => [f.name, f.value]))
  t.match(extra, { leadgen_id: leadgenId, page_id: PAGE, form_id: '1200000000000003', ad_id: '238500000000003', 'what_is_your_roof_type?': 'metal' }, "Facebook's ids kept on the lead, with the custom question")

  const types = (await facebookEvents(built.leadline)).filter((e) => e.stream === facebookLeadStream(acme.accountId, leadgenId)).map((e) => e.type)
  t.same(types, [
    'FacebookLeadNotified', 'FacebookLeadFetchDue',
    'FacebookLeadFetchStarted', 'FacebookLeadFetchFailed', 'FacebookLeadFetchDue',
    'FacebookLeadFetchStarted', 'FacebookLeadFetchFailed', 'FacebookLeadFetchDue',
    'FacebookLeadFetchStarted', 'FacebookLeadReceived',
  ])
  const failures = (await facebookEvents(built.leadline)).filter((e) => e.type === 'FacebookLeadFetchFailed').map((e) => [e.data.failure, e.data.httpStatus, e.data.graphCode, e.data.willRetry])
  t.same(failures, [['graph_unavailable', 500, 2, true], ['rate_limited', 400, 4, true]])

  // The lead is a lead like any other: in Inbound Leads, and get_lead shows Facebook's ids.
  await built.quiet()
  const answer = await built.call(acme.keys.read, 'get_lead', { phone: '+15125550143' })
  const lead = answer.result?.structuredContent.lead
  t.equal(lead.full_name, 'Jane Roe')
  t.match(answer.result?.structuredContent.source_facts, { form: 'facebook_lead_ads', facts: { leadgen_id: leadgenId, page_id: PAGE, form_id: '1200000000000003', ad_id: '238500000000003' } }, "Facebook's ids are the lead's source facts")
  t.notMatch(JSON.stringify(answer), FAKE_PAGE_TOKEN, 'no token in the tool answer')
  t.notMatch(JSON.stringify(answer), /llsealed1\./, 'nor its sealed form')

  // A redelivery (Facebook sends again until it has a 200, and sometimes anyway): nothing new.
  const again = await built.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(body) }, payload: body })
  t.equal(again.statusCode, 200)
  t.same(again.json(), { received: 1, recorded: 0, duplicates: 1, unknown_pages: 0 })
  await built.quiet()
  t.equal((await leadReceived(built.leadline)).length, 1, 'no second lead')
  t.equal(fake.requests().length, 3, 'no second fetch')

  const [row] = await built.leadline.facebookLeadAds.leads(acme.accountId)
  t.match(row, { leadgenId, pageId: PAGE, formId: '1200000000000003', adId: '238500000000003', stage: 'received', attempts: 3, failure: null })
})

t.test('a retry whose timer fires before the clock says it is due is fetched once it is, not dropped', async (t) => {
  const fake = await graph(t)
  // The service's clock stands still: every retry timer (real time) fires while the decision is not yet due.
  const clock = manualClock('2026-11-26T15:00:00Z')
  const built = await mcpApp(t, { env: facebookEnv(fake), facebookRetryDelaysMs: [50], clock: clock.now })
  const acme = await built.account('Acme Roofing', { timeZone: 'America/Chicago' })
  await built.leadline.facebookLeadAds.connectPage(acme.accountId, PAGE, FAKE_PAGE_TOKEN, operatorContext)
  const leadgenId = '900000000000013'
  fake.addLead(leadgenId, { full_name: 'Jane Roe', phone_number: '+15125550153' })
  fake.fail({ kind: 'status', status: 500, code: 2, transient: true, message: 'Service temporarily unavailable' })
  const body = leadgenNotification([{ leadgenId, pageId: PAGE, formId: '1200000000000013', adId: '238500000000013' }])
  t.equal((await built.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(body) }, payload: body })).statusCode, 200)
  await until(async () => (await facebookEvents(built.leadline)).some((e) => e.type === 'FacebookLeadFetchFailed'), 'the first attempt to fail')
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.equal(fake.requests().length, 1, 'not fetched before the clock says due')
  clock.advance(60)
  await until(async () => (await leadReceived(built.leadline)).length > 0, 'the lead, once due', 5000)
  t.same(fake.requests().map((r) => r.answered), [500, 200], 'fetched again once, when due')
})

t.test('a page no account connected: logged, answered 200, nothing recorded; other pages in the same delivery are', async (t) => {
  const fake = await graph(t)
  const { app, leadline, createAccount } = await buildApp(t, { env: facebookEnv(fake) })
  const { account } = await createAccount()
  await leadline.facebookLeadAds.connectPage(account.accountId, PAGE, FAKE_PAGE_TOKEN, operatorContext)
  fake.addLead('900000000000005', { full_name: 'Jo Doe', phone_number: '+15125550145' })
  const body = leadgenNotification([{ leadgenId: '900000000000004', pageId: '104000000000099' }, { leadgenId: '900000000000005', pageId: PAGE }])
  const post = await app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(body) }, payload: body })
  t.equal(post.statusCode, 200)
  t.same(post.json(), { received: 2, recorded: 1, duplicates: 0, unknown_pages: 1 })
  await until(async () => (await leadReceived(leadline)).length === 1, 'the connected page\'s lead')
  t.same((await facebookEvents(leadline)).filter((e) => e.type === 'FacebookLeadNotified').map((e) => e.data.leadgenId), ['900000000000005'])
  t.same(fake.requests().map((r) => r.leadgenId), ['900000000000005'])
})

t.test('an expired page token: recorded failed, not retried on its own; a new token and a retry by hand bring the lead', async (t) => {
  const fake = await graph(t)
  const { app, leadline, createAccount } = await buildApp(t, { env: facebookEnv(fake), facebookRetryDelaysMs: [50, 50] })
  const { account } = await createAccount()
  await leadline.facebookLeadAds.connectPage(account.accountId, PAGE, 'EAAExpiredTokenOfThisPage0001', operatorContext)
  const leadgenId = '900000000000006'
  fake.addLead(leadgenId, { full_name: 'Ann Lee', phone_number: '+15125550146' })
  const body = leadgenNotification([{ leadgenId, pageId: PAGE }])
  t.equal((await app.inject({ method: 'POST', url: PATH, headers: { 'x-hub-signature-256': hubSignature(body) }, payload: body })).statusCode, 200)
  await until(async () => (await leadline.facebookLeadAds.leads(account.accountId, { stage: 'failed' })).length === 1, 'the failure')
  const [failed] = await leadline.facebookLeadAds.leads(account.accountId, { stage: 'failed' })
  t.match(failed, { leadgenId, failure: 'graph_refused', message: /Error validating access token/ })
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.equal(fake.requests().length, 1, 'a refusal is not retried on its own')
  t.same(await leadReceived(leadline), [])

  await leadline.facebookLeadAds.connectPage(account.accountId, PAGE, FAKE_PAGE_TOKEN, operatorContext)
  await leadline.facebookLeadAds.retry(account.accountId, leadgenId, operatorContext)
  await until(async () => (await leadReceived(leadline)).length === 1, 'the lead after the retry')
  t.equal(fake.requests().length, 2)
  await t.rejects(leadline.facebookLeadAds.retry(account.accountId, leadgenId, operatorContext), { code: 'facebook_lead_not_failed' })
})

t.test('a page is connected to one account at a time', async (t) => {
  const fake = await graph(t)
  const { leadline, createAccount } = await buildApp(t, { env: facebookEnv(fake) })
  const { account: one } = await createAccount('One')
  const { account: two } = await createAccount('Two')
  await leadline.facebookLeadAds.connectPage(one.accountId, PAGE, FAKE_PAGE_TOKEN, operatorContext)
  await t.rejects(leadline.facebookLeadAds.connectPage(two.accountId, PAGE, FAKE_PAGE_TOKEN, operatorContext), { code: 'facebook_page_connected_elsewhere' })
  await t.rejects(leadline.facebookLeadAds.disconnectPage(two.accountId, PAGE, operatorContext), { code: 'facebook_page_not_connected' })
  await leadline.facebookLeadAds.disconnectPage(one.accountId, PAGE, operatorContext)
  await leadline.facebookLeadAds.connectPage(two.accountId, PAGE, FAKE_PAGE_TOKEN, operatorContext)
  t.same((await leadline.facebookLeadAds.pages(two.accountId)).map((p) => p.pageId), [PAGE])
  t.same(await leadline.facebookLeadAds.pages(one.accountId), [])
  await t.rejects(leadline.facebookLeadAds.connectPage(two.accountId, 'not-a-page', FAKE_PAGE_TOKEN, operatorContext), { code: 'invalid_page_id' })
  await t.rejects(leadline.facebookLeadAds.connectPage(two.accountId, PAGE, 'two words', operatorContext), { code: 'invalid_page_token' })
})

t.test('a crash between the 200 and the fetch: after the restart the lead still arrives, once', async (t) => {
  const fake = await graph(t)
  const leadgenId = '900000000000007'
  fake.addLead(leadgenId, { full_name: 'Sam Poe', phone_number: '+15125550147' })
  // The first server records the notification and answers, and never fetches: its process managers never run.
  const first = await buildApp(t, { env: facebookEnv(fake), store: 'sqlite', start: false })
  const { account } = await first.createAccount()
  await first.leadline.facebookLeadAds.connectPage(account.accountId, PAGE, FAKE_PAGE_TOKEN, operatorContext)
  await first.leadline.prepare()
  const body = leadgenNotification([{ leadgenId, pageId: PAGE }])
  const post = await first.app.inject({ method: 'POST', url: PATH, headers: { 'x-hub-signature-256': hubSignature(body) }, payload: body })
  t.equal(post.statusCode, 200)
  await first.app.close()
  await first.leadline.close()
  t.same(fake.requests(), [], 'not fetched before the stop')

  // The same files, started as a server starts (a second buildApp would make a fresh directory).
  const second = await openLeadline({ store: first.store, viewsPath: first.viewsPath, env: facebookEnv(fake) })
  t.teardown(() => second.close())
  await second.prepare()
  await second.start()
  await until(async () => (await leadReceived(second)).length === 1, 'the lead after the restart')
  await until(async () => (await second.facebookLeadAds.leads(account.accountId, { stage: 'received' })).length === 1, 'the fetch recorded')
  t.equal(fake.requests().length, 1, 'fetched once')
})

t.test('the verify token in a subscription check URL is never logged', async (t) => {
  t.equal(
    redactUrl(`/api/ingest/facebook?hub.mode=subscribe&hub.verify_token=${FAKE_VERIFY_TOKEN}&hub.challenge=1158201444`),
    '/api/ingest/facebook?hub.mode=subscribe&hub.verify_token=[REDACTED]&hub.challenge=1158201444',
  )
  t.notMatch(redactUrl(`/api/ingest/facebook?hub.verify_token=${FAKE_VERIFY_TOKEN}`), FAKE_VERIFY_TOKEN)
})

t.test("the owner's console shows the Facebook lead with Facebook's ids, and nowhere the page token", async (t) => {
  const fake = await graph(t)
  const app = await buildApp(t, { env: { ...facebookEnv(fake), ...TEST_ENV } })
  const { accountId, browser } = await signedInConsole(t, { app })
  await app.leadline.facebookLeadAds.connectPage(accountId, PAGE, FAKE_PAGE_TOKEN, operatorContext)
  const leadgenId = '900000000000008'
  fake.addLead(leadgenId, { full_name: 'Lou Park', phone_number: '+15125550148' })
  const body = leadgenNotification([{ leadgenId, pageId: PAGE, formId: '1200000000000008', adId: '238500000000008' }])
  t.equal((await app.app.inject({ method: 'POST', url: PATH, headers: { 'x-hub-signature-256': hubSignature(body) }, payload: body })).statusCode, 200)
  await until(async () => (await leadReceived(app.leadline)).length === 1, 'the lead')
  const leadId = (await leadReceived(app.leadline))[0]?.data.leadId as string
  await app.leadline.runner.catchUp()
  const pages = [await browser.get('/app/leads'), await browser.get(`/app/leads/${leadId}`)]
  t.same(pages.map((p) => p.statusCode), [200, 200])
  t.match(pages[1]?.body, 'Lou Park')
  t.match(pages[1]?.body, leadgenId, "Facebook's leadgen id on the lead's page")

  // A lead Facebook refused (an expired token): shown to the owner as needing them, fetched again from the page.
  const refusedId = '900000000000010'
  fake.addLead(refusedId, { full_name: 'Ada Roe', phone_number: '+15125550150' })
  fake.fail({ kind: 'status', status: 400, code: 190, message: 'Error validating access token: Session has expired.' })
  const second = leadgenNotification([{ leadgenId: refusedId, pageId: PAGE }])
  t.equal((await app.app.inject({ method: 'POST', url: PATH, headers: { 'x-hub-signature-256': hubSignature(second) }, payload: second })).statusCode, 200)
  await until(async () => (await app.leadline.facebookLeadAds.leads(accountId, { stage: 'failed' })).length === 1, 'the refusal')
  const facebookPage = await browser.get('/app/connections/facebook')
  pages.push(facebookPage)
  t.equal(facebookPage.statusCode, 200)
  t.match(facebookPage.body, `Page <code>${PAGE}</code>`)
  t.match(facebookPage.body, /needs you<\/span><br><span class="muted">graph_refused: Error validating access token/)
  t.match(facebookPage.body, `action="/app/connections/facebook/${refusedId}/retry"`)
  t.match(facebookPage.body, `href="/app/leads/${leadId}"`, 'the received lead links to its page')
  const retried = await browser.post(`/app/connections/facebook/${refusedId}/retry`)
  t.equal(retried.statusCode, 303)
  await until(async () => (await leadReceived(app.leadline)).length === 2, 'the lead after the retry')
  for (const page of [...pages, await browser.get('/app/connections/facebook')]) {
    t.notOk(page.body.includes(FAKE_PAGE_TOKEN), 'no page token')
    t.notOk(page.body.includes('llsealed1.'), 'nor its sealed form')
  }
})

t.test('a Graph API that does not answer in time is retried; an error that quotes the token is kept without it', async (t) => {
  const fake = await graph(t)
  const { app, leadline, createAccount } = await buildApp(t, { env: { ...facebookEnv(fake), FACEBOOK_GRAPH_TIMEOUT_MS: '300' }, facebookRetryDelaysMs: [50, 50] })
  const { account } = await createAccount()
  await leadline.facebookLeadAds.connectPage(account.accountId, PAGE, FAKE_PAGE_TOKEN, operatorContext)
  const leadgenId = '900000000000009'
  fake.addLead(leadgenId, { full_name: 'Max Wu', phone_number: '+15125550149' })
  fake.fail({ kind: 'hang' }, { kind: 'status', status: 400, code: 190, message: `Malformed access token ${FAKE_PAGE_TOKEN}` })
  const body = leadgenNotification([{ leadgenId, pageId: PAGE }])
  t.equal((await app.inject({ method: 'POST', url: PATH, headers: { 'x-hub-signature-256': hubSignature(body) }, payload: body })).statusCode, 200)
  await until(async () => (await leadline.facebookLeadAds.leads(account.accountId, { stage: 'failed' })).length === 1, 'the refusal')
  const failures = (await facebookEvents(leadline)).filter((e) => e.type === 'FacebookLeadFetchFailed').map((e) => e.data)
  t.match(failures, [
    { failure: 'timeout', willRetry: true, httpStatus: null, message: 'the Graph API did not answer within 300 ms' },
    { failure: 'graph_refused', willRetry: false, httpStatus: 400, graphCode: 190, message: 'Malformed access token [REDACTED]' },
  ])
  t.notOk(JSON.stringify(await leadline.store.readAll()).includes(FAKE_PAGE_TOKEN), 'the token is nowhere on the log')
})

t.test('signed bodies that are no notification are answered without a 5xx, and record nothing', async (t) => {
  const fake = await graph(t)
  const { app, leadline, createAccount } = await buildApp(t, { env: facebookEnv(fake) })
  const { account } = await createAccount()
  await leadline.facebookLeadAds.connectPage(account.accountId, PAGE, FAKE_PAGE_TOKEN, operatorContext)
  const head = await leadline.store.headPosition()
  const bodies: Array<[string, number]> = [
    ['', 400], ['{not json', 400], ['null', 200], ['[]', 200], ['"page"', 200], ['{"entry": "x"}', 200], ['{"entry": [{"changes": null}]}', 200],
    [`${'['.repeat(200)}${']'.repeat(200)}`, 400],
    [JSON.stringify({ object: 'page', entry: [{ id: PAGE, changes: [{ field: 'leadgen', value: { leadgen_id: '\ud83d', page_id: PAGE } }] }] }), 200],
    [JSON.stringify({ object: 'page', entry: [{ id: PAGE, changes: [{ field: 'leadgen', value: { leadgen_id: '1e21', page_id: PAGE } }] }] }), 200],
    [JSON.stringify({ object: 'page', entry: [{ id: PAGE, changes: [{ field: 'leadgen', value: { leadgen_id: '9'.repeat(40), page_id: PAGE } }] }] }), 200],
  ]
  for (const [body, status] of bodies) {
    const response = await app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(body) }, payload: body })
    t.equal(response.statusCode, status, body.slice(0, 40))
  }
  t.equal(await leadline.store.headPosition(), head, 'nothing recorded')
})
