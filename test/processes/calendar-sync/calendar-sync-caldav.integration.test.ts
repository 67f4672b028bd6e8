/**
 * The calendar sync against a real CalDAV server (Radicale on 127.0.0.1, test/support/radicale.ts),
 * through Leadline's own calendar connection and booking tools: an event deleted in the calendar is
 * noticed and the appointment cancelled; an event another client moves (a changed .ics PUT straight to
 * Radicale) is noticed and the appointment moved; the owner's own events are ignored; the sync token
 * is kept on the log; a changed app password is shown to the owner.
 */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { calendarSyncStream } from '../../../src/domain/calendar-sync/calendar-sync.events.ts'
import { operatorContext } from '../../helpers/build-app.ts'
import { manualClock } from '../../helpers/dialing-app.ts'
import { mcpApp } from '../../http/mcp/mcp-helpers.ts'
import { startRadicale, type Radicale } from '../../support/radicale.ts'
import { ownerCalendarApp } from '../../support/radicale-calendars.ts'

const radicale: Radicale = await startRadicale({ username: 'owner', password: 'app-pass-1' })
t.teardown(() => radicale.stop())
const { newCalendar, ownerEvent, basic } = ownerCalendarApp(radicale)

// Monday 9 March 2026, 09:00 in New York (EDT, UTC-4).
const MONDAY_9AM = '2026-03-09T13:00:00Z'
const JANE = '(312) 555-0142'
const BOB = '(415) 555-0101'

async function setUp(t: Parameters<typeof mcpApp>[0]) {
  const calendarUrl = await newCalendar('America/New_York')
  const clock = manualClock(MONDAY_9AM)
  const app = await mcpApp(t, { clock: clock.now, start: false, env: { LEADLINE_SIMULATED_DELAY_MS: '20', LEADLINE_CALENDAR_ALLOW_PRIVATE: '1' } })
  const acme = await app.account('Acme Roofing', { timeZone: 'America/New_York', callingHours: 'mon-fri 09:00-17:00' })
  await acme.pushLead({ name: 'Jane Doe', phone: JANE, state: 'IL' })
  await acme.pushLead({ name: 'Bob Roe', phone: BOB, state: 'CA' })
  await app.leadline.calendars.connect(acme.accountId, { kind: 'caldav', serverUrl: radicale.url, username: 'owner', password: 'app-pass-1' }, operatorContext.actor)
  await app.leadline.calendars.saveType(acme.accountId, { id: 'estimate', name: 'Roof estimate', durationMinutes: 60, bufferMinutes: 0, bookableHours: 'mon-fri 09:00-17:00', minimumNoticeMinutes: 0, maxPerDay: null, calendarId: calendarUrl }, operatorContext.actor)
  const book = async (phone: string, start: string) => {
    const booked = await app.call(acme.keys.write, 'book_appointment', { phone, appointment_type_id: 'estimate', start, idempotency_key: `book-${phone}` })
    if (booked.error) throw new Error(JSON.stringify(booked.error))
    return booked.result?.structuredContent as { appointment_id: string; event_uid: string }
  }
  const leadEvents = async (last10: string, type: string) => (await app.leadline.store.readStream(`lead-${acme.accountId}-${last10}`)).filter((e) => e.type === type)
  return { app, acme, calendarUrl, book, leadEvents }
}

t.test('an event deleted in the calendar and one moved by another client are noticed; the owner\'s own events are not', async (t) => {
  const { app, acme, calendarUrl, book, leadEvents } = await setUp(t)
  const jane = await book(JANE, '2026-03-11T13:00:00.000Z')
  const bob = await book(BOB, '2026-03-11T15:00:00.000Z')
  t.equal(await app.leadline.calendarSync.tick(), 0)
  const saved = (await app.leadline.store.readStream(calendarSyncStream(acme.accountId))).filter((e) => e.type === 'CalendarSyncTokenSaved')
  t.equal(saved.length, 1, 'the sync token is kept on the log')
  t.match(saved[0]?.data, { calendarId: calendarUrl, token: /^http/ })

  // Another client (the owner's phone) rewrites Jane's event at 14:00 Central the next day, and deletes Bob's.
  await ownerEvent(calendarUrl, jane.event_uid, ['DTSTART;TZID=America/Chicago:20260312T140000', 'DTEND;TZID=America/Chicago:20260312T150000', 'SUMMARY:Roof estimate: Jane Doe'], jane.event_uid)
  const deleted = await fetch(`${calendarUrl}${bob.event_uid}.ics`, { method: 'DELETE', headers: basic })
  t.equal(deleted.status, 200)
  await ownerEvent(calendarUrl, 'dentist', ['DTSTART:20260312T130000Z', 'DTEND:20260312T140000Z', 'SUMMARY:Dentist'])

  t.equal(await app.leadline.calendarSync.tick(), 2)
  t.match((await leadEvents('3125550142', 'AppointmentRescheduled')).map((e) => e.data), [{ appointmentId: jane.appointment_id, start: '2026-03-12T19:00:00.000Z', end: '2026-03-12T20:00:00.000Z', by: 'calendar' }])
  t.match((await leadEvents('4155550101', 'AppointmentCancelled')).map((e) => e.data), [{ appointmentId: bob.appointment_id, by: 'calendar', reason: 'deleted in the calendar' }])
  t.equal(await app.leadline.calendarSync.tick(), 0, 'each change once')

  // The freed slot is offered and bookable again; the moved appointment can be moved on by a tool (its new ETag was kept).
  const moved = await app.call(acme.keys.write, 'reschedule_appointment', { phone: JANE, appointment_id: jane.appointment_id, start: '2026-03-13T14:00:00Z', idempotency_key: 'move-on' })
  t.equal(moved.error, undefined, JSON.stringify(moved.error))
  t.equal(await app.leadline.calendarSync.tick(), 0, 'Leadline\'s own move is not taken for an edit in the calendar')
  t.equal((await leadEvents('3125550142', 'AppointmentRescheduled')).length, 2)
  t.match((await leadEvents('3125550142', 'AppointmentRescheduled'))[1]?.data, { by: 'agent' })
})

t.test('a changed app password is logged and shown to the owner until the sync works again', async (t) => {
  const { app, acme, book } = await setUp(t)
  await book(JANE, '2026-03-11T13:00:00.000Z')
  t.equal(await app.leadline.calendarSync.tick(), 0)
  // The owner replaces the app password at the server: the one Leadline holds is refused from now on.
  const users = path.join(radicale.folder, 'users')
  fs.writeFileSync(users, 'owner:app-pass-2\n')
  t.teardown(() => fs.writeFileSync(users, 'owner:app-pass-1\n'))
  await app.leadline.calendarSync.tick()
  const failing = await app.leadline.calendarSync.status(acme.accountId)
  t.match(failing.lastError, { kind: 'unauthorized', message: /refused the credentials/ })
  t.notMatch(JSON.stringify(failing), /app-pass/, 'no password in what the owner is shown')
  await app.leadline.calendarSync.tick()
  t.equal((await app.leadline.store.readStream(calendarSyncStream(acme.accountId))).filter((e) => e.type === 'CalendarSyncFailed').length, 1, 'recorded once while it lasts')

  fs.writeFileSync(users, 'owner:app-pass-1\n')
  await app.leadline.calendarSync.tick()
  t.equal((await app.leadline.calendarSync.status(acme.accountId)).lastError, null, 'cleared once a sync works again')
})
