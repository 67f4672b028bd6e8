/**
 * The CalDAV calendar against a real CalDAV server (Radicale 3 on 127.0.0.1, test/support/radicale.ts):
 * connecting, the owner's own events as busy time, one event per UID however often it is written,
 * updates, deletes, and a change made in the calendar noticed through the sync token.
 */
import t from 'tap'
import { createCalDavCalendar } from '../../../src/integrations/calendar/caldav/index.ts'
import { CalendarError, type CalendarConnection } from '../../../src/integrations/calendar/calendar.port.ts'
import { startRadicale, type Radicale } from '../../support/radicale.ts'
import { ownerCalendarApp } from '../../support/radicale-calendars.ts'

const radicale: Radicale = await startRadicale({ username: 'owner', password: 'app-pass-1' })
t.teardown(() => radicale.stop())
const credentials = { kind: 'caldav' as const, serverUrl: radicale.url, username: 'owner', password: 'app-pass-1' }
const { newCalendar, ownerEvent, filesIn, basic } = ownerCalendarApp(radicale)

const connect = (): Promise<CalendarConnection> => createCalDavCalendar().connect(credentials)
const draft = (uid: string, start: string, end: string) => ({ uid, start, end, summary: 'Roof estimate: Ann Lee', description: 'Phone +15551230000' })

t.test('connect checks the credentials and lists the calendars with their zones', async (t) => {
  const url = await newCalendar('Europe/Berlin')
  const calendar = await connect()
  const listed = await calendar.listCalendars()
  t.match(listed, [{ id: url, name: 'Jobs 1', timeZone: 'Europe/Berlin' }])

  const wrong = createCalDavCalendar().connect({ ...credentials, password: 'nope' })
  await t.rejects(wrong, { name: 'CalendarError', kind: 'unauthorized' })
  const nobody = createCalDavCalendar({ timeoutMs: 2_000 }).connect({ ...credentials, serverUrl: 'http://127.0.0.1:9/' })
  await t.rejects(nobody, { name: 'CalendarError', kind: 'unreachable' })
})

t.test("the owner's own events are busy: zoned, recurring and all-day; free and cancelled ones are not", async (t) => {
  const url = await newCalendar()
  await ownerEvent(url, 'dentist', ['DTSTART;TZID=America/New_York:20260310T090000', 'DTEND;TZID=America/New_York:20260310T100000'])
  await ownerEvent(url, 'overlap', ['DTSTART:20260310T133000Z', 'DTEND:20260310T150000Z'])
  await ownerEvent(url, 'standup', ['DTSTART;TZID=America/New_York:20260302T080000', 'DURATION:PT30M', 'RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=4'])
  await ownerEvent(url, 'holiday', ['DTSTART;VALUE=DATE:20260312', 'DTEND;VALUE=DATE:20260313'])
  await ownerEvent(url, 'reminder', ['DTSTART:20260311T150000Z', 'DTEND:20260311T160000Z', 'TRANSP:TRANSPARENT'])
  await ownerEvent(url, 'called-off', ['DTSTART:20260311T170000Z', 'DTEND:20260311T180000Z', 'STATUS:CANCELLED'])
  await ownerEvent(url, 'last-month', ['DTSTART:20260201T150000Z', 'DTEND:20260201T160000Z'])

  const calendar = await connect()
  const busy = await calendar.busy(url, { start: '2026-03-09T00:00:00.000Z', end: '2026-03-14T00:00:00.000Z' }, 'America/New_York')
  t.same(busy, [
    // Monday 9 March, after the US switch to daylight time on the 8th: 08:00 EDT is 12:00Z.
    { start: '2026-03-09T12:00:00.000Z', end: '2026-03-09T12:30:00.000Z' },
    // 09:00-10:00 EDT and the owner's 13:30Z-15:00Z event, which meets it: one merged interval.
    { start: '2026-03-10T13:00:00.000Z', end: '2026-03-10T15:00:00.000Z' },
    // The all-day 12 March, in the calendar's zone (EDT midnight to midnight).
    { start: '2026-03-12T04:00:00.000Z', end: '2026-03-13T04:00:00.000Z' },
  ])
  const before = await calendar.busy(url, { start: '2026-03-02T00:00:00.000Z', end: '2026-03-03T00:00:00.000Z' }, 'America/New_York')
  t.same(before, [{ start: '2026-03-02T13:00:00.000Z', end: '2026-03-02T13:30:00.000Z' }], 'the same standup in EST is 13:00Z')

  // The owner moves the holiday to the 13th in their own app: a new version (ETag), read again, not the one kept.
  await ownerEvent(url, 'holiday', ['DTSTART;VALUE=DATE:20260313', 'DTEND;VALUE=DATE:20260314'])
  const after = await calendar.busy(url, { start: '2026-03-09T00:00:00.000Z', end: '2026-03-14T00:00:00.000Z' }, 'America/New_York')
  t.same(after.slice(2), [{ start: '2026-03-13T04:00:00.000Z', end: '2026-03-14T04:00:00.000Z' }], 'the edited event at its new time, the old time free')
})

t.test('create, update with the ETag, delete: each once, and what the calendar then says', async (t) => {
  const url = await newCalendar()
  const calendar = await connect()
  const created = await calendar.createEvent(url, draft('booking-abc123', '2026-03-20T14:00:00.000Z', '2026-03-20T15:00:00.000Z'))
  t.equal(created.outcome, 'created')
  t.ok(created.event.etag, 'the calendar gave it an ETag')
  t.same(await calendar.busy(url, { start: '2026-03-20T00:00:00.000Z', end: '2026-03-21T00:00:00.000Z' }, 'UTC'), [
    { start: '2026-03-20T14:00:00.000Z', end: '2026-03-20T15:00:00.000Z' },
  ])

  const moved = await calendar.updateEvent(url, draft('booking-abc123', '2026-03-20T16:00:00.000Z', '2026-03-20T17:00:00.000Z'), created.event.etag!)
  t.not(moved.etag, created.event.etag, 'a new ETag after the update')
  t.same(await calendar.busy(url, { start: '2026-03-20T00:00:00.000Z', end: '2026-03-21T00:00:00.000Z' }, 'UTC'), [
    { start: '2026-03-20T16:00:00.000Z', end: '2026-03-20T17:00:00.000Z' },
  ])
  await t.rejects(
    calendar.updateEvent(url, draft('booking-abc123', '2026-03-20T18:00:00.000Z', '2026-03-20T19:00:00.000Z'), created.event.etag!),
    { name: 'CalendarError', kind: 'conflict' },
    'an update on a stale ETag is refused',
  )

  t.equal(await calendar.deleteEvent(url, 'booking-abc123'), 'deleted')
  t.equal(await calendar.deleteEvent(url, 'booking-abc123'), 'already_gone', 'deleting again is not an error')
  await t.rejects(calendar.updateEvent(url, draft('booking-abc123', '2026-03-20T18:00:00.000Z', '2026-03-20T19:00:00.000Z')), { name: 'CalendarError', kind: 'not_found' }, 'an update never brings back a deleted event')
  t.same(await filesIn(url), [])
})

t.test('one UID, one event: a retry and two writers at once find the first', async (t) => {
  const url = await newCalendar()
  const calendar = await connect()
  const event = draft('booking-retry1', '2026-03-21T14:00:00.000Z', '2026-03-21T15:00:00.000Z')
  const first = await calendar.createEvent(url, event)
  const retry = await calendar.createEvent(url, { ...event, summary: 'a retry after a crash' })
  t.equal(first.outcome, 'created')
  t.same(retry, { outcome: 'already_exists', event: { uid: 'booking-retry1', etag: first.event.etag } }, 'the retry is a success naming the first event')

  const both = await Promise.all([1, 2].map(() => connect().then((c) => c.createEvent(url, draft('booking-race1', '2026-03-22T14:00:00.000Z', '2026-03-22T15:00:00.000Z')))))
  t.same(both.map((r) => r.outcome).sort(), ['already_exists', 'created'])
  t.same(await filesIn(url), ['booking-race1.ics', 'booking-retry1.ics'], 'two files for two bookings')
})

t.test('a UID that is not a safe file name is refused before anything is written', async (t) => {
  const url = await newCalendar()
  const calendar = await connect()
  for (const uid of ['../owner/other', 'a b', '', '.hidden']) {
    await t.rejects(calendar.createEvent(url, draft(uid, '2026-03-21T14:00:00.000Z', '2026-03-21T15:00:00.000Z')), new CalendarError('rejected', ''), uid)
  }
  t.same(await filesIn(url), [])
})

t.test('changes: an event deleted or moved in the calendar is noticed through the sync token', async (t) => {
  const url = await newCalendar()
  const calendar = await connect()
  await calendar.createEvent(url, draft('booking-keep', '2026-03-23T14:00:00.000Z', '2026-03-23T15:00:00.000Z'))
  const doomed = await calendar.createEvent(url, draft('booking-gone', '2026-03-24T14:00:00.000Z', '2026-03-24T15:00:00.000Z'))

  const first = await calendar.changes(url, null)
  t.equal(first.full, true)
  t.same(first.changed.map((c) => c.uid).sort(), ['booking-gone', 'booking-keep'])
  t.same(await calendar.changes(url, first.token), { token: first.token, full: false, changed: [], removed: [] }, 'nothing changed, nothing reported')

  // The owner deletes one booking in their calendar app and moves the other.
  const deleted = await fetch(`${url}booking-gone.ics`, { method: 'DELETE', headers: { ...basic, 'if-match': doomed.event.etag! } })
  t.equal(deleted.status, 200)
  await ownerEvent(url, 'booking-keep', ['DTSTART:20260323T180000Z', 'DTEND:20260323T190000Z'], 'booking-keep')

  const next = await calendar.changes(url, first.token)
  t.equal(next.full, false)
  t.same(next.removed, ['booking-gone'])
  t.same(next.changed.map((c) => c.uid), ['booking-keep'])
  t.not(next.token, first.token)

  const stale = await calendar.changes(url, 'http://radicale.org/ns/sync/not-a-token')
  t.equal(stale.full, true, 'a token the server does not know starts over with everything')
  t.same(stale.changed.map((c) => c.uid), ['booking-keep'])
})

t.test('getEvent reads one event as the calendar has it now: moved by another client (zoned), cancelled, deleted, never there', async (t) => {
  const url = await newCalendar()
  const calendar = await connect()
  const created = await calendar.createEvent(url, draft('booking-read', '2026-03-10T14:00:00.000Z', '2026-03-10T15:00:00.000Z'))
  t.same(await calendar.getEvent(url, 'booking-read'), { uid: 'booking-read', start: '2026-03-10T14:00:00.000Z', end: '2026-03-10T15:00:00.000Z', etag: created.event.etag })
  // The owner's app moves it: a zoned start and a duration instead of an end.
  await ownerEvent(url, 'booking-read', ['DTSTART;TZID=America/Chicago:20260311T090000', 'DURATION:PT90M'], 'booking-read')
  const moved = await calendar.getEvent(url, 'booking-read')
  t.match(moved, { uid: 'booking-read', start: '2026-03-11T14:00:00.000Z', end: '2026-03-11T15:30:00.000Z' })
  t.not(moved?.etag, created.event.etag, 'a new version')
  // Floating times are read in the zone asked for.
  await ownerEvent(url, 'booking-read', ['DTSTART:20260312T090000', 'DTEND:20260312T100000'], 'booking-read')
  t.match(await calendar.getEvent(url, 'booking-read', 'America/New_York'), { start: '2026-03-12T13:00:00.000Z', end: '2026-03-12T14:00:00.000Z' })
  await ownerEvent(url, 'booking-read', ['DTSTART:20260312T130000Z', 'DTEND:20260312T140000Z', 'STATUS:CANCELLED'], 'booking-read')
  t.equal(await calendar.getEvent(url, 'booking-read'), null, 'cancelled in the calendar: gone')
  await calendar.deleteEvent(url, 'booking-read')
  t.equal(await calendar.getEvent(url, 'booking-read'), null, 'deleted: gone')
  t.equal(await calendar.getEvent(url, 'booking-never'), null)
  await t.rejects(createCalDavCalendar().connect({ ...credentials, password: 'nope' }).then((c) => c.getEvent(url, 'x')), { name: 'CalendarError', kind: 'unauthorized' })
})
