/**
 * Issue #24 end to end: the webhook and the tool endpoint on the real app, the REAL Twilio adapter
 * pointed at the fake Twilio server. One cap for every call path, destination control, sloppy
 * numbers, and one person keeping one number; what rings is what the fake carrier was asked.
 */
import t from 'tap'
import type { Test } from 'tap'
import { DIALING, fakeTwilio, leadEvents, PUBLIC_URL, sleep, twilioEnv, waitFor } from '../../helpers/dialing-app.ts'
import { mcpApp, type McpTestAccount, type McpTestApp } from '../../http/mcp/mcp-helpers.ts'
import type { FakeTwilio } from '../../doubles/fake-twilio.ts'

const FAST = { ...DIALING, callsPerSecond: 100 }

async function setup(t: Test, settings: Record<string, unknown> = FAST): Promise<{ app: McpTestApp; account: McpTestAccount; fake: FakeTwilio }> {
  const fake = await fakeTwilio(t)
  const app = await mcpApp(t, { publicUrl: PUBLIC_URL, env: twilioEnv(fake) })
  const account = await app.account('Acme', settings)
  return { app, account, fake }
}

const rings = (fake: FakeTwilio) => fake.callRequests().filter((r) => r.outcome === 'created')

async function webhook(app: McpTestApp, token: string, body: Record<string, unknown>) {
  const response = await app.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token }, payload: body })
  await app.settle()
  return { status: response.statusCode, body: response.json() as { leadId: string; phone: string; warnings: Array<{ code: string }> } }
}

t.test('8 place_calls at once to one person: 3 ring, the rest are refused with daily_limit and next_allowed_at; a dry run says so', async (t) => {
  const { app, account, fake } = await setup(t)
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) => app.call(account.keys.dial, 'place_call', { phone: '(312) 555-0142', name: 'Jane Doe', idempotency_key: `burst-${i}` })),
  )
  const placed = answers.filter((a) => a.result?.structuredContent?.status === 'placed')
  const refused = answers.filter((a) => a.error !== undefined)
  t.equal(placed.length, 3, 'three calls placed')
  t.equal(refused.length, 5, 'five refused')
  for (const answer of refused) {
    t.match(answer.error, { code: -32603, data: { code: 'daily_limit', daily_limit: 3, next_allowed_at: /^\d{4}-\d\d-\d\dT/ } })
  }
  await sleep(200)
  t.equal(rings(fake).length, 3, 'the carrier was asked for three calls, no more')
  t.ok(rings(fake).every((r) => r.form.To === '+13125550142'))

  const dry = await app.call(account.keys.dial, 'place_call', { phone: '312-555-0142', name: 'Jane Doe', idempotency_key: 'burst-dry', dry_run: true })
  t.match(dry.result?.structuredContent, { status: 'would_not_call', check: { allowed: false, reason: 'daily_limit', daily_limit: 3, next_allowed_at: refused[0]?.error?.data.next_allowed_at } })
})

t.test('speed to lead and place_call share the cap', async (t) => {
  const { app, account, fake } = await setup(t)
  const lead = await webhook(app, account.token, { name: 'Jane Doe', phone: '(312) 555-0142' })
  t.equal(lead.status, 201)
  await fake.waitForCalls(1)
  for (const key of ['a', 'b']) {
    t.match((await app.call(account.keys.dial, 'place_call', { phone: '3125550142', name: 'Jane Doe', idempotency_key: key })).result?.structuredContent, { status: 'placed' })
  }
  const fourth = await app.call(account.keys.dial, 'place_call', { phone: '3125550142', name: 'Jane Doe', idempotency_key: 'c' })
  t.match(fourth.error?.data, { code: 'daily_limit', daily_limit: 3 })
  t.equal(rings(fake).length, 3, 'speed to lead and two place_calls: three rings')
})

t.test('premium-rate, satellite and foreign numbers posted to the webhook are not dialed, each with its reason; place_call refuses them unless widened', async (t) => {
  const { app, account, fake } = await setup(t)
  const cases: Array<[string, string]> = [
    ['+979 1 2345 6789', 'number_type_not_allowed'],
    ['+1 900 234 5678', 'number_type_not_allowed'],
    ['+882 16 1234 5678', 'number_type_not_allowed'],
    ['+252 61 234 5678', 'country_not_allowed'],
  ]
  for (const [phone, reason] of cases) {
    const posted = await webhook(app, account.token, { name: 'Pat', phone })
    t.equal(posted.status, 201, phone)
    const [received] = await leadEvents(app.leadline, account.accountId, phone)
    t.match(received?.data, { speedToLeadSkipped: { reason, nextAllowedAt: null } }, `${phone}: speed to lead skipped, ${reason}`)
    const lead = (await app.call(account.keys.read, 'get_lead', { phone })).result?.structuredContent
    t.match(lead, { speed_to_lead: { status: 'skipped', reason } }, `${phone}: get_lead shows why`)
    const refused = await app.call(account.keys.dial, 'place_call', { phone, name: 'Pat', idempotency_key: `k-${phone}` })
    t.equal(refused.error?.data.code, reason, `${phone}: place_call refused with ${reason}`)
  }
  await sleep(200)
  t.equal(rings(fake).length, 0, 'nobody rang')

  // Widened for place_call: Somalia may be rung by place_call, and only by it; premium rate never.
  await app.leadline.accounts.changeSettings(account.accountId, { placeCallCountries: ['SO'] }, { actor: { kind: 'operator', id: 'test' } })
  const somalia = await app.call(account.keys.dial, 'place_call', { phone: '+252 61 234 5678', name: 'Pat', idempotency_key: 'so-1' })
  t.match(somalia.result?.structuredContent, { status: 'placed', to: '+252612345678' })
  const premium = await app.call(account.keys.dial, 'place_call', { phone: '+1 900 234 5678', name: 'Pat', idempotency_key: 'prem-1' })
  t.equal(premium.error?.data.code, 'number_type_not_allowed')
  t.same(rings(fake).map((r) => r.form.To), ['+252612345678'])
})

t.test('sloppy domestic numbers are never dialed as foreign ones: kept with phone_not_valid, skipped by speed to lead', async (t) => {
  const { app, account, fake } = await setup(t)
  for (const phone of ['312-555-0142 (cell) 2', '312.555.0143.5', 3125550144.5]) {
    const posted = await webhook(app, account.token, { name: 'Pat', phone })
    t.equal(posted.status, 201)
    t.match(posted.body.warnings, [{ code: 'phone_not_valid' }], `${String(phone)}: warned`)
    t.notOk(posted.body.phone.startsWith('+31'), `${String(phone)}: not a Dutch number (${posted.body.phone})`)
    const [received] = await leadEvents(app.leadline, account.accountId, String(phone))
    t.match(received?.data, { speedToLeadSkipped: { reason: 'phone_not_valid' } })
  }
  await sleep(200)
  t.equal(rings(fake).length, 0, 'nobody rang')
})

t.test('one person, one number: a submission with another country code is refused as a conflict, recorded by an event', async (t) => {
  const { app, account } = await setup(t, { ...FAST, speedToLead: false })
  await webhook(app, account.token, { name: 'Jane Doe', phone: '(312) 555-0142' })
  const again = await webhook(app, account.token, { name: 'Jane Doe', phone: '+52 312 555 0142' })
  t.equal(again.status, 409)
  t.match(again.body, { error: 'phone conflict' })
  t.notMatch(JSON.stringify(again.body), /\+13125550142/, "the other lead's number is not told to the sender")
  const events = await leadEvents(app.leadline, account.accountId, '3125550142')
  t.match(events.find((e) => e.type === 'LeadPhoneConflict')?.data, { storedPhone: '+13125550142', receivedPhone: '+523125550142', receivedRaw: '+52 312 555 0142', source: 'webhook', kept: true })
})

t.test('place_call rings exactly the number it was asked to, not the stored one with the same last ten digits', async (t) => {
  const { app, account, fake } = await setup(t, { ...FAST, speedToLead: false, placeCallCountries: ['MX'] })
  await webhook(app, account.token, { name: 'Jane Doe', phone: '(312) 555-0142' })
  const call = await app.call(account.keys.dial, 'place_call', { phone: '+52 312 555 0142', name: 'Jane Doe', idempotency_key: 'mx-1' })
  t.match(call.result?.structuredContent, { status: 'placed', to: '+523125550142' })
  await waitFor('the call request', () => rings(fake).length === 1)
  t.equal(rings(fake)[0]?.form.To, '+523125550142', 'the carrier was asked for the number given')
  const events = await leadEvents(app.leadline, account.accountId, '3125550142')
  t.match(events.find((e) => e.type === 'LeadPhoneConflict')?.data, { storedPhone: '+13125550142', receivedPhone: '+523125550142', source: 'place_call' })
  const lead = (await app.call(account.keys.read, 'get_lead', { phone: '(312) 555-0142' })).result?.structuredContent
  t.equal(lead?.lead.phone, '+13125550142', 'the lead keeps its number')
})
