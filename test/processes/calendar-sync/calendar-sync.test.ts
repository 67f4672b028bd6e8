/**
 * The calendar sync (issue #45) on the simulated calendar and a clock the test sets: the owner moves a
 * booked appointment's event → the lead's appointment moves `by: calendar`, its slot and day follow and
 * its reminders are planned for the new time; the owner deletes it → cancelled, the slot bookable again;
 * the owner's own events are ignored; a move onto another booking's time is recorded and flagged; every
 * change is recorded once (repeated syncs, two nodes at once, a restart half-way); a token the calendar
 * no longer honours is answered by comparison; an idle account is not polled; a refusal is shown.
 */
import t from 'tap'
import { slotClaimDecider } from '../../../src/domain/appointments/slot-claim.decider.ts'
import { slotClaimStream } from '../../../src/domain/appointments/slot-claim.events.ts'
import { calendarSyncStream } from '../../../src/domain/calendar-sync/calendar-sync.events.ts'
import { SIMULATED_CALENDAR_ID, simulatedCalendarsOf } from '../../../src/integrations/calendar/simulated/index.ts'
import { SETTLE_MS } from '../../../src/processes/calendar-sync/follow-calendar-edit.ts'
import { buildApp, operatorContext } from '../../helpers/build-app.ts'
import { manualClock } from '../../helpers/dialing-app.ts'
import { mcpApp } from '../../http/mcp/mcp-helpers.ts'

// Monday 9 March 2026, 09:00 in New York (EDT, UTC-4).
const MONDAY_9AM = '2026-03-09T13:00:00Z'
const SETTINGS = { timeZone: 'America/New_York', callingHours: 'mon-fri 09:00-17:00' }
const ESTIMATE = { id: 'estimate', name: 'Roof estimate', durationMinutes: 60, bufferMinutes: 0, bookableHours: 'mon-fri 09:00-17:00', minimumNoticeMinutes: 60, maxPerDay: null, calendarId: SIMULATED_CALENDAR_ID }
const JANE = '(312) 555-0142'
const BOB = '(415) 555-0101'
const WEDNESDAY_9 = '2026-03-11T13:00:00.000Z'
const WEDNESDAY_11 = '2026-03-11T15:00:00.000Z'
const THURSDAY_14 = '2026-03-12T18:00:00.000Z'
const HOUR = 3_600_000

async function setUp(t: Parameters<typeof mcpApp>[0], options: { store?: 'sqlite' } = {}) {
  const clock = manualClock(MONDAY_9AM)
  const app = await mcpApp(t, { clock: clock.now, start: false, publicUrl: 'https://leads.example.com', ...options })
  const acme = await app.account('Acme Roofing', SETTINGS)
  await acme.pushLead({ name: 'Jane Doe', phone: JANE, state: 'IL' })
  await acme.pushLead({ name: 'Bob Roe', phone: BOB, state: 'CA' })
  await app.leadline.calendars.connect(acme.accountId, { kind: 'simulated' }, operatorContext.actor)
  await app.leadline.calendars.saveType(acme.accountId, ESTIMATE, operatorContext.actor)
  const calendar = simulatedCalendarsOf(acme.accountId)
  const book = async (phone: string, start: string, key: string) => {
    const booked = await app.call(acme.keys.write, 'book_appointment', { phone, appointment_type_id: 'estimate', start, idempotency_key: key })
    if (booked.error) throw new Error(JSON.stringify(booked.error))
    return booked.result?.structuredContent as { appointment_id: string; start: string }
  }
  const leadEvents = async (last10: string, type?: string) =>
    (await app.leadline.store.readStream(`lead-${acme.accountId}-${last10}`)).filter((e) => type === undefined || e.type === type)
  const holder = async (start: string) => (await app.leadline.commands.load(slotClaimStream(acme.accountId, start), slotClaimDecider)).state.bookingId
  return { app, acme, clock, calendar, book, leadEvents, holder }
}

const uid = (appointmentId: string) => `leadline-${appointmentId}`

t.test('the owner moves the event: the appointment moves by the calendar, its slot follows, its reminders are planned anew', async (t) => {
  const { app, acme, calendar, book, leadEvents, holder } = await setUp(t)
  const jane = await book(JANE, WEDNESDAY_9, 'jane')
  t.equal(await app.leadline.calendarSync.tick(), 0, 'nothing edited yet: nothing followed')
  await app.leadline.appointmentReminders.tick()

  calendar.ownerMove(uid(jane.appointment_id), THURSDAY_14, '2026-03-12T19:30:00Z')
  t.equal(await app.leadline.calendarSync.tick(), 1)
  const moved = await leadEvents('3125550142', 'AppointmentRescheduled')
  t.equal(moved.length, 1)
  t.match(moved[0]?.data, { appointmentId: jane.appointment_id, previousStart: WEDNESDAY_9, start: THURSDAY_14, end: '2026-03-12T19:30:00.000Z', by: 'calendar' })
  t.equal(moved[0]?.metadata.actor.id, 'calendar-sync')
  t.equal(await holder(THURSDAY_14), jane.appointment_id, 'the new slot is the booking\'s')
  t.equal(await holder(WEDNESDAY_9), null, 'the old slot is free')
  const days = await app.leadline.store.readStream(`apptday-${acme.accountId}-estimate-2026-03-12`)
  t.same(days.map((e) => e.type), ['DayPlaceClaimed'])
  t.same((await app.leadline.store.readStream(`apptday-${acme.accountId}-estimate-2026-03-11`)).map((e) => e.type), ['DayPlaceClaimed', 'DayPlaceReleased'])

  // The reminders follow the lead's event by themselves: a plan for the new start, reminders 24 h and 1 h before it.
  await app.leadline.appointmentReminders.tick()
  const plans = await leadEvents('3125550142', 'AppointmentTextsScheduled')
  const plan = plans.at(-1)?.data as { start: string; texts: { kind: string; dueAt: string }[] }
  t.equal(plans.length, 2)
  t.equal(plan.start, THURSDAY_14)
  t.same(plan.texts.filter((x) => x.kind === 'reminder').map((x) => x.dueAt).sort(), [new Date(Date.parse(THURSDAY_14) - 24 * HOUR).toISOString(), new Date(Date.parse(THURSDAY_14) - HOUR).toISOString()])

  t.equal(await app.leadline.calendarSync.tick(), 0, 'the same change is not followed twice')
  t.equal((await leadEvents('3125550142', 'AppointmentRescheduled')).length, 1)
  const status = await app.leadline.calendarSync.status(acme.accountId)
  t.equal(status.lastError, null)
  t.equal(status.lastSyncAt, MONDAY_9AM.replace('Z', '.000Z'))
})

t.test('the owner deletes the event: cancelled by the calendar, the slot free and bookable again', async (t) => {
  const { app, calendar, book, leadEvents, holder } = await setUp(t)
  const jane = await book(JANE, WEDNESDAY_9, 'jane')
  await app.leadline.calendarSync.tick()
  t.ok(calendar.ownerDelete(uid(jane.appointment_id)))
  t.equal(await app.leadline.calendarSync.tick(), 1)
  const cancelled = await leadEvents('3125550142', 'AppointmentCancelled')
  t.equal(cancelled.length, 1)
  t.match(cancelled[0]?.data, { appointmentId: jane.appointment_id, by: 'calendar', reason: 'deleted in the calendar' })
  t.same((await leadEvents('3125550142')).map((e) => e.type).slice(-2), ['AppointmentCancelled', 'FollowUpScheduled'], 'the lead goes back on follow-up, as after cancel_appointment')
  t.equal(await holder(WEDNESDAY_9), null)
  const bob = await book(BOB, WEDNESDAY_9, 'bob')
  t.equal(bob.start, WEDNESDAY_9, 'another lead books the freed slot')
  t.equal(await app.leadline.calendarSync.tick(), 0)
  t.equal((await leadEvents('3125550142', 'AppointmentCancelled')).length, 1)
})

t.test('the owner\'s own events are ignored, whatever is done to them', async (t) => {
  const { app, acme, calendar, book, leadEvents } = await setUp(t)
  await book(JANE, WEDNESDAY_9, 'jane')
  await app.leadline.calendarSync.tick()
  const before = (await leadEvents('3125550142')).length
  calendar.ownerEvent('dentist', '2026-03-11T16:00:00Z', '2026-03-11T17:00:00Z', 'Dentist')
  t.equal(await app.leadline.calendarSync.tick(), 0)
  calendar.ownerMove('dentist', WEDNESDAY_9, '2026-03-11T14:00:00Z')
  t.equal(await app.leadline.calendarSync.tick(), 0)
  calendar.ownerDelete('dentist')
  t.equal(await app.leadline.calendarSync.tick(), 0)
  t.equal((await leadEvents('3125550142')).length, before, 'nothing recorded on the lead')
  t.equal((await app.leadline.calendarSync.status(acme.accountId)).lastError, null)
})

t.test('a move onto another booking\'s time is recorded all the same and flagged for the owner', async (t) => {
  const { app, acme, calendar, book, leadEvents, holder } = await setUp(t)
  const jane = await book(JANE, WEDNESDAY_9, 'jane')
  const bob = await book(BOB, WEDNESDAY_11, 'bob')
  calendar.ownerMove(uid(jane.appointment_id), WEDNESDAY_11, '2026-03-11T16:00:00Z')
  t.equal(await app.leadline.calendarSync.tick(), 1)
  t.match((await leadEvents('3125550142', 'AppointmentRescheduled'))[0]?.data, { start: WEDNESDAY_11, by: 'calendar' })
  t.equal(await holder(WEDNESDAY_11), bob.appointment_id, 'the slot stays Bob\'s')
  t.equal(await holder(WEDNESDAY_9), null)
  const { conflicts } = await app.leadline.calendarSync.status(acme.accountId)
  t.match(conflicts, [{ appointmentId: jane.appointment_id, start: WEDNESDAY_11, kind: 'slot_taken', otherBookingId: bob.appointment_id }])
  await app.leadline.calendarSync.tick()
  t.equal((await app.leadline.store.readStream(calendarSyncStream(acme.accountId))).filter((e) => e.type === 'CalendarEditConflict').length, 1, 'flagged once')
})

t.test('a token the calendar no longer honours: every appointment compared, nothing spurious; edits still noticed', async (t) => {
  const { app, calendar, book, leadEvents } = await setUp(t)
  const jane = await book(JANE, WEDNESDAY_9, 'jane')
  const bob = await book(BOB, WEDNESDAY_11, 'bob')
  calendar.ownerEvent('dentist', '2026-03-11T18:00:00Z', '2026-03-11T19:00:00Z', 'Dentist')
  await app.leadline.calendarSync.tick()
  const before = [(await leadEvents('3125550142')).length, (await leadEvents('4155550101')).length]
  calendar.expireTokens()
  t.equal(await app.leadline.calendarSync.tick(), 0, 'a full listing is no change')
  t.same([(await leadEvents('3125550142')).length, (await leadEvents('4155550101')).length], before)
  // Edits made while the token had lapsed are found by the comparison: a full listing names no deletion, the event's absence does.
  calendar.ownerMove(uid(jane.appointment_id), THURSDAY_14, '2026-03-12T19:00:00Z')
  calendar.ownerDelete(uid(bob.appointment_id))
  calendar.expireTokens()
  t.equal(await app.leadline.calendarSync.tick(), 2)
  t.match((await leadEvents('3125550142', 'AppointmentRescheduled'))[0]?.data, { start: THURSDAY_14, by: 'calendar' })
  t.match((await leadEvents('4155550101', 'AppointmentCancelled'))[0]?.data, { by: 'calendar', reason: 'deleted in the calendar' })
})

t.test('a sync that fails half-way is repeated after a restart: each change recorded once; the failure shown meanwhile', async (t) => {
  const { app, acme, calendar, book, leadEvents } = await setUp(t, { store: 'sqlite' })
  const jane = await book(JANE, WEDNESDAY_9, 'jane')
  const bob = await book(BOB, WEDNESDAY_11, 'bob')
  await app.leadline.calendarSync.tick()
  calendar.ownerMove(uid(jane.appointment_id), THURSDAY_14, '2026-03-12T19:00:00Z')
  calendar.ownerDelete(uid(bob.appointment_id))
  // Jane's move is followed; reading Bob's event then fails: the token is not saved.
  calendar.failNext('get', 'unreachable', 1)
  await app.leadline.calendarSync.tick()
  t.equal((await leadEvents('3125550142', 'AppointmentRescheduled')).length, 1)
  t.equal((await leadEvents('4155550101', 'AppointmentCancelled')).length, 0)
  t.match((await app.leadline.calendarSync.status(acme.accountId)).lastError, { kind: 'unreachable' })

  // A restart: a new Leadline on the same log, its own read models, no memory of the first.
  const restarted = await buildApp(t, { sameLogAs: app, start: false, clock: app.leadline.clock })
  await restarted.leadline.runner.catchUp()
  t.equal(await restarted.leadline.calendarSync.tick(), 1, 'only Bob\'s deletion is new')
  t.equal((await leadEvents('3125550142', 'AppointmentRescheduled')).length, 1, 'Jane moved once')
  t.equal((await leadEvents('4155550101', 'AppointmentCancelled')).length, 1)
  t.equal((await restarted.leadline.calendarSync.status(acme.accountId)).lastError, null, 'the failure clears once a sync works')
})

t.test('two nodes syncing at once record each change once', async (t) => {
  const { app, calendar, book, leadEvents } = await setUp(t, { store: 'sqlite' })
  const jane = await book(JANE, WEDNESDAY_9, 'jane')
  const bob = await book(BOB, WEDNESDAY_11, 'bob')
  const other = await buildApp(t, { sameLogAs: app, start: false, clock: app.leadline.clock })
  await other.leadline.runner.catchUp()
  calendar.ownerMove(uid(jane.appointment_id), THURSDAY_14, '2026-03-12T19:00:00Z')
  calendar.ownerDelete(uid(bob.appointment_id))
  await Promise.all([app.leadline.calendarSync.tick(), other.leadline.calendarSync.tick()])
  t.equal((await leadEvents('3125550142', 'AppointmentRescheduled')).length, 1)
  t.equal((await leadEvents('4155550101', 'AppointmentCancelled')).length, 1)
})

t.test('Leadline\'s own move under way is left to it; one that died half-way is followed once it has settled', async (t) => {
  const { app, acme, clock, calendar, book, leadEvents, holder } = await setUp(t)
  const jane = await book(JANE, WEDNESDAY_9, 'jane')
  await app.leadline.calendarSync.tick()
  // A reschedule claimed the new slot and moved the event, then stopped before recording it on the lead.
  await app.leadline.commands.handle(slotClaimStream(acme.accountId, THURSDAY_14), slotClaimDecider, {
    type: 'ClaimSlot', accountId: acme.accountId, start: THURSDAY_14, end: '2026-03-12T19:00:00.000Z', bookingId: jane.appointment_id, appointmentTypeId: 'estimate', calendarId: SIMULATED_CALENDAR_ID,
  }, { actor: { kind: 'api_key', id: 'key_agent' } })
  calendar.ownerMove(uid(jane.appointment_id), THURSDAY_14, '2026-03-12T19:00:00Z')
  t.equal(await app.leadline.calendarSync.tick(), 0, 'left to the move under way')
  t.equal((await leadEvents('3125550142', 'AppointmentRescheduled')).length, 0)
  clock.advance(SETTLE_MS)
  t.equal(await app.leadline.calendarSync.tick(), 1, 'the same change asked for again, and followed')
  t.match((await leadEvents('3125550142', 'AppointmentRescheduled'))[0]?.data, { start: THURSDAY_14, by: 'calendar' })
  t.equal(await holder(WEDNESDAY_9), null)
})

t.test('an account with no appointments to come is not polled; a refused calendar is shown to the owner, then cleared', async (t) => {
  const { app, acme, calendar, book } = await setUp(t)
  calendar.failNext('changes', 'unauthorized')
  await app.leadline.calendarSync.tick()
  t.same(await app.leadline.calendarSync.status(acme.accountId), { lastSyncAt: null, lastError: null, conflicts: [] }, 'not asked: nothing booked')

  await book(JANE, WEDNESDAY_9, 'jane')
  await app.leadline.calendarSync.tick()
  const failing = await app.leadline.calendarSync.status(acme.accountId)
  t.match(failing.lastError, { kind: 'unauthorized', message: /refused/ })
  await app.leadline.calendarSync.tick()
  t.equal((await app.leadline.calendarSync.status(acme.accountId)).lastError, null)
  t.ok((await app.leadline.store.readStream(calendarSyncStream(acme.accountId))).some((e) => e.type === 'CalendarSyncRecovered'))
})

t.test('the interval is configurable and checked', async (t) => {
  const { calendarSyncSecondsFromEnv } = await import('../../../src/config/config.ts')
  t.equal(calendarSyncSecondsFromEnv({}), 60)
  t.equal(calendarSyncSecondsFromEnv({ LEADLINE_CALENDAR_SYNC_SECONDS: '300' }), 300)
  t.throws(() => calendarSyncSecondsFromEnv({ LEADLINE_CALENDAR_SYNC_SECONDS: '1' }), /LEADLINE_CALENDAR_SYNC_SECONDS: must be a whole number of seconds from 5/)
})


t.test('the sync itself stopped half-way (new slot claimed, old given back, nothing on the lead): the next look finishes it at once', async (t) => {
  const { app, acme, calendar, book, leadEvents, holder } = await setUp(t)
  const jane = await book(JANE, WEDNESDAY_9, 'jane')
  await app.leadline.calendarSync.tick()
  calendar.ownerMove(uid(jane.appointment_id), THURSDAY_14, '2026-03-12T19:00:00Z')
  const bySync = { actor: { kind: 'process', id: 'calendar-sync' } } as const
  const slot = { accountId: acme.accountId, bookingId: jane.appointment_id }
  await app.leadline.commands.handle(slotClaimStream(acme.accountId, THURSDAY_14), slotClaimDecider, { type: 'ClaimSlot', ...slot, start: THURSDAY_14, end: '2026-03-12T19:00:00.000Z', appointmentTypeId: 'estimate', calendarId: SIMULATED_CALENDAR_ID }, bySync)
  await app.leadline.commands.handle(slotClaimStream(acme.accountId, WEDNESDAY_9), slotClaimDecider, { type: 'ReleaseSlot', ...slot, start: WEDNESDAY_9, reason: 'rescheduled' }, bySync)
  t.equal(await app.leadline.calendarSync.tick(), 1, 'not taken for Leadline\'s own move: finished now')
  t.match((await leadEvents('3125550142', 'AppointmentRescheduled')).map((e) => e.data), [{ start: THURSDAY_14, by: 'calendar' }])
  t.equal(await holder(THURSDAY_14), jane.appointment_id)
  t.same((await app.leadline.store.readStream(slotClaimStream(acme.accountId, THURSDAY_14))).filter((e) => e.type === 'SlotClaimed').length, 1, 'claimed once')
})
