/**
 * Replies stop the cadence (issue #27): a text that is no keyword, posted as Twilio's messaging
 * webhook signed with the official `twilio` SDK, records LeadReplied with its TextReceived, stops the
 * pending follow-up (`replied`) so the timer never calls, and lists the lead first in
 * get_next_actions until a call goes out to it. get_lead shows that a reply came and when, never the
 * text. Keywords are no reply; a repeated MessageSid records one.
 */
import t from 'tap'
import type { Test } from 'tap'
import twilio from 'twilio'
import { leadDecider } from '../../../src/domain/lead/lead.decider.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import { LEAD_SUMMARIES } from '../../../src/domain/lead/lead.events.ts'
import { FAKE_ACCOUNT_SID, type FakeTwilio } from '../../doubles/fake-twilio.ts'
import { operatorContext } from '../../helpers/build-app.ts'
import {
  CALLER_ID, PUBLIC_URL, fakeTwilio, followUpSetup, leadEvents, manualClock, nthCall, postLead, ringsOut, sleep, twilioEnv, waitForEvent,
} from '../../helpers/dialing-app.ts'
import { CARRIER, mcpApp, placeNewestCall, runLeadCommand, type McpTestAccount, type McpTestApp } from '../mcp/mcp-helpers.ts'
import { signedInConsole } from '../console/console-helpers.ts'
import type { FastifyInstance } from 'fastify'

const PHONE = '3125550142'
const JANE = '+13125550142'
const MIN = 60_000
/** Long enough for several follow-up ticks (every 50 ms) to have looked. */
const TICKS = 250
const WORDS = 'Yes please, call me after 5 about the roof'
let sid = 0

/** Posts an inbound message as Twilio would, signed by the SDK with the fake's auth token. */
async function inbound(app: FastifyInstance, fake: FakeTwilio, body: string, options: { from?: string; messageSid?: string } = {}): Promise<number> {
  const messageSid = options.messageSid ?? `SM${String(++sid).padStart(32, '0')}`
  const params: Record<string, string> = {
    ToCountry: 'US', SmsMessageSid: messageSid, NumMedia: '0', SmsSid: messageSid, SmsStatus: 'received', Body: body,
    To: CALLER_ID, From: options.from ?? JANE, MessageSid: messageSid, AccountSid: FAKE_ACCOUNT_SID, ApiVersion: '2010-04-01', NumSegments: '1',
  }
  const signature = twilio.getExpectedTwilioSignature(fake.authToken, `${PUBLIC_URL}/api/carrier/twilio/sms`, params)
  const response = await app.inject({
    method: 'POST',
    url: '/api/carrier/twilio/sms',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    payload: new URLSearchParams(params).toString(),
  })
  return response.statusCode
}

t.test('a reply stops the scheduled follow-up: the timer never calls, and a later unanswered call starts no new cadence', async (t) => {
  const clock = manualClock('2026-03-10T14:00:00Z')
  const s = await followUpSetup(t, clock)
  await postLead(s.app, s.token, { phone: PHONE, name: 'Jane Doe' })
  await ringsOut(s, await nthCall(s, PHONE, 1))
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled')).data, { dueAt: '2026-03-10T14:10:00.000Z' })

  clock.advance(2 * MIN)
  t.equal(await inbound(s.app, s.fake, WORDS), 200)
  const log = await leadEvents(s.leadline, s.accountId, PHONE)
  const tail = log.slice(-3)
  t.same(tail.map((e) => e.type), ['TextReceived', 'LeadReplied', 'FollowUpStopped'])
  t.ok(tail.every((e) => e.metadata.correlationId === tail[0]?.metadata.correlationId), 'one append')
  t.same(Object.keys(tail[1]?.data as object).sort(), ['leadId', 'messageId', 'repliedAt'], 'LeadReplied carries when and the message id')
  t.notMatch(JSON.stringify(tail[1]?.data), /roof/, 'never the text: it stays in TextReceived')
  t.match(tail[2]?.data, { reason: 'replied', message: 'the lead replied by text', at: '2026-03-10T14:02:00.000Z' })

  clock.advance(2 * 24 * 60 * MIN)
  await sleep(TICKS)
  t.equal(s.fake.callRequests().length, 1, 'the follow-up call never happens')
  await s.leadline.runner.catchUp()
  t.same(s.leadline.calls.dueFollowUps('9999-12-31T00:00:00.000Z'), [], 'no timer left')

  // A call the account places itself still goes out; unanswered, it starts no new cadence (as after an answer).
  const { key } = await s.leadline.accounts.createApiKey(s.accountId, ['dial'], 'dial', operatorContext)
  const placed = await s.app.inject({
    method: 'POST', url: '/api/mcp', headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'place_call', arguments: { phone: PHONE, name: 'Jane Doe', idempotency_key: 'after-reply' } } },
  })
  t.notOk(placed.json().error, `place_call is not refused: ${placed.body}`)
  await ringsOut(s, await nthCall(s, PHONE, 2))
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpStopped', 2)).data, { reason: 'replied' })
  clock.advance(2 * 24 * 60 * MIN)
  await sleep(TICKS)
  t.equal(s.fake.callRequests().length, 2, 'no follow-up after the later call')
  t.equal((await leadEvents(s.leadline, s.accountId, PHONE)).filter((e) => e.type === 'FollowUpScheduled').length, 1)
})

t.test('a keyword is not a reply: HELP and START leave the follow-up as it was, and it calls when due', async (t) => {
  const clock = manualClock('2026-03-10T14:00:00Z')
  const s = await followUpSetup(t, clock)
  await postLead(s.app, s.token, { phone: PHONE })
  await ringsOut(s, await nthCall(s, PHONE, 1))
  await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled')
  t.equal(await inbound(s.app, s.fake, 'HELP'), 200)
  t.equal(await inbound(s.app, s.fake, ' start '), 200)
  const types = (await leadEvents(s.leadline, s.accountId, PHONE)).map((e) => e.type)
  t.notOk(types.includes('LeadReplied'), 'no LeadReplied')
  t.notOk(types.includes('FollowUpStopped'), 'follow-up not stopped')
  clock.advance(10 * MIN)
  await nthCall(s, PHONE, 2)
  t.equal(s.fake.callRequests().length, 2, 'the follow-up called')
})

const OWNER = '+15125550199'

interface Clock {
  now: Date
}

async function textedApp(t: Test, clock: Clock): Promise<{ app: McpTestApp; account: McpTestAccount; fake: FakeTwilio }> {
  const fake = await fakeTwilio(t)
  // No process manager runs: nothing calls on its own while the clock moves.
  const app = await mcpApp(t, { env: twilioEnv(fake), start: false, clock: () => clock.now })
  const account = await app.account('Acme Roofing', {
    speedToLead: true, callerId: CALLER_ID, callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, timeZone: 'America/New_York', onAnswer: `greeting+bridge:${OWNER}`,
  })
  return { app, account, fake }
}

const run = runLeadCommand

const place = placeNewestCall

async function nextActions(app: McpTestApp, account: McpTestAccount) {
  await app.settle()
  return (await app.call(account.keys.read, 'get_next_actions', {})).result?.structuredContent as {
    summary: string
    stale_leads: Array<{ lead_id: string; name: string | null; phone: string; why: string; suggested_action: string; last_touch: string }>
  }
}

t.test('get_next_actions lists a replied lead first, above a callback due, until a call is placed to it; get_lead shows when, never the text', async (t) => {
  const clock = { now: new Date('2026-03-10T15:00:00Z') }
  const { app, account, fake } = await textedApp(t, clock)
  const settings = async () => (await app.leadline.accounts.require(account.accountId)).settings
  await account.pushLead({ name: 'Bob Back', phone: '(415) 555-0101' })
  const bob = await place(app, account, '4155550101', 'CA1')
  clock.now = new Date('2026-03-10T15:01:00Z')
  await run(app, account, '4155550101', { type: 'PressMenuKey', settings: await settings(), decisionId: bob, digit: '2', ownerNumber: OWNER })
  const jane = await account.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  await place(app, account, PHONE, 'CA2')

  clock.now = new Date('2026-03-10T16:10:00Z')
  t.equal(await inbound(app.app, fake, WORDS), 200)
  // Twilio delivers one message again, five times at once: one reply.
  const again = `SM${'e'.repeat(32)}`
  clock.now = new Date('2026-03-10T16:12:00Z')
  t.same(await Promise.all(Array.from({ length: 5 }, () => inbound(app.app, fake, 'and the gutters too', { messageSid: again }))), [200, 200, 200, 200, 200])
  const log = await app.leadline.store.readStream(leadStream(account.accountId, PHONE))
  t.equal(log.filter((e) => e.type === 'LeadReplied').length, 2, 'one LeadReplied per message, however often it is delivered')
  t.equal(log.filter((e) => e.type === 'TextReceived').length, 2)

  clock.now = new Date('2026-03-10T16:15:00Z')
  t.equal(await inbound(app.app, fake, 'who is this?', { from: '+17735550199' }), 200)

  const first = await nextActions(app, account)
  t.same(first.stale_leads.map((l) => [l.name, l.why]), [[null, 'replied'], ['Jane Doe', 'replied'], ['Bob Back', 'callback_due']], 'replies first, the latest first; a person unknown to the account too')
  t.match(first.stale_leads[1], {
    lead_id: jane.leadId, phone: JANE, last_touch: '2026-03-10T16:12:00.000Z',
    suggested_action: 'replied: call now: the lead texted back at 2026-03-10T16:12:00.000Z and nobody has called since',
  })
  t.match(first.stale_leads[0], { phone: '+17735550199' })
  t.match(first.summary, /^2 leads replied by text and were not called since; 1 lead is due the callback they asked for\. /)

  const lead = (await app.call(account.keys.read, 'get_lead', { phone: PHONE })).result?.structuredContent
  t.same(lead?.replies, { count: 2, last_reply_at: '2026-03-10T16:12:00.000Z' })
  t.same(lead?.calls.next_follow_up_at, null)
  const history = await app.call(account.keys.read, 'get_lead_history', { phone: PHONE })
  t.match(history.result?.structuredContent.events.find((e: { type: string }) => e.type === 'LeadReplied'), { data: { repliedAt: '2026-03-10T16:12:00.000Z' } })
  for (const answer of [lead, history]) t.notMatch(JSON.stringify(answer), /roof|gutters/, 'what the lead wrote is never returned')
  const replied = log.find((e) => e.type === 'LeadReplied')
  t.match(LEAD_SUMMARIES.LeadReplied(replied?.data as never), /^the lead replied by text \(message SM0+\d+\): call them$/, 'the history line')

  // A call decided is not yet a call to the lead; once placed, the reply is answered.
  await run(app, account, PHONE, { type: 'DecidePlaceCall', settings: await settings(), decisionId: 'dec_reply', idempotencyKey: 'reply-1' })
  t.equal((await nextActions(app, account)).stale_leads.find((l) => l.lead_id === jane.leadId)?.why, 'replied', 'decided, not placed: still listed')
  await place(app, account, PHONE, 'CA3')
  const after = await nextActions(app, account)
  t.same(after.stale_leads.map((l) => [l.name, l.why]), [[null, 'replied'], ['Bob Back', 'callback_due']], 'a call placed after the reply clears it')

  // A replied lead that opts out leaves the list.
  await inbound(app.app, fake, 'STOP', { from: '+17735550199' })
  t.same((await nextActions(app, account)).stale_leads.map((l) => l.why), ['callback_due'])
})

t.test("the console's lead page shows that the lead replied and when, the timeline line, and what they wrote in its Texts only (issue #44)", async (t) => {
  const f = await signedInConsole(t)
  const pushed = await f.app.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': f.token }, payload: { name: 'Jane Doe', phone: '(312) 555-0142' } })
  const leadId = (pushed.json() as { leadId: string }).leadId
  const stream = leadStream(f.accountId, PHONE)
  const fields = { phone: JANE, phoneLast10: PHONE, phoneRaw: JANE, industryFields: {}, extraFields: [] }
  for (const [messageId, body] of [['SM1', WORDS], ['SM2', 'HELP']] as const) {
    await f.app.leadline.commands.handle(stream, leadDecider, { type: 'ReceiveText', accountId: f.accountId, newLeadId: 'ld_unused', fields, messageId, from: JANE, to: CALLER_ID, body, carrier: 'twilio' }, CARRIER)
  }
  await f.app.leadline.runner.catchUp()
  const page = (await f.browser.get(`/app/leads/${leadId}`)).body
  t.match(page, /<dt>Replied by text<\/dt><dd>once, last <time[^>]*>[^<]*<\/time>: call them<\/dd>/, 'once: HELP is no reply')
  t.match(page, 'the lead replied by text: call them', "the timeline line, in the owner's words (the message id stays in the history)")
  const texts = page.slice(page.indexOf('<section aria-labelledby="conversation">'), page.indexOf('</section>', page.indexOf('<section aria-labelledby="conversation">')))
  t.match(texts, /roof/, "what the lead wrote is in the owner's own conversation")
  t.match(texts, /<p class="body">HELP<\/p>\s*<span class="meta">received; asks for help/, 'the keyword too, said as such')
  t.notMatch(page.replace(texts, ''), /roof/, 'and nowhere else on the page')
})
