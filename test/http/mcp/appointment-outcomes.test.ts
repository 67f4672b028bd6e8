/**
 * Appointments through the tool endpoint (issue #45): get_lead shows a lead's upcoming and past
 * appointments with their times in the account's and the lead's zone; update_lead's `appointment`
 * marks one attended or no-show once it has begun (refused before, with stable codes), once (the
 * same mark again records nothing), and a no-show puts the lead back on follow-up and in
 * get_next_actions.
 */
import t from 'tap'
import { leadDecider } from '../../../src/domain/lead/lead.decider.ts'
import { mcpApp } from './mcp-helpers.ts'
import { BOOKING_CONTEXT, recordBooking } from '../../helpers/appointments.ts'

/** Tuesday 10 March 2026, 11:00 in New York. */
const START = new Date('2026-03-10T15:00:00Z')
const jane = { phone: '(312) 555-0142' }

async function setup(t: Parameters<typeof mcpApp>[0]) {
  let now = START.getTime()
  const app = await mcpApp(t, { clock: () => new Date(now), start: false })
  const acme = await app.account('Acme Roofing', { timeZone: 'America/New_York', callingHours: 'mon-sat 09:00-20:00', leadTimeGuard: false, callerId: '+15125550100', followUp: '1h, 1d' })
  await acme.pushLead({ name: 'Jane Doe', phone: jane.phone, state: 'IL' })
  const stream = `lead-${acme.accountId}-3125550142`
  // 14:00–14:30 today in New York (13:00 in Chicago); one tomorrow; one cancelled.
  await recordBooking(app.leadline.commands, stream, { appointmentId: 'apt_today', start: '2026-03-10T18:00:00Z', typeName: 'Roof inspection' })
  await recordBooking(app.leadline.commands, stream, { appointmentId: 'apt_next', start: '2026-03-11T14:00:00Z', typeName: 'Estimate', minutes: 60, leadZone: 'America/Denver' })
  await recordBooking(app.leadline.commands, stream, { appointmentId: 'apt_off', start: '2026-03-09T14:00:00Z' })
  await app.leadline.commands.handle(stream, leadDecider, { type: 'RecordAppointmentCancelled', appointmentId: 'apt_off', by: 'calendar', reason: 'deleted in the calendar' }, BOOKING_CONTEXT)
  const types = async () => (await app.leadline.store.readStream(stream)).map((e) => e.type)
  return { app, acme, stream, types, advance: (minutes: number) => (now += minutes * 60_000) }
}

t.test("get_lead: upcoming and past appointments, in the account's zone and the lead's", async (t) => {
  const { app, acme } = await setup(t)
  const lead = (await app.call(acme.keys.read, 'get_lead', jane)).result?.structuredContent
  t.same(lead.appointments.upcoming.map((a: { appointment_id: string }) => a.appointment_id), ['apt_today', 'apt_next'], 'soonest first')
  t.match(lead.appointments.upcoming[0], {
    appointment_id: 'apt_today', type: 'Roof inspection', type_id: 'type_inspection', start: '2026-03-10T18:00:00.000Z', end: '2026-03-10T18:30:00.000Z', status: 'booked', markable: false, booked_by: 'agent',
    account_time: { zone: 'America/New_York', start: '2026-03-10T14:00:00-04:00', end: '2026-03-10T14:30:00-04:00' },
    lead_time: { zone: 'America/Chicago', start: '2026-03-10T13:00:00-05:00' },
  })
  t.match(lead.appointments.upcoming[1], { lead_time: { zone: 'America/Denver', start: '2026-03-11T08:00:00-06:00' } }, 'the zone the booking recorded comes first')
  t.match(lead.appointments.past, [{ appointment_id: 'apt_off', status: 'cancelled', changed_at: START.toISOString() }])
})

t.test('update_lead marks an appointment once it has begun, once; a no-show puts the lead back on follow-up and in get_next_actions', async (t) => {
  const { app, acme, stream, types, advance } = await setup(t)
  const mark = (id: string, outcome: string, key: string, extra: object = {}) => app.call(acme.keys.write, 'update_lead', { ...jane, appointment: { id, outcome }, idempotency_key: key, ...extra })
  const before = await types()
  const early = await mark('apt_today', 'no_show', 'm-0')
  t.equal(early.error?.data.code, 'appointment_not_started')
  t.match(early.error?.message, /mark it once it has begun/)
  t.equal((await mark('apt_nope', 'attended', 'm-1')).error?.data.code, 'appointment_not_found')
  t.equal((await mark('apt_off', 'attended', 'm-2')).error?.data.code, 'appointment_not_booked')
  t.equal((await app.call(acme.keys.write, 'update_lead', { ...jane, appointment: { id: 'apt_today', outcome: 'maybe' }, idempotency_key: 'm-3' })).error?.data.code, 'invalid_arguments')
  t.equal((await mark('apt_today', 'attended', 'm-4', {}).then(() => app.call(acme.keys.read, 'get_lead', jane))).result?.structuredContent.appointments.upcoming.length, 2)
  const mixed = await app.call(acme.keys.write, 'update_lead', { ...jane, email: 'jane@example.org', appointment: { id: 'apt_today', outcome: 'attended' }, idempotency_key: 'm-9' })
  t.equal(mixed.error?.data.code, 'appointment_not_started', 'an edit with a refused mark')
  t.same(await types(), before, 'nothing recorded, the edit neither')

  // Tomorrow's called off (a booking that still stands would hold follow-up back).
  await app.leadline.commands.handle(stream, leadDecider, { type: 'RecordAppointmentCancelled', appointmentId: 'apt_next', by: 'owner', reason: null }, BOOKING_CONTEXT)
  const standing = await types()
  advance(3 * 60 + 40) // 14:40 in New York: it has ended
  const dry = await mark('apt_today', 'no_show', 'm-5', { dry_run: true })
  t.match(dry.result?.structuredContent, { changed: ['appointment'], dry_run: true, appointment: { appointment_id: 'apt_today', status: 'no_show' } })
  t.same(await types(), standing, 'a dry run records nothing')
  const marked = await mark('apt_today', 'no_show', 'm-6')
  t.match(marked.result?.structuredContent, { changed: ['appointment'], appointment: { appointment_id: 'apt_today', status: 'no_show', follow_up_next_at: '2026-03-10T18:40:00.000Z' } })
  t.same((await types()).slice(standing.length), ['AppointmentNoShow', 'FollowUpScheduled'], 'follow-up calls again now, inside the hours')
  const again = await mark('apt_today', 'no_show', 'm-7')
  t.match(again.result?.structuredContent, { changed: [], message: /nothing changed/ })
  t.equal((await types()).length, standing.length + 2, 'the same mark twice: nothing more')

  await app.settle()
  const next = (await app.call(acme.keys.read, 'get_next_actions', {})).result?.structuredContent
  t.match(next.stale_leads[0], { phone: '+13125550142', why: 'appointment_no_show', appointment: { appointment_id: 'apt_today', status: 'no_show', marked: true } })
  const lead = (await app.call(acme.keys.read, 'get_lead', jane)).result?.structuredContent
  t.same(lead.appointments.upcoming, [])
  t.match(lead.appointments.past, [{ appointment_id: 'apt_next', status: 'cancelled', markable: false }, { appointment_id: 'apt_today', status: 'no_show', markable: true }, { appointment_id: 'apt_off' }], 'latest start first')
  t.match(lead.follow_up, { next_at: '2026-03-10T18:40:00.000Z' })

  const corrected = await mark('apt_today', 'attended', 'm-8', { email: 'jane@example.org' })
  t.match(corrected.result?.structuredContent, { changed: ['email', 'appointment'], email: 'jane@example.org', appointment: { status: 'attended', follow_up_next_at: null } }, 'an edit and a mark in one call')
})
