/**
 * The appointments read model and what reads it: one row per appointment, recorded through the
 * command handler as the booking will; a lead's appointments, the account's upcoming and today's (the
 * account's day), the no-shows (marked, or ended with no mark, read from `now`), and get_next_actions'
 * `appointment_no_show` and `appointment_today` after what leads asked for, each lead listed once.
 */
import path from 'node:path'
import t from 'tap'
import { replay } from '../../../src/audit/replay.ts'
import { PROJECTIONS } from '../../../src/leadline.ts'
import { dumpReadModels } from '../../helpers/read-models.ts'
import { leadDecider } from '../../../src/domain/lead/lead.decider.ts'
import { buildApp } from '../../helpers/build-app.ts'
import { BOOKING_CONTEXT, recordBooking } from '../../helpers/appointments.ts'

/** Tuesday 10 March 2026, 11:00 in New York. */
const START = new Date('2026-03-10T15:00:00Z')

async function setup(t: Parameters<typeof buildApp>[0]) {
  let now = START.getTime()
  const built = await buildApp(t, { clock: () => new Date(now) })
  const { account, token } = await built.createAccount('Acme', { callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, callerId: '+15125550100', timeZone: 'America/New_York' })
  const post = (phone: string, body: object = {}) =>
    built.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token }, payload: { phone, ...body } })
  const stream = (last10: string) => `lead-${account.accountId}-${last10}`
  const next = async () => {
    await built.leadline.runner.catchUp()
    return built.leadline.nextActions.getNextActions((await built.leadline.accounts.get(account.accountId))!)
  }
  return { ...built, account, post, stream, next, now: () => new Date(now), advance: (minutes: number) => (now += minutes * 60_000) }
}

t.test('one row per appointment: booked, moved, cancelled, attended, no-show; a lead reached again is no longer a no-show to deal with', async (t) => {
  const { leadline, post, stream, advance, now, account } = await setup(t)
  await post('5125550101', { name: 'Ann Lee' })
  await post('5125550102', { name: 'Bo Diaz' })
  const ann = stream('5125550101')
  const bo = stream('5125550102')
  await recordBooking(leadline.commands, ann, { appointmentId: 'apt_a1', start: '2026-03-10T18:00:00Z' }) // today 14:00 New York
  await recordBooking(leadline.commands, ann, { appointmentId: 'apt_a2', start: '2026-03-12T15:00:00Z' })
  await recordBooking(leadline.commands, bo, { appointmentId: 'apt_b1', start: '2026-03-11T03:30:00Z' }) // 23:30 tonight in New York
  await recordBooking(leadline.commands, bo, { appointmentId: 'apt_b2', start: '2026-03-11T04:30:00Z' }) // 00:30 tomorrow in New York
  await recordBooking(leadline.commands, ann, { appointmentId: 'apt_a1', start: '2026-03-10T18:00:00Z' }) // the same booking again
  await leadline.runner.catchUp()
  const q = leadline.appointmentsQueries
  t.same(q.forLead(ann).map((r) => [r.appointmentId, r.status, r.start, r.end, r.typeName]), [
    ['apt_a1', 'booked', '2026-03-10T18:00:00.000Z', '2026-03-10T18:30:00.000Z', 'Roof inspection'],
    ['apt_a2', 'booked', '2026-03-12T15:00:00.000Z', '2026-03-12T15:30:00.000Z', 'Roof inspection'],
  ])
  t.match(q.forLead(ann)[0], { accountId: account.accountId, by: 'agent', provider: 'simulated', bookedAt: START.toISOString(), changedAt: null })
  t.same(q.upcoming(account.accountId, now(), 10).map((r) => r.appointmentId), ['apt_a1', 'apt_b1', 'apt_b2', 'apt_a2'], 'soonest first')
  t.same(q.today(account.accountId, now(), 'America/New_York', 10).map((r) => r.appointmentId), ['apt_a1', 'apt_b1'], "the account's day")
  t.same(q.today(account.accountId, now(), 'UTC', 10).map((r) => r.appointmentId), ['apt_a1'], 'another zone, another day')
  t.equal(q.countToday(account.accountId, now(), 'America/New_York'), 2)

  await leadline.commands.handle(bo, leadDecider, { type: 'RecordAppointmentRescheduled', appointmentId: 'apt_b2', start: '2026-03-13T15:00:00.000Z', end: '2026-03-13T16:00:00.000Z', by: 'calendar' }, BOOKING_CONTEXT)
  await leadline.commands.handle(bo, leadDecider, { type: 'RecordAppointmentCancelled', appointmentId: 'apt_b1', by: 'assistant', reason: 'the lead cancelled' }, BOOKING_CONTEXT)
  await leadline.runner.catchUp()
  t.same(q.forLead(bo).map((r) => [r.appointmentId, r.status, r.start, r.end, r.by]), [
    ['apt_b1', 'cancelled', '2026-03-11T03:30:00.000Z', '2026-03-11T04:00:00.000Z', 'assistant'],
    ['apt_b2', 'booked', '2026-03-13T15:00:00.000Z', '2026-03-13T16:00:00.000Z', 'calendar'],
  ])

  advance(4 * 60) // 15:00 New York: apt_a1 ended at 14:30 with no mark
  t.same(q.noShows(account.accountId, now(), 10).map((r) => [r.appointmentId, r.kind]), [['apt_a1', 'unmarked']], 'passed, unmarked: read from now')
  await leadline.commands.handle(ann, leadDecider, { type: 'MarkAppointmentOutcome', appointmentId: 'apt_a1', outcome: 'no_show', by: 'owner' }, BOOKING_CONTEXT)
  await leadline.runner.catchUp()
  t.same(q.noShows(account.accountId, now(), 10).map((r) => [r.appointmentId, r.kind, r.status]), [['apt_a1', 'marked', 'no_show']])
  t.equal(q.countNoShows(account.accountId, now()), 1)
  // Booking again deals with the no-show.
  await recordBooking(leadline.commands, ann, { appointmentId: 'apt_a3', start: '2026-03-16T15:00:00Z' })
  await leadline.runner.catchUp()
  t.same(q.noShows(account.accountId, now(), 10), [])
  t.equal(q.forLead(ann).length, 3)
})

t.test("get_next_actions: no-shows and today's appointments after what leads asked for, before the stale ones, each lead once", async (t) => {
  const { leadline, post, stream, advance, next } = await setup(t)
  await post('5125550111', { name: 'Cy Park' }) // books today, at 14:00
  await post('5125550112', { name: 'Di Wu' }) // booked 11:30–12:00: will pass unmarked
  await post('5125550113', { name: 'Ed Ray' }) // no appointment: never contacted
  await post('5125550114', { name: 'Fay Li', dnc: 'yes' }) // do-not-call: never listed
  await recordBooking(leadline.commands, stream('5125550111'), { appointmentId: 'apt_c', start: '2026-03-10T18:00:00Z', typeName: 'Solar survey' })
  await recordBooking(leadline.commands, stream('5125550112'), { appointmentId: 'apt_d', start: '2026-03-10T15:30:00Z' })
  await recordBooking(leadline.commands, stream('5125550114'), { appointmentId: 'apt_f', start: '2026-03-10T19:00:00Z' })
  let page = await next()
  t.same(page.stale_leads.map((l) => [l.name, l.why]), [['Di Wu', 'appointment_today'], ['Cy Park', 'appointment_today']], 'booked today, soonest first; nobody stale yet')
  t.match(page.stale_leads[1], { appointment: { appointment_id: 'apt_c', type: 'Solar survey', start: '2026-03-10T18:00:00.000Z', end: '2026-03-10T18:30:00.000Z', status: 'booked', marked: false } })
  t.match(page.stale_leads[1]?.suggested_action, /^appointment today: Solar survey at 2026-03-10T18:00:00.000Z/)
  t.match(page.summary, /^2 leads have an appointment today\. No stale leads/)

  advance(60) // 12:00: Di's ended with no mark; Ed waited over 15 minutes
  page = await next()
  t.same(page.stale_leads.map((l) => [l.name, l.why]), [['Di Wu', 'appointment_no_show'], ['Cy Park', 'appointment_today'], ['Ed Ray', 'never_contacted']])
  t.match(page.stale_leads[0], { appointment: { appointment_id: 'apt_d', marked: false }, suggested_action: /^mark attended or no-show \(update_lead appointment\)/ })
  t.match(page.summary, /^1 lead missed an appointment or its appointment has no mark yet; 1 lead has an appointment today\. /)

  await leadline.commands.handle(stream('5125550112'), leadDecider, { type: 'MarkAppointmentOutcome', appointmentId: 'apt_d', outcome: 'no_show', by: 'owner' }, BOOKING_CONTEXT)
  page = await next()
  t.match(page.stale_leads[0], { name: 'Di Wu', why: 'appointment_no_show', appointment: { status: 'no_show', marked: true }, suggested_action: /^call: the lead did not come/ })
  await leadline.commands.handle(stream('5125550111'), leadDecider, { type: 'ReceiveText', accountId: 'x', newLeadId: 'unused', fields: { phone: '+15125550111', phoneLast10: '5125550111', phoneRaw: '+15125550111', industryFields: {}, extraFields: [] }, messageId: 'SM1', from: '+15125550111', to: '+15125550100', body: 'see you at 2', carrier: 'simulated' }, BOOKING_CONTEXT)
  page = await next()
  t.same(page.stale_leads.map((l) => [l.name, l.why]), [['Cy Park', 'replied'], ['Di Wu', 'appointment_no_show'], ['Ed Ray', 'never_contacted']], 'a reply comes first, and a lead is listed once')
})

t.test('replay rebuilds the same appointment rows', async (t) => {
  const built = await buildApp(t, { start: false, store: 'sqlite', clock: () => START })
  const { token, account } = await built.createAccount('Acme')
  await built.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token }, payload: { phone: '5125550121', name: 'Gil Roe' } })
  const stream = `lead-${account.accountId}-5125550121`
  await recordBooking(built.leadline.commands, stream, { appointmentId: 'apt_g1', start: '2026-03-10T14:00:00Z', leadZone: 'America/Chicago' })
  await recordBooking(built.leadline.commands, stream, { appointmentId: 'apt_g2', start: '2026-03-12T14:00:00Z' })
  await built.leadline.commands.handle(stream, leadDecider, { type: 'MarkAppointmentOutcome', appointmentId: 'apt_g1', outcome: 'no_show', by: 'owner' }, BOOKING_CONTEXT)
  await built.leadline.commands.handle(stream, leadDecider, { type: 'RecordAppointmentRescheduled', appointmentId: 'apt_g2', start: '2026-03-13T14:00:00.000Z', end: '2026-03-13T14:30:00.000Z', by: 'calendar' }, BOOKING_CONTEXT)
  await built.leadline.runner.catchUp()
  const live = dumpReadModels(built.leadline).appointments
  t.equal(live?.length, 2)
  await replay({ store: built.leadline.store, live: built.leadline.views, scratchPath: path.join(built.dir, 'scratch.db'), projections: PROJECTIONS, mode: 'switch' })
  t.same(dumpReadModels(built.leadline).appointments, live)
})
