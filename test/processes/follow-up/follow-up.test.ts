/**
 * Follow-up end to end, with a clock the test moves (no real waits for minutes): a signed no-answer
 * callback schedules the next attempt; the durable timer fires it once when due and allowed; it stops
 * when the lead answers or becomes do-not-call; calling hours are checked again when it fires.
 */
import t from 'tap'
import type { FakeTwilio } from '../../doubles/fake-twilio.ts'
import {
  answeredByPerson, followUpSetup, leadEventTypes, leadEvents, manualClock, nthCall, placedCalls, postLead, ringsOut, sleep, waitForEvent,
} from '../../helpers/dialing-app.ts'

const PHONE = '3125550142'
const MIN = 60_000
/** Long enough for several follow-up ticks (every 50 ms) to have looked. */
const TICKS = 250

function callCount(fake: FakeTwilio): number {
  return fake.callRequests().length
}

t.test('the default policy end to end: 10 minutes, 1 hour, next day 10:00, then stop; each timer fires once', async (t) => {
  // Tuesday 10 March 2026, 10:00 in New York.
  const clock = manualClock('2026-03-10T14:00:00Z')
  const s = await followUpSetup(t, clock)
  await postLead(s.app, s.token, { phone: PHONE, name: 'Jane Doe' })
  await ringsOut(s, await nthCall(s, PHONE, 1))
  const scheduled = await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled')
  t.match(scheduled.data, { attempt: 2, dueAt: '2026-03-10T14:10:00.000Z' }, 'scheduled as an event, 10 minutes on')

  clock.advance(10 * MIN - 1000)
  await sleep(TICKS)
  t.equal(callCount(s.fake), 1, 'not before it is due')
  clock.advance(1000)
  await ringsOut(s, await nthCall(s, PHONE, 2))
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled', 2)).data, { attempt: 3, dueAt: '2026-03-10T15:10:00.000Z' })
  // The clock jumps: forward past the timer, back, and forward again. It fires once.
  clock.advance(2 * 60 * MIN)
  await nthCall(s, PHONE, 3)
  clock.advance(-3 * 60 * MIN)
  await sleep(TICKS)
  clock.advance(3 * 60 * MIN)
  await sleep(TICKS)
  t.equal(callCount(s.fake), 3, 'the third call, once, whatever the clock did')
  await ringsOut(s, placedCalls(s.fake)[2]?.sid as string)
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled', 3)).data, { attempt: 4, dueAt: '2026-03-11T14:00:00.000Z' }, 'next day, 10:00 in New York')

  clock.set('2026-03-11T13:59:59Z')
  await sleep(TICKS)
  t.equal(callCount(s.fake), 3)
  clock.set('2026-03-11T14:00:00Z')
  await ringsOut(s, await nthCall(s, PHONE, 4))
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpStopped')).data, { reason: 'attempts_exhausted' })
  clock.advance(7 * 24 * 60 * MIN)
  await sleep(TICKS)
  t.equal(callCount(s.fake), 4, 'then it stops')
  const purposes = (await leadEvents(s.leadline, s.accountId, PHONE)).filter((e) => e.type === 'CallDecided').map((e) => (e.data as { purpose: string }).purpose)
  t.same(purposes, ['speed_to_lead', 'follow_up', 'follow_up', 'follow_up'])
})

t.test('an answer stops the follow-up', async (t) => {
  const clock = manualClock('2026-03-10T14:00:00Z')
  const s = await followUpSetup(t, clock, { followUp: '30s, 30s, 30s' })
  await postLead(s.app, s.token, { phone: PHONE })
  await ringsOut(s, await nthCall(s, PHONE, 1))
  await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled')
  clock.advance(30_000)
  const second = await nthCall(s, PHONE, 2)
  await answeredByPerson(s, second)
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'CallAnswered')).data, { callId: second, answeredBy: 'human' })
  await waitForEvent(s.leadline, s.accountId, PHONE, 'CallCompleted')
  clock.advance(2 * 24 * 60 * MIN)
  await sleep(TICKS)
  t.equal(callCount(s.fake), 2, 'no more calls after the answer')
  const types = await leadEventTypes(s.leadline, s.accountId, PHONE)
  t.equal(types.filter((x) => x === 'FollowUpScheduled').length, 1)
  t.equal(types.at(-1), 'CallCompleted')
})

t.test('a pending follow-up stops when the lead becomes do-not-call', async (t) => {
  const clock = manualClock('2026-03-10T14:00:00Z')
  const s = await followUpSetup(t, clock)
  await postLead(s.app, s.token, { phone: PHONE })
  await ringsOut(s, await nthCall(s, PHONE, 1))
  await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled')
  // The sender flags the person do-not-call before the timer is due.
  t.equal((await postLead(s.app, s.token, { phone: PHONE, dnc: 'yes' })).status, 200)
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpStopped')).data, { reason: 'do_not_call' })
  clock.advance(24 * 60 * MIN)
  await sleep(TICKS)
  t.equal(callCount(s.fake), 1, 'never dialed again')
  await s.leadline.runner.catchUp()
  t.same(s.leadline.calls.dueFollowUps('9999-12-31T00:00:00.000Z'), [], 'no timer left')
})

t.test('calling hours are checked again when the timer fires: rescheduled to the next allowed time', async (t) => {
  // Tuesday 17:55 in New York; the account calls weekdays 09:00-18:00.
  const clock = manualClock('2026-03-10T21:55:00Z')
  const s = await followUpSetup(t, clock, { callingHours: 'mon-fri 09:00-18:00' })
  await postLead(s.app, s.token, { phone: PHONE })
  await ringsOut(s, await nthCall(s, PHONE, 1))
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled')).data, { dueAt: '2026-03-10T22:05:00.000Z' })
  clock.advance(10 * MIN)
  const moved = await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpRescheduled')
  t.match(moved.data, { attempt: 2, dueAt: '2026-03-11T13:00:00.000Z', reason: 'outside_calling_hours' }, 'Wednesday 09:00 in New York')
  await sleep(TICKS)
  t.equal(callCount(s.fake), 1, 'not dialed at 18:05')
  clock.set('2026-03-11T12:59:00Z')
  await sleep(TICKS)
  t.equal(callCount(s.fake), 1, 'nor at 08:59')
  clock.set('2026-03-11T13:00:00Z')
  await nthCall(s, PHONE, 2)
  t.match((await leadEvents(s.leadline, s.accountId, PHONE)).filter((e) => e.type === 'CallDecided')[1]?.data, { purpose: 'follow_up', decidedAt: '2026-03-11T13:00:00.000Z' })
  await sleep(TICKS)
  t.equal(callCount(s.fake), 2)
})

t.test('a store that fails for a moment does not take the timers (or the process) down', async (t) => {
  const clock = manualClock('2026-03-10T14:00:00Z')
  const s = await followUpSetup(t, clock, { followUp: '30s' })
  await postLead(s.app, s.token, { phone: PHONE })
  await ringsOut(s, await nthCall(s, PHONE, 1))
  await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled')
  const runner = s.leadline.runner
  const catchUp = runner.catchUp.bind(runner)
  runner.catchUp = async () => {
    throw new Error('disk unavailable')
  }
  await s.leadline.dialer.sweep(0).then((n) => t.equal(n, 0, 'the sweep reports nothing marked'))
  await sleep(TICKS)
  runner.catchUp = catchUp
  clock.advance(30_000)
  await nthCall(s, PHONE, 2)
  t.pass('the follow-up fired once the store was back')
})
