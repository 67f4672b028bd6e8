/**
 * The appointment tools through the tool endpoint (issue #45), on the simulated calendar and a clock the
 * test sets: open slots (the owner's events, buffers, notice, hours, full days), booking (one slot, one
 * winner, the next slots offered; the day's last place, one winner), the same key twice, dry runs,
 * moving and cancelling, a calendar that does not answer, and a crash between the claim and the write.
 */
import t from 'tap'
import { appointmentIdFor } from '../../../src/commands/appointments.ts'
import { slotClaimDecider } from '../../../src/domain/appointments/slot-claim.decider.ts'
import { slotClaimStream } from '../../../src/domain/appointments/slot-claim.events.ts'
import { SIMULATED_CALENDAR_ID, simulatedCalendarsOf } from '../../../src/integrations/calendar/simulated/index.ts'
import { manualClock } from '../../helpers/dialing-app.ts'
import { operatorContext } from '../../helpers/build-app.ts'
import { mcpApp } from './mcp-helpers.ts'

// Monday 9 March 2026, 09:00 in New York (EDT, UTC-4).
const MONDAY_9AM = '2026-03-09T13:00:00Z'
const SETTINGS = { timeZone: 'America/New_York', callingHours: 'mon-fri 09:00-17:00' }
const ESTIMATE = { id: 'estimate', name: 'Roof estimate', durationMinutes: 60, bufferMinutes: 15, bookableHours: 'mon-fri 09:00-12:00', minimumNoticeMinutes: 60, maxPerDay: null, calendarId: SIMULATED_CALENDAR_ID }
const CALL = { id: 'call', name: 'Quick call', durationMinutes: 30, bufferMinutes: 0, bookableHours: 'mon-fri 09:00-12:00', minimumNoticeMinutes: 0, maxPerDay: 1, calendarId: SIMULATED_CALENDAR_ID }
const JANE = '(312) 555-0142'
const BOB = '(415) 555-0101'

async function setUp(t: Parameters<typeof mcpApp>[0]) {
  const clock = manualClock(MONDAY_9AM)
  const app = await mcpApp(t, { clock: clock.now, start: false, publicUrl: 'https://leads.example.com' })
  const acme = await app.account('Acme Roofing', SETTINGS)
  const jane = await acme.pushLead({ name: 'Jane Doe', phone: JANE, state: 'IL', source: 'Spring FB' })
  await acme.pushLead({ name: 'Bob Roe', phone: BOB, state: 'CA' })
  await app.leadline.calendars.connect(acme.accountId, { kind: 'simulated' }, operatorContext.actor)
  await app.leadline.calendars.saveType(acme.accountId, ESTIMATE, operatorContext.actor)
  await app.leadline.calendars.saveType(acme.accountId, CALL, operatorContext.actor)
  const calendar = simulatedCalendarsOf(acme.accountId)
  const slots = async (args: Record<string, unknown>) => (await app.call(acme.keys.read, 'list_open_slots', args)).result?.structuredContent
  const leadTypes = async (last10: string) => (await app.leadline.store.readStream(`lead-${acme.accountId}-${last10}`)).map((e) => e.type)
  const slotTypes = async (start: string) => (await app.leadline.store.readStream(slotClaimStream(acme.accountId, start))).map((e) => e.type)
  return { app, acme, jane, clock, calendar, slots, leadTypes, slotTypes }
}

const TUESDAY = { from: '2026-03-10T00:00:00-04:00', to: '2026-03-11T00:00:00-04:00' }

t.test('list_open_slots: the types without one; hours, notice, the owner\'s events and the buffer; both clocks', async (t) => {
  const { calendar, slots } = await setUp(t)
  const types = await slots({})
  t.same(types.appointment_types.map((x: { id: string }) => x.id), ['estimate', 'call'])
  t.same(types.slots, [])

  const monday = await slots({ appointment_type_id: 'estimate', from: '2026-03-09T00:00:00-04:00', to: '2026-03-10T00:00:00-04:00' })
  t.same(monday.slots.map((s: { start: string }) => s.start), ['2026-03-09T14:00:00.000Z', '2026-03-09T15:00:00.000Z'], '09:00 is sooner than the notice; 12:00 is past the hours')

  // The owner's own 10:00-10:30: blocks 10:00, and 09:00 too (its 15-minute buffer reaches 10:15); 11:00 stays open.
  calendar.ownerEvent('dentist', '2026-03-10T14:00:00Z', '2026-03-10T14:30:00Z', 'Dentist')
  const tuesday = await slots({ appointment_type_id: 'estimate', ...TUESDAY, phone: JANE })
  t.same(tuesday.slots, [{ start: '2026-03-10T15:00:00.000Z', end: '2026-03-10T16:00:00.000Z', account_local: '2026-03-10T11:00:00.000-04:00', lead_local: '2026-03-10T10:00:00.000-05:00' }])
  t.equal(tuesday.lead_zone, 'America/Chicago')
  const saturday = await slots({ appointment_type_id: 'estimate', from: '2026-03-14T00:00:00-04:00', to: '2026-03-15T00:00:00-04:00' })
  t.same(saturday.slots, [], 'no hours on Saturday')
  const defaults = await slots({ appointment_type_id: 'estimate' })
  t.equal(defaults.to, '2026-03-16T13:00:00.000Z', 'seven days from now by default')
})

t.test('list_open_slots refuses clearly', async (t) => {
  const { app, acme } = await setUp(t)
  const unknown = await app.call(acme.keys.read, 'list_open_slots', { appointment_type_id: 'massage' })
  t.equal(unknown.error?.data.code, 'appointment_type_not_found')
  t.same(unknown.error?.data.types.map((x: { id: string }) => x.id), ['estimate', 'call'])
  const long = await app.call(acme.keys.read, 'list_open_slots', { appointment_type_id: 'estimate', from: '2026-03-09T00:00:00Z', to: '2026-06-09T00:00:00Z' })
  t.equal(long.error?.data.code, 'range_too_long')
  const write = await app.call(acme.keys.write, 'list_open_slots', {})
  t.equal(write.error?.data.code, 'insufficient_scope')
})

t.test('book_appointment: one event with the lead, no transcript; the same slot again is slot_taken with the next slots', async (t) => {
  const { app, acme, jane, calendar, leadTypes } = await setUp(t)
  const start = '2026-03-11T13:00:00.000Z' // Wednesday 09:00 EDT
  const booked = await app.call(acme.keys.write, 'book_appointment', { phone: JANE, appointment_type_id: 'estimate', start, idempotency_key: 'book-jane' })
  t.equal(booked.error, undefined, JSON.stringify(booked.error))
  const appointment = booked.result?.structuredContent
  t.match(appointment, { status: 'booked', start, end: '2026-03-11T14:00:00.000Z', account_local: '2026-03-11T09:00:00.000-04:00', lead_local: '2026-03-11T08:00:00.000-05:00', provider: 'simulated', dry_run: false, already_done: false })
  t.equal(appointment.appointment_id, appointmentIdFor(acme.accountId, 'book-jane'))
  const events = calendar.list()
  t.equal(events.length, 1)
  t.equal(events[0]?.uid, `leadline-${appointment.appointment_id}`)
  t.equal(events[0]?.summary, 'Roof estimate: Jane Doe')
  t.equal(events[0]?.description, `Lead: Jane Doe\nPhone: +13125550142\nSource: Spring FB\nIn Leadline: https://leads.example.com/app/leads/${jane.leadId}`)
  t.ok((await leadTypes('3125550142')).includes('AppointmentBooked'))

  const second = await app.call(acme.keys.all, 'book_appointment', { phone: BOB, appointment_type_id: 'estimate', start, idempotency_key: 'book-bob' })
  t.equal(second.error?.data.code, 'slot_taken')
  // 10:00 is inside the booked hour's buffer; 11:00 is next.
  t.equal(second.error?.data.next_slots[0].start, '2026-03-11T15:00:00.000Z')
  t.equal(calendar.list().length, 1, 'still one event')
  t.notOk((await leadTypes('4155550101')).includes('AppointmentBooked'))
})

t.test('maxPerDay: two bookings racing for the day\'s last place, one wins; the full day is hidden', async (t) => {
  const { app, acme, calendar, slots } = await setUp(t)
  const answers = await Promise.all([
    app.call(acme.keys.write, 'book_appointment', { phone: JANE, appointment_type_id: 'call', start: '2026-03-12T13:00:00Z', idempotency_key: 'race-jane' }),
    app.call(acme.keys.write, 'book_appointment', { phone: BOB, appointment_type_id: 'call', start: '2026-03-12T14:00:00Z', idempotency_key: 'race-bob' }),
  ])
  t.same(answers.map((a) => a.error?.data.code ?? 'booked').sort(), ['booked', 'day_full'])
  t.equal(calendar.list().length, 1, 'one event')
  const thursday = await slots({ appointment_type_id: 'call', from: '2026-03-12T00:00:00-04:00', to: '2026-03-14T00:00:00-04:00' })
  t.ok(thursday.slots.length > 0)
  t.ok(thursday.slots.every((s: { start: string }) => s.start.startsWith('2026-03-13')), 'Thursday is full; Friday is open')
})

t.test('the same idempotency key twice: one appointment, one event; a dry run writes nothing', async (t) => {
  const { app, acme, calendar, leadTypes, slotTypes } = await setUp(t)
  const args = { phone: JANE, appointment_type_id: 'estimate', start: '2026-03-10T15:00:00Z' }
  const before = await leadTypes('3125550142')
  const dry = await app.call(acme.keys.write, 'book_appointment', { ...args, idempotency_key: 'k1', dry_run: true })
  t.match(dry.result?.structuredContent, { dry_run: true, status: 'booked', start: '2026-03-10T15:00:00.000Z', appointment_id: appointmentIdFor(acme.accountId, 'k1') })
  t.same(calendar.list(), [], 'nothing in the calendar')
  t.same(await slotTypes('2026-03-10T15:00:00.000Z'), [], 'nothing claimed')
  t.same(await leadTypes('3125550142'), before, 'nothing recorded')

  const answers = await Promise.all(Array.from({ length: 5 }, () => app.call(acme.keys.write, 'book_appointment', { ...args, idempotency_key: 'k1' })))
  t.ok(answers.every((a) => JSON.stringify(a.result?.structuredContent) === JSON.stringify(answers[0]?.result?.structuredContent)), 'every answer is the first')
  t.equal(calendar.list().length, 1)
  t.same(await slotTypes('2026-03-10T15:00:00.000Z'), ['SlotClaimed', 'SlotEventWritten'])
  t.equal((await leadTypes('3125550142')).filter((x) => x === 'AppointmentBooked').length, 1)
  const busyDry = await app.call(acme.keys.write, 'book_appointment', { phone: BOB, appointment_type_id: 'estimate', start: '2026-03-10T15:00:00Z', idempotency_key: 'k2', dry_run: true })
  t.equal(busyDry.error?.data.code, 'slot_taken', 'a dry run says the slot is taken')
})

t.test('reschedule_appointment moves the same event and frees the old slot; cancel_appointment deletes it', async (t) => {
  const { app, acme, calendar, slots, leadTypes, slotTypes } = await setUp(t)
  const booked = (await app.call(acme.keys.write, 'book_appointment', { phone: JANE, appointment_type_id: 'estimate', start: '2026-03-10T15:00:00Z', idempotency_key: 'b' })).result?.structuredContent
  const id = booked.appointment_id
  const dry = await app.call(acme.keys.write, 'reschedule_appointment', { phone: JANE, appointment_id: id, start: '2026-03-13T13:00:00Z', idempotency_key: 'r', dry_run: true })
  t.match(dry.result?.structuredContent, { dry_run: true, start: '2026-03-13T13:00:00.000Z', previous_start: '2026-03-10T15:00:00.000Z' })
  t.same(calendar.list().map((e) => e.start), ['2026-03-10T15:00:00.000Z'], 'the dry run moved nothing')

  const moved = await app.call(acme.keys.write, 'reschedule_appointment', { phone: JANE, appointment_id: id, start: '2026-03-13T13:00:00Z', idempotency_key: 'r' })
  t.match(moved.result?.structuredContent, { appointment_id: id, start: '2026-03-13T13:00:00.000Z', previous_start: '2026-03-10T15:00:00.000Z', status: 'booked' })
  t.same(calendar.list().map((e) => [e.uid, e.start]), [[`leadline-${id}`, '2026-03-13T13:00:00.000Z']], 'the same event, moved')
  t.same(await slotTypes('2026-03-10T15:00:00.000Z'), ['SlotClaimed', 'SlotEventWritten', 'SlotReleased'])
  t.ok((await slots({ appointment_type_id: 'estimate', ...TUESDAY })).slots.some((s: { start: string }) => s.start === '2026-03-10T15:00:00.000Z'), 'the old slot is open again')
  t.ok((await leadTypes('3125550142')).includes('AppointmentRescheduled'))

  const unknown = await app.call(acme.keys.write, 'reschedule_appointment', { phone: JANE, appointment_id: 'apt_nope', start: '2026-03-13T14:00:00Z', idempotency_key: 'r2' })
  t.equal(unknown.error?.data.code, 'appointment_not_found')

  const cancelled = await app.call(acme.keys.write, 'cancel_appointment', { phone: JANE, appointment_id: id, reason: 'lead asked', idempotency_key: 'c' })
  t.match(cancelled.result?.structuredContent, { status: 'cancelled', calendar_event: 'deleted' })
  t.same(calendar.list(), [])
  t.same(await slotTypes('2026-03-13T13:00:00.000Z'), ['SlotClaimed', 'SlotEventWritten', 'SlotReleased'])
  const again = await app.call(acme.keys.write, 'cancel_appointment', { phone: JANE, appointment_id: id, idempotency_key: 'c2' })
  t.match(again.result?.structuredContent, { status: 'cancelled', already_done: true })
  const moveCancelled = await app.call(acme.keys.write, 'reschedule_appointment', { phone: JANE, appointment_id: id, start: '2026-03-13T14:00:00Z', idempotency_key: 'r3' })
  t.equal(moveCancelled.error?.data.code, 'appointment_not_booked')
})

t.test('a calendar that does not answer: the claim is kept and reported; the retry with the same key finds the one event', async (t) => {
  const { app, acme, calendar, leadTypes, slotTypes } = await setUp(t)
  // The write lands but its answer is lost, and the one retry inside the command times out before acting.
  calendar.failNext('create', 'timeout_after_write')
  calendar.failNext('create', 'timeout_before_write')
  const args = { phone: JANE, appointment_type_id: 'estimate', start: '2026-03-10T15:00:00Z', idempotency_key: 'slow' }
  const first = await app.call(acme.keys.write, 'book_appointment', args)
  t.equal(first.error?.data.code, 'calendar_unknown_outcome')
  t.same(await slotTypes('2026-03-10T15:00:00.000Z'), ['SlotClaimed'], 'the slot stays held')
  t.notOk((await leadTypes('3125550142')).includes('AppointmentBooked'))
  const other = await app.call(acme.keys.write, 'book_appointment', { phone: BOB, appointment_type_id: 'estimate', start: '2026-03-10T15:00:00Z', idempotency_key: 'bob' })
  t.equal(other.error?.data.code, 'slot_taken', 'nobody else takes it meanwhile')

  const retry = await app.call(acme.keys.write, 'book_appointment', args)
  t.equal(retry.error, undefined, JSON.stringify(retry.error))
  t.equal(retry.result?.structuredContent.status, 'booked')
  t.equal(calendar.list().length, 1, 'one event')
  t.same(await slotTypes('2026-03-10T15:00:00.000Z'), ['SlotClaimed', 'SlotEventWritten'])
})

t.test('a crash between the claim and the calendar write: the booking run again makes one event', async (t) => {
  const { app, acme, calendar } = await setUp(t)
  const id = appointmentIdFor(acme.accountId, 'crashy')
  const start = '2026-03-10T15:00:00.000Z'
  // The claim landed, then the process died before the calendar was asked.
  await app.leadline.commands.handle(slotClaimStream(acme.accountId, start), slotClaimDecider, { type: 'ClaimSlot', accountId: acme.accountId, start, end: '2026-03-10T16:00:00.000Z', bookingId: id, appointmentTypeId: 'estimate', calendarId: SIMULATED_CALENDAR_ID }, operatorContext)
  const booked = await app.call(acme.keys.write, 'book_appointment', { phone: JANE, appointment_type_id: 'estimate', start, idempotency_key: 'crashy' })
  t.equal(booked.result?.structuredContent.appointment_id, id)
  const input = { accountId: acme.accountId, phoneLast10: '3125550142', typeId: 'estimate', start, by: 'agent' as const, actor: operatorContext.actor, idempotencyKey: 'crashy', dryRun: false }
  const again = await app.leadline.appointments.book(input)
  t.equal(again.alreadyDone, true, 'run again, it is the same booking')
  t.equal(calendar.list().length, 1, 'one event')
})

t.test('appointment types: the calendar must be the connection\'s; a lead must exist', async (t) => {
  const { app, acme } = await setUp(t)
  await t.rejects(app.leadline.calendars.saveType(acme.accountId, { ...ESTIMATE, id: 'x', calendarId: 'https://elsewhere/cal/' }, operatorContext.actor), { code: 'unknown_calendar' })
  await t.rejects(app.leadline.calendars.saveType(acme.accountId, { ...ESTIMATE, durationMinutes: 1 }, operatorContext.actor), { code: 'invalid_appointment_type' })
  await app.leadline.calendars.removeType(acme.accountId, 'call', operatorContext.actor)
  t.same((await app.leadline.calendars.setup(acme.accountId)).types.map((x) => x.id), ['estimate'])
  const nobody = await app.call(acme.keys.write, 'book_appointment', { phone: '(212) 555-0199', appointment_type_id: 'estimate', start: '2026-03-10T15:00:00Z', idempotency_key: 'nobody' })
  t.equal(nobody.error?.data.code, 'lead_not_found')
  const other = await app.account('Other Agency', SETTINGS)
  for (const dryRun of [true, false]) {
    const theirs = await app.call(other.keys.write, 'book_appointment', { phone: JANE, appointment_type_id: 'estimate', start: '2026-03-10T15:00:00Z', idempotency_key: `other-${dryRun}`, dry_run: dryRun })
    t.equal(theirs.error?.data.code, 'lead_not_found', "another account's key cannot book Jane")
  }
  await app.leadline.calendars.disconnect(acme.accountId, operatorContext.actor)
  const none = await app.call(acme.keys.write, 'book_appointment', { phone: JANE, appointment_type_id: 'estimate', start: '2026-03-10T15:00:00Z', idempotency_key: 'none' })
  t.equal(none.error?.data.code, 'calendar_not_connected')
})
