import t from 'tap'
import { placeCall } from '../../../src/commands/place-call.command.ts'
import { sendSms } from '../../../src/commands/send-sms.command.ts'
import { buildApp } from '../../helpers/build-app.ts'

const START = new Date('2026-03-10T15:00:00Z') // a Tuesday, 11:00 in New York (daylight time began on the 8th)

async function setup(t: Parameters<typeof buildApp>[0], settings: Record<string, unknown> = {}) {
  let now = START.getTime()
  const built = await buildApp(t, { clock: () => new Date(now), env: { LEADLINE_SIMULATED_OUTCOME: 'no-answer', LEADLINE_SIMULATED_DELAY_MS: '10' } })
  const { account, token } = await built.createAccount('Acme', { callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, callerId: '+15125550100', ...settings })
  const post = (phone: string, body: object = {}) =>
    built.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token }, payload: { phone, ...body } })
  const next = async () => {
    await built.leadline.runner.catchUp()
    return built.leadline.nextActions.getNextActions((await built.leadline.accounts.get(account.accountId))!)
  }
  return { ...built, account, post, next, advance: (minutes: number) => (now += minutes * 60_000) }
}

t.test('new leads become stale 15 minutes after arriving if nobody contacted them', async (t) => {
  const { post, next, advance } = await setup(t)
  await post('5125550101', { name: 'Ann Lee', source: 'Web' })
  advance(14)
  t.same((await next()).stale_leads, [], 'not yet at 14 minutes')
  // Ann has not been contacted: the summary must not say she was.
  t.equal((await next()).summary, 'No stale leads: every contacted lead was touched within 24 hours and no new lead has waited over 15 minutes for a first contact.')
  await post('5125550102', { name: 'Bo Diaz' })
  advance(2)
  const result = await next()
  t.equal(result.stale_leads.length, 1)
  t.match(result.stale_leads[0], { name: 'Ann Lee', phone: '+15125550101', source: 'Web', attempts: 0, why: 'never_contacted', suggested_action: /^call/, next_allowed_at: new Date(START.getTime() + 16 * 60_000).toISOString() })
  t.equal(result.summary, '0 leads were contacted but untouched for over 24 hours; 1 new lead has not been contacted 15 minutes after arriving.')
})

t.test('contacted leads with no touch back for longer than the threshold are stale; an update touches them', async (t) => {
  const { post, next, advance, leadline, account } = await setup(t, { speedToLead: true, callerId: '+15125550100', followUp: 'off' })
  await post('5125550103', { name: 'Cy Park' })
  await post('5125550104', { name: 'Di Wu' })
  // Speed to lead calls both; the simulated carrier reports no answer.
  for (let i = 0; i < 100 && leadline.calls.forStream(`lead-${account.accountId}-5125550104`)[0]?.outcome !== 'no-answer'; i++) {
    await new Promise((r) => setTimeout(r, 20))
    await leadline.runner.catchUp()
  }
  advance(23 * 60)
  t.same((await next()).stale_leads, [], 'contacted 23 hours ago: not stale yet')
  await post('5125550104', { email: 'di@example.com' })
  advance(2 * 60)
  const result = await next()
  t.same(result.stale_leads.map((l) => [l.name, l.why, l.attempts]), [['Cy Park', 'contacted_untouched', 1]], 'the update touched Di Wu')
  t.match(result.summary, /^1 lead was contacted but untouched for over 24 hours; 0 new leads/)
})

t.test('do-not-call leads are never suggested; next allowed time follows calling hours; the limit bounds the list', async (t) => {
  const { post, next, advance } = await setup(t, { callingHours: 'mon-fri 09:00-17:00' })
  await post('5125550105', { dnc: 'yes' })
  for (let i = 0; i < 30; i++) await post(`51255502${String(i).padStart(2, '0')}`)
  advance(9 * 60) // 19:00 in New York: outside calling hours
  const result = await next()
  t.equal(result.stale_leads.length, 20, 'a page of 20 by default')
  t.notOk(result.stale_leads.some((l) => l.phone === '+15125550105'))
  t.ok(result.stale_leads.every((l) => l.next_allowed_at === '2026-03-11T13:00:00.000Z'), 'next allowed: 09:00 New York the next morning')
  t.match(result.summary, /30 new leads have not been contacted/)
})

t.test('next allowed time stays right across a window edge and when the clock goes back (the answers are remembered per zone)', async (t) => {
  // 11:00 New York; calling hours end at 12:00.
  const { post, next, advance } = await setup(t, { callingHours: 'mon-fri 09:00-12:00' })
  await post('5125550301')
  advance(16) // 11:16: allowed now
  const allowedAt = (await next()).stale_leads[0]?.next_allowed_at
  t.equal(allowedAt, new Date(START.getTime() + 16 * 60_000).toISOString(), 'inside calling hours: now')
  advance(0.5) // 30 s later, same minute: still now, the new now
  t.equal((await next()).stale_leads[0]?.next_allowed_at, new Date(START.getTime() + 16.5 * 60_000).toISOString())
  advance(43.5) // 12:00 exactly: the window has closed
  t.equal((await next()).stale_leads[0]?.next_allowed_at, '2026-03-11T13:00:00.000Z', 'outside: 09:00 New York the next morning')
  advance(60) // 13:00: the same answer
  t.equal((await next()).stale_leads[0]?.next_allowed_at, '2026-03-11T13:00:00.000Z')
  advance(-90) // the clock goes back to 11:30: allowed again
  t.equal((await next()).stale_leads[0]?.next_allowed_at, new Date(START.getTime() + 30 * 60_000).toISOString(), 'a clock set back is not served the later answer')
})

t.test('a lead whose number may never be rung is never allowed a call (issue #24)', async (t) => {
  const { post, next, advance } = await setup(t)
  await post('+252 61 234 5678', { name: 'Abdi' }) // Somalia: not an allowed country
  await post('312-555-0142 (cell) 2', { name: 'Sloppy' }) // not a valid number
  await post('5125550105', { name: 'Eve' })
  advance(16)
  const byName = Object.fromEntries((await next()).stale_leads.map((lead) => [lead.name, lead.next_allowed_at]))
  t.same(byName, { Abdi: null, Sloppy: null, Eve: new Date(START.getTime() + 16 * 60_000).toISOString() })
})

t.test('the answer is mayCall\'s, as place_call would give it: without a caller id no call is ever allowed', async (t) => {
  const { post, next, advance } = await setup(t, { callerId: null })
  await post('5125550105', { name: 'Eve' })
  advance(16)
  t.same((await next()).stale_leads.map((lead) => [lead.name, lead.next_allowed_at]), [['Eve', null]], 'place_call would refuse: no_caller_id')
})

t.test('a lead called the daily limit in the last 24 hours is next allowed when place_call would allow it', async (t) => {
  const { post, next, advance, leadline, account } = await setup(t, { followUp: 'off', staleAfterMinutes: 60 })
  await post('5125550106', { name: 'Flo' })
  advance(16)
  const owner = await leadline.accounts.get(account.accountId)
  const calledAt: string[] = []
  for (const key of ['d-1', 'd-2', 'd-3']) {
    calledAt.push(leadline.clock().toISOString())
    await placeCall(leadline, owner!, { phone: '5125550106', name: 'Flo', idempotencyKey: key, dryRun: false }, { actor: { kind: 'api_key', id: 'key_test' } })
    advance(60)
  }
  // 3 calls in any 24 hours is the limit (the default); the lead is stale an hour after the last one.
  advance(24 * 60 - 3 * 60 - 30)
  const dry = await placeCall(leadline, owner!, { phone: '5125550106', name: 'Flo', idempotencyKey: 'd-4', dryRun: true }, { actor: { kind: 'api_key', id: 'key_test' } })
  const stale = (await next()).stale_leads
  t.equal(stale.length, 1)
  t.equal(dry.check.allowed, false, 'the first call is still inside the last 24 hours')
  t.equal(dry.check.reason, 'daily_limit')
  t.equal(stale[0]?.next_allowed_at, dry.check.nextAllowedAt, 'the same time place_call gives')
  const afterFirst = Date.parse(stale[0]?.next_allowed_at ?? '') - Date.parse(calledAt[0]!)
  t.ok(afterFirst >= 24 * 60 * 60_000 && afterFirst <= 24 * 60 * 60_000 + 60_000, 'once the first of the three is 24 hours old')
})

t.test('a text sent with send_sms is a contact: not "never contacted", and stale a day later with no touch back', async (t) => {
  const { post, next, advance, leadline, account } = await setup(t)
  await post('5125550190', { name: 'Ed Moss' })
  const acme = (await leadline.accounts.get(account.accountId))!
  const sent = await sendSms(leadline, acme, `lead-${account.accountId}-5125550190`, { body: 'Hi Ed, your quote is ready.', idempotencyKey: 'k-1', dryRun: false }, { actor: { kind: 'api_key', id: 'key_1' } })
  t.equal(sent.status, 'sent')
  advance(16)
  t.same((await next()).stale_leads, [], 'texted: no longer waiting for a first contact')
  advance(24 * 60)
  t.match((await next()).stale_leads, [{ name: 'Ed Moss', why: 'contacted_untouched', attempts: 0 }])
})
