/**
 * The server clock jumps, forward and back (NTP corrections, a VM resumed, a bad clock fixed): a
 * follow-up timer fires once, never outside calling hours, and a clock set back frees no slot of
 * the daily limit early; the pacer's lanes neither stall nor let calls through faster.
 * (test/processes/follow-up/follow-up.test.ts and dialer/pacing.test.ts hold the everyday cases.)
 */
import t from 'tap'
import { withinDailyLimit } from '../../src/domain/dialing/follow-up-policy.ts'
import { Pacer } from '../../src/processes/dialer/pacer.ts'
import { followUpSetup, leadEvents, manualClock, nthCall, postLead, ringsOut, sleep, waitForEvent } from '../helpers/dialing-app.ts'

const PHONE = '3125550177'
const MIN = 60_000
const TICKS = 250

t.test('a forward jump past the end of calling hours does not call; a jump back does not fire the timer twice', async (t) => {
  // Tuesday 17:50 in New York; the account calls weekdays 09:00-18:00; follow-up after 5 minutes.
  const clock = manualClock('2026-03-10T21:50:00Z')
  const s = await followUpSetup(t, clock, { callingHours: 'mon-fri 09:00-18:00', followUp: '5m, 5m' })
  await postLead(s.app, s.token, { phone: PHONE })
  await ringsOut(s, await nthCall(s, PHONE, 1))
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled')).data, { dueAt: '2026-03-10T21:55:00.000Z' })

  // The clock leaps three hours ahead: the timer is due, but it is 20:50 in New York now.
  clock.advance(3 * 60 * MIN)
  const moved = await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpRescheduled')
  t.match(moved.data, { attempt: 2, dueAt: '2026-03-11T13:00:00.000Z', reason: 'outside_calling_hours' }, 'to Wednesday 09:00, not called at 20:50')
  // Corrected back to 17:56: inside calling hours, and past the original due time; the timer is already moved.
  clock.set('2026-03-10T21:56:00Z')
  await sleep(TICKS)
  t.equal(s.fake.callRequests().length, 1, 'no call at 17:56 either: the timer was claimed once, by the reschedule')
  // Back and forth across the new due time: one call.
  clock.set('2026-03-11T13:00:00Z')
  await nthCall(s, PHONE, 2)
  clock.advance(-2 * 60 * MIN)
  await sleep(TICKS)
  clock.set('2026-03-11T13:00:30Z')
  await sleep(TICKS)
  t.equal(s.fake.callRequests().length, 2, 'the rescheduled timer fired once')
  const purposes = (await leadEvents(s.leadline, s.accountId, PHONE)).filter((e) => e.type === 'CallDecided').map((e) => (e.data as { purpose: string }).purpose)
  t.same(purposes, ['speed_to_lead', 'follow_up'])
})

t.test('a clock set back after a call does not free a slot of the daily limit', async (t) => {
  // The clock ran two hours fast when the call went out at "12:00"; the no-answer comes after it was corrected to 10:00.
  const clock = manualClock('2026-03-10T16:00:00Z')
  const s = await followUpSetup(t, clock, { followUp: '30s, 30s; max 1 per 24h' })
  await postLead(s.app, s.token, { phone: PHONE })
  const sid = await nthCall(s, PHONE, 1)
  clock.advance(-2 * 60 * MIN)
  await ringsOut(s, sid)
  const scheduled = await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled')
  t.equal((scheduled.data as { dueAt: string }).dueAt, '2026-03-11T16:00:01.000Z', 'a day after the call as stamped, not 30 s after the corrected clock')
  clock.advance(10 * MIN)
  await sleep(TICKS)
  t.equal(s.fake.callRequests().length, 1, 'no second call within the day')
})

t.test('withinDailyLimit counts attempts stamped after the candidate (the clock went back)', async (t) => {
  const from = new Date('2026-03-10T14:00:30Z')
  t.equal(withinDailyLimit(from, ['2026-03-10T16:00:00Z'], 1).toISOString(), '2026-03-11T16:00:01.000Z')
  t.equal(withinDailyLimit(from, ['2026-03-10T16:00:00Z'], 2).toISOString(), from.toISOString(), 'a slot left: at once')
})

t.test('the pacer with a clock that jumps: back never stalls a lane, forward lets no burst through', async (t) => {
  // A clock that runs, and jumps by `offset`: what a wall clock given to the pacer would do.
  let offset = 0
  const pacer = new Pacer(() => performance.now() + offset)
  const starts: number[] = []
  const call = () =>
    pacer.schedule('acct', async (started) => {
      starts.push(performance.now())
      started(100)
    })
  await call()
  offset -= 3_600_000 // an hour back
  await call()
  t.ok((starts[1] as number) - (starts[0] as number) < 1000, `the next call waited ${Math.round((starts[1] as number) - (starts[0] as number))} ms, not an hour`)
  offset += 7_200_000 // two hours forward
  await Promise.all([call(), call(), call()])
  const gaps = starts.slice(2).map((at, i) => at - (starts[i + 1] as number))
  t.equal(starts.length, 5)
  // After the forward jump the first call may go at once; the ones after it keep their spacing.
  t.ok(gaps.slice(1).every((gap) => gap >= 90), `calls after the jump stay spaced: ${gaps.map(Math.round).join(', ')} ms`)
})
