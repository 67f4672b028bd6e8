/**
 * Follow-up text steps end to end, on a clock the test moves: the real Twilio adapter (the official
 * SDK) against the fake Twilio, the durable follow-up timer, the texter. A text step goes out once,
 * at its time, after an unanswered call (one message at the fake, placeholders filled, the opt-out
 * line added); outside the lead's hours it waits; an answer, a reply or a STOP stops it. Across a
 * restart: text-step-restart.test.ts.
 */
import t, { type Test } from 'tap'
import twilio from 'twilio'
import type { FastifyInstance } from 'fastify'
import { FAKE_ACCOUNT_SID, type FakeTwilio } from '../../doubles/fake-twilio.ts'
import {
  CALLER_ID, PUBLIC_URL, answeredByPerson, followUpSetup, leadEventTypes, manualClock, nthCall, placedCalls, postLead, ringsOut, sleep, waitFor, waitForEvent,
} from '../../helpers/dialing-app.ts'

const PHONE = '3125550142'
const JANE = '+13125550142'
const MIN = 60_000
/** Long enough for several follow-up ticks (every 50 ms) to have looked. */
const TICKS = 250
const TEXT = '10m text "Hi {first_name}, it\'s {business} about your request. Call us at {callback_number}.", 1h'
const BODY = "Hi Jane, it's Acme about your request. Call us at +13125550100.\nReply STOP to opt out."

const messages = (fake: FakeTwilio) => fake.messageRequests().filter((r) => r.outcome === 'created')

t.test('a text step goes out once after an unanswered call, at its time, then the next step calls', async (t) => {
  // Tuesday 10 March 2026, 10:00 in New York.
  const clock = manualClock('2026-03-10T14:00:00Z')
  const s = await followUpSetup(t, clock, { followUp: TEXT })
  await postLead(s.app, s.token, { phone: PHONE, name: 'Jane Doe' })
  await ringsOut(s, await nthCall(s, PHONE, 1))
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled')).data, { attempt: 2, dueAt: '2026-03-10T14:10:00.000Z', textStep: 1 })

  clock.advance(10 * MIN - 1000)
  await sleep(TICKS)
  t.equal(messages(s.fake).length, 0, 'not before it is due')
  clock.advance(1000)
  await waitForEvent(s.leadline, s.accountId, PHONE, 'TextSent')
  t.equal(messages(s.fake).length, 1, 'one message')
  t.match(messages(s.fake)[0]?.form, { From: CALLER_ID, To: JANE, Body: BODY }, 'placeholders filled, the opt-out line added')
  const decided = await waitForEvent(s.leadline, s.accountId, PHONE, 'TextDecided')
  t.match(decided.data, { textId: /^txt_/, reason: 'follow_up', step: 1, body: BODY, at: '2026-03-10T14:10:00.000Z' })
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled', 2)).data, { attempt: 2, dueAt: '2026-03-10T15:10:00.000Z' }, 'the next step, an hour after the text')

  // The clock jumps about; the text is not sent again, and no call goes out before its time.
  clock.advance(30 * MIN)
  await sleep(TICKS)
  clock.advance(-2 * 60 * MIN)
  await sleep(TICKS)
  clock.set('2026-03-10T15:09:00Z')
  await sleep(TICKS)
  t.equal(messages(s.fake).length, 1, 'still one message')
  t.equal(s.fake.callRequests().length, 1, 'no call before the next step is due')
  clock.set('2026-03-10T15:10:00Z')
  await ringsOut(s, await nthCall(s, PHONE, 2))
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpStopped')).data, { reason: 'attempts_exhausted' })
  clock.advance(3 * 24 * 60 * MIN)
  await sleep(TICKS)
  t.equal(messages(s.fake).length, 1)
  t.equal(s.fake.callRequests().length, 2)
  const types = await leadEventTypes(s.leadline, s.accountId, PHONE)
  t.same(types.filter((type) => type.startsWith('Text')), ['TextDecided', 'TextAttemptStarted', 'TextSent'], 'claimed before it was sent, once')
})

t.test("a text step due outside the lead's hours waits for the next allowed time", async (t) => {
  // 20:50 in Chicago (the lead's area code) on Tuesday: the text falls due at 21:10, after the federal 21:00.
  const clock = manualClock('2026-03-11T01:50:00Z')
  const s = await followUpSetup(t, clock, { followUp: '20m text "Hi {first_name}"', leadTimeGuard: true })
  await postLead(s.app, s.token, { phone: PHONE, name: 'Jane Doe' })
  await ringsOut(s, await nthCall(s, PHONE, 1))
  await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled')
  clock.advance(20 * MIN)
  const moved = await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpRescheduled')
  t.match(moved.data, { attempt: 2, dueAt: '2026-03-11T13:00:00.000Z', reason: 'outside_lead_hours' }, '08:00 in Chicago')
  await sleep(TICKS)
  t.equal(messages(s.fake).length, 0, 'not texted at 21:10')
  clock.set('2026-03-11T12:59:00Z')
  await sleep(TICKS)
  t.equal(messages(s.fake).length, 0, 'nor at 07:59')
  clock.set('2026-03-11T13:00:00Z')
  await waitForEvent(s.leadline, s.accountId, PHONE, 'TextSent')
  t.match(messages(s.fake)[0]?.form, { To: JANE, Body: 'Hi Jane\nReply STOP to opt out.' })
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'TextDecided')).data, { at: '2026-03-11T13:00:00.000Z' })
  await sleep(TICKS)
  t.equal(messages(s.fake).length, 1)
})

t.test('no text step after the lead answered', async (t) => {
  const clock = manualClock('2026-03-10T14:00:00Z')
  const s = await followUpSetup(t, clock, { followUp: '30s, 30s text "Hi {first_name}"' })
  await postLead(s.app, s.token, { phone: PHONE, name: 'Jane Doe' })
  await ringsOut(s, await nthCall(s, PHONE, 1))
  await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled')
  clock.advance(30_000)
  const second = await nthCall(s, PHONE, 2)
  await answeredByPerson(s, second)
  await waitForEvent(s.leadline, s.accountId, PHONE, 'CallCompleted')
  clock.advance(2 * 24 * 60 * MIN)
  await sleep(TICKS)
  t.equal(messages(s.fake).length, 0, 'no text after the answer')
  t.notOk((await leadEventTypes(s.leadline, s.accountId, PHONE)).includes('TextDecided'))
})

/** The lead texts `body` to the account's number, signed by the SDK as Twilio would. */
async function inbound(app: FastifyInstance, fake: FakeTwilio, body: string): Promise<number> {
  const params: Record<string, string> = {
    MessageSid: 'SM00000000000000000000000000000001', SmsMessageSid: 'SM00000000000000000000000000000001', AccountSid: FAKE_ACCOUNT_SID,
    From: JANE, To: CALLER_ID, Body: body, NumMedia: '0', NumSegments: '1', SmsStatus: 'received', ApiVersion: '2010-04-01',
  }
  const signature = twilio.getExpectedTwilioSignature(fake.authToken, `${PUBLIC_URL}/api/carrier/twilio/sms`, params)
  const response = await app.inject({
    method: 'POST', url: '/api/carrier/twilio/sms', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature }, payload: new URLSearchParams(params).toString(),
  })
  return response.statusCode
}

/** A lead whose unanswered first call left a text step pending, with the fake Twilio and the clock. */
async function textStepPending(t: Test) {
  const clock = manualClock('2026-03-10T14:00:00Z')
  const s = await followUpSetup(t, clock, { followUp: TEXT })
  await postLead(s.app, s.token, { phone: PHONE, name: 'Jane Doe' })
  await ringsOut(s, await nthCall(s, PHONE, 1))
  await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled')
  return { s, clock }
}

t.test('no text step after the lead replied by text', async (t) => {
  const { s, clock } = await textStepPending(t)
  t.equal(await inbound(s.app, s.fake, 'Yes, call me after 5'), 200)
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpStopped')).data, { reason: 'replied' })
  clock.advance(2 * 24 * 60 * MIN)
  await sleep(TICKS)
  t.equal(messages(s.fake).length, 0, 'no follow-up text to a lead who replied')
  t.equal(s.fake.callRequests().length, 1, 'and no follow-up call')
})

t.test('no text step after the lead opted out with STOP: only the one confirmation', async (t) => {
  const { s, clock } = await textStepPending(t)
  t.equal(await inbound(s.app, s.fake, 'STOP'), 200)
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpStopped')).data, { reason: 'do_not_call' })
  await waitFor('the confirmation', () => messages(s.fake).length === 1)
  clock.advance(2 * 24 * 60 * MIN)
  await sleep(TICKS)
  t.equal(messages(s.fake).length, 1, 'the confirmation only: no follow-up text')
  t.match(messages(s.fake)[0]?.form, { Body: /unsubscribed/ })
  t.equal(s.fake.callRequests().length, 1, 'and no call')
  t.equal(placedCalls(s.fake).length, 1)
})
