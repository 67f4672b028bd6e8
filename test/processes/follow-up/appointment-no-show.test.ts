/**
 * A no-show resumes follow-up, end to end with the real follow-up timers and the fake Twilio: a lead
 * who answered and booked is not called while the booking stands; marked no-show, the timer calls
 * them at once (that call takes the policy's next step), and the step after follows when it is not answered.
 */
import t from 'tap'
import { leadDecider } from '../../../src/domain/lead/lead.decider.ts'
import { answeredByPerson, followUpSetup, leadEventTypes, manualClock, nthCall, postLead, ringsOut, sleep, waitForEvent } from '../../helpers/dialing-app.ts'
import { BOOKING_CONTEXT, recordBooking } from '../../helpers/appointments.ts'

const PHONE = '3125550142'
const MIN = 60_000
const TICKS = 250

t.test('answered, booked, no-show: follow-up calls again, then goes on with the policy', async (t) => {
  // Tuesday 10 March 2026, 10:00 in New York.
  const clock = manualClock('2026-03-10T14:00:00Z')
  const s = await followUpSetup(t, clock, { followUp: '30m, 1h' })
  await postLead(s.app, s.token, { phone: PHONE, name: 'Jane Doe' })
  await answeredByPerson(s, await nthCall(s, PHONE, 1))
  await waitForEvent(s.leadline, s.accountId, PHONE, 'CallCompleted')
  const stream = `lead-${s.accountId}-${PHONE}`
  await recordBooking(s.leadline.commands, stream, { appointmentId: 'apt_jane1', start: '2026-03-10T16:00:00Z' })

  clock.advance(3 * 60 * MIN) // 13:00, the appointment (12:00–12:30) is over
  await sleep(TICKS)
  t.equal(s.fake.callRequests().length, 1, 'nobody calls a lead who answered and booked')
  const settings = (await s.leadline.accounts.get(s.accountId))!.settings
  await s.leadline.commands.handle(stream, leadDecider, { type: 'MarkAppointmentOutcome', appointmentId: 'apt_jane1', outcome: 'no_show', by: 'owner', settings }, BOOKING_CONTEXT)
  const second = await nthCall(s, PHONE, 2)
  t.ok(second, 'the follow-up timer calls at once')
  await ringsOut(s, second)
  t.match((await waitForEvent(s.leadline, s.accountId, PHONE, 'FollowUpScheduled', 2)).data, { dueAt: '2026-03-10T18:00:00.000Z' }, "the no-show's call took the policy's first step (30m): the second, an hour on")
  clock.advance(60 * MIN)
  await nthCall(s, PHONE, 3)
  const types = await leadEventTypes(s.leadline, s.accountId, PHONE)
  t.same(types.filter((type) => type === 'CallDecided').length, 3)
})
