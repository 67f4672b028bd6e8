/**
 * The calendar sync through the real adapters against the doubles of Google Calendar and Cal.com: two
 * appointments booked through the booking commands, one moved and one deleted by the owner in Google
 * Calendar (or moved and cancelled in Cal.com), both noticed by one sync and recorded once on the leads.
 */
import t from 'tap'
import { Appointments } from '../../../src/commands/appointments.ts'
import { Calendars } from '../../../src/commands/calendars.ts'
import { createCalComCalendar } from '../../../src/integrations/calendar/calcom/index.ts'
import type { CalendarConnection, CalendarCredentials } from '../../../src/integrations/calendar/calendar.port.ts'
import { createGoogleCalendar } from '../../../src/integrations/calendar/google/index.ts'
import { CalendarSync } from '../../../src/processes/calendar-sync/calendar-sync.process.ts'
import { CalendarSyncQueries } from '../../../projections/calendar-sync/calendar-sync.queries.ts'
import { FAKE_CALCOM_KEY, startFakeCalCom } from '../../doubles/fake-calcom.ts'
import { FAKE_GOOGLE_CLIENT_ID, FAKE_GOOGLE_CLIENT_SECRET, FAKE_GOOGLE_OWNER, startFakeGoogle } from '../../doubles/fake-google-calendar.ts'
import { operatorContext } from '../../helpers/build-app.ts'
import { manualClock } from '../../helpers/dialing-app.ts'
import { mcpApp } from '../../http/mcp/mcp-helpers.ts'

// Monday 9 March 2026, 09:00 in New York (EDT, UTC-4).
const MONDAY_9AM = '2026-03-09T13:00:00Z'
const SETTINGS = { timeZone: 'America/New_York', callingHours: 'mon-fri 09:00-17:00' }
const JANE = '3125550142'
const BOB = '4155550101'

async function setUp(t: Parameters<typeof mcpApp>[0], clock: ReturnType<typeof manualClock>, open: (credentials: CalendarCredentials) => Promise<CalendarConnection>, credentials: CalendarCredentials, calendarId: string) {
  const app = await mcpApp(t, { clock: clock.now, start: false })
  const acme = await app.account('Acme Roofing', SETTINGS)
  await acme.pushLead({ name: 'Jane Doe', phone: JANE, state: 'IL' })
  await acme.pushLead({ name: 'Bob Roe', phone: BOB, state: 'CA' })
  const { commands, accounts, secretBox, views, runner } = app.leadline
  // The real commands and process, with the calendar opened by the adapter pointed at the double.
  const calendars = new Calendars({ commands, accounts, secretBox, open })
  await calendars.connect(acme.accountId, credentials, operatorContext.actor)
  await calendars.saveType(acme.accountId, { id: 'estimate', name: 'Roof estimate', durationMinutes: 60, bufferMinutes: 0, bookableHours: 'mon-fri 09:00-17:00', minimumNoticeMinutes: 0, maxPerDay: null, calendarId }, operatorContext.actor)
  const appointments = new Appointments({ commands, accounts, calendars, clock: clock.now, publicUrl: 'https://leads.example.com' })
  const sync = new CalendarSync({ commands, accounts, calendars, queries: new CalendarSyncQueries(views), runner, clock: clock.now })
  const book = async (phoneLast10: string, start: string) =>
    appointments.book({ accountId: acme.accountId, phoneLast10, typeId: 'estimate', start, by: 'agent', actor: operatorContext.actor, idempotencyKey: `book-${phoneLast10}`, dryRun: false })
  const leadEvents = async (last10: string, type: string) => (await app.leadline.store.readStream(`lead-${acme.accountId}-${last10}`)).filter((e) => e.type === type)
  return { app, acme, sync, book, leadEvents }
}

t.test('Google Calendar: an event moved and another deleted by the owner are noticed, each once', async (t) => {
  const clock = manualClock(MONDAY_9AM)
  const google = await startFakeGoogle({ now: clock.now })
  t.teardown(() => google.close())
  const provider = createGoogleCalendar({ endpoints: google.endpoints })
  const credentials = { kind: 'google' as const, refreshToken: google.grant(), clientId: FAKE_GOOGLE_CLIENT_ID, clientSecret: FAKE_GOOGLE_CLIENT_SECRET }
  const { sync, book, leadEvents } = await setUp(t, clock, (c) => provider.connect(c as typeof credentials), credentials, FAKE_GOOGLE_OWNER)
  const jane = await book(JANE, '2026-03-11T13:00:00.000Z')
  const bob = await book(BOB, '2026-03-11T15:00:00.000Z')
  t.equal(await sync.tick(), 0, 'the first look compares and finds nothing to follow')

  const idOf = (uid: string) => `leadline${Buffer.from(uid).toString('hex')}`
  google.ownerMove(FAKE_GOOGLE_OWNER, idOf(jane.eventUid), '2026-03-12T18:00:00Z', '2026-03-12T19:00:00Z')
  google.ownerDelete(FAKE_GOOGLE_OWNER, idOf(bob.eventUid))
  google.ownerEvent(FAKE_GOOGLE_OWNER, { summary: 'Dentist', start: '2026-03-12T13:00:00Z', end: '2026-03-12T14:00:00Z' })
  t.equal(await sync.tick(), 2)
  t.match((await leadEvents(JANE, 'AppointmentRescheduled')).map((e) => e.data), [{ appointmentId: jane.appointmentId, start: '2026-03-12T18:00:00.000Z', end: '2026-03-12T19:00:00.000Z', by: 'calendar' }])
  t.match((await leadEvents(BOB, 'AppointmentCancelled')).map((e) => e.data), [{ appointmentId: bob.appointmentId, by: 'calendar', reason: 'deleted in the calendar' }])
  t.equal(await sync.tick(), 0)
  t.equal((await leadEvents(JANE, 'AppointmentRescheduled')).length, 1)

  google.expireSyncTokens()
  t.equal(await sync.tick(), 0, 'a token Google no longer honours: compared, nothing spurious')
})

t.test('Cal.com: a booking moved and another cancelled in Cal.com are noticed, each once', async (t) => {
  const clock = manualClock(MONDAY_9AM)
  const calcom = await startFakeCalCom({ now: clock.now })
  t.teardown(() => calcom.close())
  const provider = createCalComCalendar({ now: clock.now })
  const credentials = { kind: 'calcom' as const, apiKey: FAKE_CALCOM_KEY, baseUrl: calcom.url, eventTypeId: 501 }
  const { sync, book, leadEvents } = await setUp(t, clock, (c) => provider.connect(c as typeof credentials), credentials, '501')
  const jane = await book(JANE, '2026-03-11T13:00:00.000Z')
  const bob = await book(BOB, '2026-03-11T15:00:00.000Z')
  t.equal(await sync.tick(), 0)

  const bookingOf = (uid: string) => calcom.bookings().find((b) => b.metadata.leadlineUid === uid && b.status === 'accepted')!.uid
  calcom.rescheduleInCalCom(bookingOf(jane.eventUid), '2026-03-12T18:00:00.000Z')
  calcom.cancelInCalCom(bookingOf(bob.eventUid))
  t.equal(await sync.tick(), 2)
  t.match((await leadEvents(JANE, 'AppointmentRescheduled')).map((e) => e.data), [{ appointmentId: jane.appointmentId, start: '2026-03-12T18:00:00.000Z', end: '2026-03-12T19:00:00.000Z', by: 'calendar' }])
  t.match((await leadEvents(BOB, 'AppointmentCancelled')).map((e) => e.data), [{ appointmentId: bob.appointmentId, by: 'calendar', reason: 'deleted in the calendar' }])
  t.equal(await sync.tick(), 0)
  t.equal((await leadEvents(BOB, 'AppointmentCancelled')).length, 1)
})
