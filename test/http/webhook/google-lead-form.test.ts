/**
 * Google Ads lead forms through the real route and the real Twilio adapter (pointed at the fake):
 * Google's documented body, its key checked against the account's, and test leads never dialed.
 */
import t, { type Test } from 'tap'
import { mcpApp } from '../mcp/mcp-helpers.ts'
import { DIALING, fakeTwilio, placedCalls, PUBLIC_URL, twilioEnv } from '../../helpers/dialing-app.ts'
import { operatorContext } from '../../helpers/build-app.ts'

const GOOGLE_KEY = 'k3y-from-google-form-7f2c9e'

/** Google's documented sample payload (its webhook implementation guide), with our own numbers. */
function googleBody(overrides: Record<string, unknown> = {}, phone = '+13125550900') {
  return {
    lead_id: 'TeSter-123-ABCDEFGHIJKLMNOPQRSTUVWXYZ-abcdefghijklmnopqrstuvwxyz-0123456789',
    user_column_data: [
      { column_name: 'Full Name', string_value: 'Jane Doe', column_id: 'FULL_NAME' },
      { column_name: 'User Phone', string_value: phone, column_id: 'PHONE_NUMBER' },
      { column_name: 'User Email', string_value: 'Jane@Example.com', column_id: 'EMAIL' },
      { column_name: 'Postal Code', string_value: '60601', column_id: 'POSTAL_CODE' },
      { column_name: 'City', string_value: 'Chicago', column_id: 'CITY' },
      { column_name: 'Region', string_value: 'Illinois', column_id: 'REGION' },
      { column_name: 'What is your budget?', string_value: '$5k-10k', column_id: 'what_is_your_budget?' },
    ],
    api_version: '1.0',
    form_id: 123456789,
    campaign_id: 12345678901,
    google_key: GOOGLE_KEY,
    is_test: false,
    gcl_id: 'TeSter-123-gclid',
    adgroup_id: 20000000000,
    creative_id: 30000000000,
    ...overrides,
  }
}

async function setup(t: Test) {
  const fake = await fakeTwilio(t)
  const app = await mcpApp(t, { env: twilioEnv(fake), publicUrl: PUBLIC_URL })
  const account = await app.account('Acme Insurance', DIALING)
  await app.leadline.accounts.setGoogleKey(account.accountId, GOOGLE_KEY, operatorContext)
  // Google's form takes a URL and a key: the webhook token rides in the URL's query.
  const post = (body: unknown) =>
    app.app.inject({ method: 'POST', url: `/api/ingest/lead?token=${account.token}`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) })
  return { fake, ...app, account, post }
}

t.test("Google's body with the account's key is a lead: fields mapped, custom questions kept, ids as source facts", async (t) => {
  const { post, call, account, fake, quiet, leadline } = await setup(t)
  const response = await post(googleBody())
  t.equal(response.statusCode, 201, response.body)
  t.match(response.json(), { created: true, phone: '+13125550900', warnings: [] })
  await quiet()
  const lead = await call(account.keys.read, 'get_lead', { phone: '+13125550900' })
  const out = lead.result?.structuredContent
  t.match(out.lead, { full_name: 'Jane Doe', first_name: 'Jane', last_name: 'Doe', email: 'jane@example.com', zip: '60601', city: 'Chicago', state: 'IL', extra_fields: { 'What is your budget?': '$5k-10k' } })
  t.same(out.source_facts.facts, {
    lead_id: 'TeSter-123-ABCDEFGHIJKLMNOPQRSTUVWXYZ-abcdefghijklmnopqrstuvwxyz-0123456789',
    campaign_id: '12345678901', gcl_id: 'TeSter-123-gclid', form_id: '123456789', adgroup_id: '20000000000', creative_id: '30000000000', api_version: '1.0',
  })
  t.equal(out.source_facts.form, 'google_lead_form')
  t.equal(out.test_lead, false)
  t.equal(out.lead.source, 'Google Ads campaign 12345678901, form 123456789', "the campaign and form are the lead's source (issue #40)")
  const listed = (await call(account.keys.read, 'list_leads', {})).result?.structuredContent
  t.match(listed.leads, [{ phone: '+13125550900', source: 'Google Ads campaign 12345678901, form 123456789' }], 'list_leads says so too')
  // A real lead is called at once (speed to lead on, always in hours).
  await fake.waitForCalls(1)
  // The key is never stored: not on the lead, not on the account (only its salted hash).
  const log = JSON.stringify(await leadline.store.readAll())
  t.notOk(log.includes(GOOGLE_KEY), 'google_key is nowhere on the log')
})

t.test('a wrong, missing or unset Google key is a 401 and records nothing', async (t) => {
  const { post, leadline, fake } = await setup(t)
  const before = await leadline.store.headPosition()
  const wrong = await post(googleBody({ google_key: 'not-the-key-123456' }))
  t.equal(wrong.statusCode, 401)
  t.match(wrong.json(), { error: 'invalid google key', detail: /not this account's Google key/ })
  const { google_key: _, ...withoutKey } = googleBody()
  const missing = await post(withoutKey)
  t.equal(missing.statusCode, 401)
  t.match(missing.json(), { error: 'invalid google key', detail: /missing/ })
  t.equal(await leadline.store.headPosition(), before, 'nothing recorded')
  t.same(placedCalls(fake), [], 'nobody dialed')
})

t.test('an account without a Google key refuses every Google body', async (t) => {
  const fake = await fakeTwilio(t)
  const app = await mcpApp(t, { env: twilioEnv(fake), publicUrl: PUBLIC_URL })
  const account = await app.account('No Key', DIALING)
  const response = await app.app.inject({ method: 'POST', url: `/api/ingest/lead?token=${account.token}`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(googleBody()) })
  t.equal(response.statusCode, 401)
  t.match(response.json(), { error: 'invalid google key', detail: /no Google key/ })
  t.same((await app.leadline.store.readAll()).filter((e) => e.stream.startsWith('lead-')), [])
})

t.test('is_test: a test lead, stored, skipped by speed to lead (test_lead), refused by place_call, never dialed', async (t) => {
  const { post, call, account, fake, quiet, leadline } = await setup(t)
  const response = await post(googleBody({ is_test: true }, '+13125550901'))
  t.equal(response.statusCode, 201, response.body)
  await quiet()
  const received = (await leadline.store.readStream(`lead-${account.accountId}-3125550901`)).find((e) => e.type === 'LeadReceived')?.data as Record<string, unknown>
  t.equal(received.test, true)
  t.match(received.speedToLeadSkipped, { reason: 'test_lead' })
  const lead = (await call(account.keys.read, 'get_lead', { phone: '+13125550901' })).result?.structuredContent
  t.equal(lead.test_lead, true)
  t.match(lead.speed_to_lead, { status: 'skipped', reason: 'test_lead' })
  const placed = await call(account.keys.all, 'place_call', { phone: '+13125550901', name: 'Jane Doe', idempotency_key: 'test-lead-1' })
  t.equal(placed.error?.data.code, 'test_lead', JSON.stringify(placed))
  // A later real-looking submission for the same number keeps it a test lead.
  t.equal((await post(googleBody({ is_test: false }, '+13125550901'))).statusCode, 200)
  const again = await call(account.keys.all, 'place_call', { phone: '+13125550901', name: 'Jane Doe', idempotency_key: 'test-lead-2' })
  t.equal(again.error?.data.code, 'test_lead')
  await quiet()
  t.same(placedCalls(fake), [], 'the fake carrier was never asked to call')
  t.same(fake.messageRequests(), [], 'nor to text')
})

t.test("a Google lead's source: its campaign, its form, or the form's own answer to a source question (issue #40)", async (t) => {
  const { post, call, account } = await setup(t)
  const sourceOf = async (body: Record<string, unknown>, phone: string) => {
    t.equal((await post({ ...body, user_column_data: [...(body.user_column_data as unknown[]).filter((c) => (c as { column_id: string }).column_id !== 'PHONE_NUMBER'), { column_id: 'PHONE_NUMBER', string_value: phone }] })).statusCode, 201)
    return (await call(account.keys.read, 'get_lead', { phone })).result?.structuredContent.lead.source
  }
  const { campaign_id: _c, ...noCampaign } = googleBody()
  t.equal(await sourceOf(noCampaign, '+13125550901'), 'Google Ads form 123456789', 'the form alone')
  const { form_id: _f, ...onlyCampaign } = googleBody()
  t.equal(await sourceOf(onlyCampaign, '+13125550902'), 'Google Ads campaign 12345678901', 'the campaign alone')
  const { form_id: _g, campaign_id: _h, ...neither } = googleBody()
  t.equal(await sourceOf(neither, '+13125550903'), 'Google Ads lead form', 'neither: still named')
  const asked = googleBody({ user_column_data: [...googleBody().user_column_data, { column_name: 'Source', string_value: 'Spring promo', column_id: 'source' }] })
  t.equal(await sourceOf(asked, '+13125550904'), 'Spring promo', "the form's own source question wins")
})
