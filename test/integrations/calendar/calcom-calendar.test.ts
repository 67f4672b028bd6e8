/**
 * The Cal.com calendar against a double of Cal.com's API v2 (test/doubles/fake-calcom.ts) on 127.0.0.1:
 * connecting with an API key, event types as calendars, busy time as what the open slots leave out,
 * one booking per event UID however often it is written (timeouts and 5xx included), moves as Cal.com
 * reschedules, cancels, and moves and cancels made in Cal.com noticed through the snapshot token.
 */
import t from 'tap'
import { createCalComCalendar } from '../../../src/integrations/calendar/calcom/index.ts'
import type { CalComCredentials, CalendarConnection, CalendarEventDraft } from '../../../src/integrations/calendar/calendar.port.ts'
import { FAKE_CALCOM_KEY, startFakeCalCom, type FakeCalCom } from '../../doubles/fake-calcom.ts'

const calcom: FakeCalCom = await startFakeCalCom()
t.teardown(() => calcom.close())
const credentials = { kind: 'calcom' as const, apiKey: FAKE_CALCOM_KEY, baseUrl: calcom.url }
const connect = (timeoutMs?: number): Promise<CalendarConnection> => createCalComCalendar(timeoutMs === undefined ? {} : { timeoutMs }).connect(credentials)
const ann = { name: 'Ann Lee', phone: '+15551230000', timeZone: 'America/Chicago' }
const draft = (uid: string, start: string, end: string): CalendarEventDraft => ({ uid, start, end, summary: 'Roof estimate: Ann Lee', description: 'Phone +15551230000\nSource: web form', attendee: ann })
const ofUid = (uid: string) => calcom.bookings().filter((b) => b.metadata.leadlineUid === uid)
const day = (date: string) => ({ start: `${date}T12:00:00.000Z`, end: `${date}T22:00:00.000Z` })

t.test('connect checks the API key; the event types are the calendars, in the owner’s zone', async (t) => {
  const calendar = await connect()
  t.same(await calendar.listCalendars(), [
    { id: '501', name: 'Roof estimate', timeZone: 'America/New_York' },
    { id: '502', name: 'Quick call', timeZone: 'America/New_York' },
  ])
  const chosen = await createCalComCalendar().connect({ ...credentials, eventTypeId: 502 })
  t.same(await chosen.listCalendars(), [{ id: '502', name: 'Quick call', timeZone: 'America/New_York' }], 'the chosen event type only')
  const missing = await createCalComCalendar().connect({ ...credentials, eventTypeId: 999 })
  await t.rejects(missing.listCalendars(), { name: 'CalendarError', kind: 'not_found' })

  const typesRequest = calcom.requests().find((r) => r.path === '/v2/event-types')!
  t.equal(typesRequest.authorization, `Bearer ${FAKE_CALCOM_KEY}`)
  t.equal(typesRequest.version, '2024-06-14')

  await t.rejects(createCalComCalendar().connect({ ...credentials, apiKey: 'cal_live_wrongkey' }), { name: 'CalendarError', kind: 'unauthorized' })
  const before = calcom.requests().length
  await t.rejects(createCalComCalendar().connect({ ...credentials, apiKey: 'hunter2' }), { name: 'CalendarError', kind: 'rejected' })
  t.equal(calcom.requests().length, before, 'what is not an API key is never sent')
  await t.rejects(createCalComCalendar({ timeoutMs: 2_000 }).connect({ ...credentials, baseUrl: 'http://127.0.0.1:9' }), { name: 'CalendarError', kind: 'unreachable' })
  await t.rejects(createCalComCalendar().connect({ kind: 'caldav', serverUrl: calcom.url, username: 'a', password: 'b' } as unknown as CalComCredentials), { name: 'CalendarError', kind: 'rejected' })
})

t.test('busy is the range minus the open slots: outside hours, the owner’s own busy time and bookings', async (t) => {
  const calendar = await connect()
  // Monday 1 April 2030, EDT: hours 09:00-17:00 are 13:00Z-21:00Z, in 60-minute slots.
  t.same(await calendar.busy('501', day('2030-04-01'), 'UTC'), [
    { start: '2030-04-01T12:00:00.000Z', end: '2030-04-01T13:00:00.000Z' },
    { start: '2030-04-01T21:00:00.000Z', end: '2030-04-01T22:00:00.000Z' },
  ])
  calcom.block('2030-04-01T15:00:00.000Z', '2030-04-01T15:30:00.000Z')
  t.equal((await calendar.createEvent('501', draft('booking-busy1', '2030-04-01T17:00:00.000Z', '2030-04-01T18:00:00.000Z'))).outcome, 'created')
  t.same(await calendar.busy('501', day('2030-04-01'), 'UTC'), [
    { start: '2030-04-01T12:00:00.000Z', end: '2030-04-01T13:00:00.000Z' },
    { start: '2030-04-01T15:00:00.000Z', end: '2030-04-01T16:00:00.000Z' },
    { start: '2030-04-01T17:00:00.000Z', end: '2030-04-01T18:00:00.000Z' },
    { start: '2030-04-01T21:00:00.000Z', end: '2030-04-01T22:00:00.000Z' },
  ])
  t.same(await calendar.busy('501', { start: '2030-04-06T00:00:00.000Z', end: '2030-04-07T00:00:00.000Z' }, 'UTC'), [
    { start: '2030-04-06T00:00:00.000Z', end: '2030-04-07T00:00:00.000Z' },
  ], 'a Saturday has no hours: all busy')
  const slots = calcom.requests().filter((r) => r.path === '/v2/slots')
  t.ok(slots.length > 0 && slots.every((r) => r.version === '2024-09-04' && r.query.eventTypeId === '501' && r.query.format === 'range'))
  await t.rejects(calendar.busy('not-an-event-type', day('2030-04-01'), 'UTC'), { name: 'CalendarError', kind: 'rejected' })
})

t.test('one booking per UID: the UID rides in the metadata, and a second write finds the first', async (t) => {
  const calendar = await connect()
  const created = await calendar.createEvent('501', draft('booking-once1', '2030-04-02T14:00:00.000Z', '2030-04-02T15:00:00.000Z'))
  t.equal(created.outcome, 'created')
  const [booking, ...others] = ofUid('booking-once1')
  t.same(others, [])
  t.equal(created.event.etag, booking!.uid, 'the event’s version is the Cal.com booking standing for it')
  t.match(booking, { status: 'accepted', start: '2030-04-02T14:00:00.000Z', attendees: [{ name: 'Ann Lee', phoneNumber: '+15551230000', timeZone: 'America/Chicago', email: null }] })
  t.match(booking!.bookingFieldsResponses, { notes: 'Phone +15551230000\nSource: web form' })
  const posted = calcom.requests().findLast((r) => r.method === 'POST' && r.path === '/v2/bookings')!
  t.equal(posted.version, '2024-08-13')
  t.match(posted.body, { start: '2030-04-02T14:00:00.000Z', eventTypeId: 501, metadata: { leadlineUid: 'booking-once1' } })

  const again = await calendar.createEvent('501', draft('booking-once1', '2030-04-02T14:00:00.000Z', '2030-04-02T15:00:00.000Z'))
  t.same(again, { outcome: 'already_exists', event: { uid: 'booking-once1', etag: booking!.uid } })
  const afterRestart = await (await connect()).createEvent('501', draft('booking-once1', '2030-04-02T14:00:00.000Z', '2030-04-02T15:00:00.000Z'))
  t.equal(afterRestart.outcome, 'already_exists', 'a new connection (a restart) finds it by searching the bookings')
  const searches = calcom.requests().filter((r) => r.method === 'GET' && r.path === '/v2/bookings')
  t.ok(searches.length > 0 && searches.every((r) => r.version === '2024-08-13' && r.query.eventTypeId === '501' && r.query.status === 'upcoming,unconfirmed,past,cancelled'), 'the event type’s bookings of every status')
  t.equal(ofUid('booking-once1').length, 1)
})

t.test('a booking beyond the first page of the search is still found', async (t) => {
  // 13 weekdays of May 2030 × 8 slots: the owner's other bookings fill the first page of 100.
  const starts: string[] = []
  for (let date = Date.parse('2030-05-01T13:00:00.000Z'); starts.length < 100; date += 86_400_000) {
    const weekday = new Date(date).getUTCDay()
    if (weekday === 0 || weekday === 6) continue
    for (let hour = 0; hour < 8 && starts.length < 100; hour++) starts.push(new Date(date + hour * 3_600_000).toISOString())
  }
  for (const start of starts) {
    const response = await fetch(`${calcom.url}/v2/bookings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${FAKE_CALCOM_KEY}`, 'cal-api-version': '2024-08-13', 'content-type': 'application/json' },
      body: JSON.stringify({ start, eventTypeId: 501, attendee: { name: 'Walk-in', email: 'walk@example.com', timeZone: 'UTC' } }),
    })
    t.equal(response.status, 201)
  }
  const calendar = await connect()
  t.equal((await calendar.createEvent('501', draft('booking-paged1', '2030-05-31T14:00:00.000Z', '2030-05-31T15:00:00.000Z'))).outcome, 'created')
  t.equal((await (await connect()).createEvent('501', draft('booking-paged1', '2030-05-31T14:00:00.000Z', '2030-05-31T15:00:00.000Z'))).outcome, 'already_exists')
  t.equal(ofUid('booking-paged1').length, 1)
})

t.test('a create whose answer never comes is unknown_outcome; the retry finds the one booking', async (t) => {
  const calendar = await connect(3_000)
  calcom.failNext('POST', '/v2/bookings', { kind: 'hang', act: true })
  await t.rejects(calendar.createEvent('501', draft('booking-hang1', '2030-04-03T14:00:00.000Z', '2030-04-03T15:00:00.000Z')), { name: 'CalendarError', kind: 'unknown_outcome' })
  t.equal(ofUid('booking-hang1').length, 1, 'it landed')
  const retry = await (await connect()).createEvent('501', draft('booking-hang1', '2030-04-03T14:00:00.000Z', '2030-04-03T15:00:00.000Z'))
  t.same(retry, { outcome: 'already_exists', event: { uid: 'booking-hang1', etag: ofUid('booking-hang1')[0]!.uid } })

  calcom.failNext('POST', '/v2/bookings', { kind: 'status', status: 502, act: true })
  await t.rejects(calendar.createEvent('501', draft('booking-502', '2030-04-03T16:00:00.000Z', '2030-04-03T17:00:00.000Z')), { name: 'CalendarError', kind: 'unknown_outcome', status: 502 })
  t.equal((await calendar.createEvent('501', draft('booking-502', '2030-04-03T16:00:00.000Z', '2030-04-03T17:00:00.000Z'))).outcome, 'already_exists')
  calcom.failNext('POST', '/v2/bookings', { kind: 'status', status: 503 })
  await t.rejects(calendar.createEvent('501', draft('booking-503', '2030-04-03T18:00:00.000Z', '2030-04-03T19:00:00.000Z')), { name: 'CalendarError', kind: 'unknown_outcome' })
  t.equal((await calendar.createEvent('501', draft('booking-503', '2030-04-03T18:00:00.000Z', '2030-04-03T19:00:00.000Z'))).outcome, 'created', 'nothing had landed: the retry makes it')
  t.equal(ofUid('booking-502').length + ofUid('booking-503').length, 2)
})

t.test('what Cal.com refuses is rejected, and nothing is booked', async (t) => {
  const calendar = await connect()
  await t.rejects(calendar.createEvent('502', draft('booking-mail1', '2030-04-04T14:00:00.000Z', '2030-04-04T14:30:00.000Z')), { name: 'CalendarError', kind: 'rejected', status: 400, message: /email/ }, 'an event type that requires an email cannot book a phone-only lead')
  t.equal((await calendar.createEvent('501', draft('booking-taken1', '2030-04-04T14:00:00.000Z', '2030-04-04T15:00:00.000Z'))).outcome, 'created')
  await t.rejects(calendar.createEvent('501', draft('booking-taken2', '2030-04-04T14:00:00.000Z', '2030-04-04T15:00:00.000Z')), { name: 'CalendarError', kind: 'rejected' }, 'a taken slot')
  const { attendee: _, ...noAttendee } = draft('booking-anon1', '2030-04-04T16:00:00.000Z', '2030-04-04T17:00:00.000Z')
  await t.rejects(calendar.createEvent('501', noAttendee), { name: 'CalendarError', kind: 'rejected', message: /attendee/ })
  await t.rejects(calendar.createEvent('501', draft('bad uid/..', '2030-04-04T16:00:00.000Z', '2030-04-04T17:00:00.000Z')), { name: 'CalendarError', kind: 'rejected' })
  t.same([...ofUid('booking-mail1'), ...ofUid('booking-taken2'), ...ofUid('booking-anon1')], [])
})

t.test('a move is a Cal.com reschedule: a new booking, and the UID still finds it', async (t) => {
  const calendar = await connect()
  const created = await calendar.createEvent('501', draft('booking-move1', '2030-04-08T14:00:00.000Z', '2030-04-08T15:00:00.000Z'))
  const moved = await calendar.updateEvent('501', draft('booking-move1', '2030-04-08T18:00:00.000Z', '2030-04-08T19:00:00.000Z'), created.event.etag!)
  t.not(moved.etag, created.event.etag, 'Cal.com made a new booking')
  const chain = ofUid('booking-move1')
  t.match(chain.find((b) => b.uid === created.event.etag), { status: 'cancelled', rescheduledToUid: moved.etag })
  t.match(chain.find((b) => b.uid === moved.etag), { status: 'accepted', start: '2030-04-08T18:00:00.000Z', rescheduledFromUid: created.event.etag })
  t.same(calcom.requests().filter((r) => r.path.endsWith('/reschedule')).map((r) => r.version), ['2024-08-13'])

  const repeat = await (await connect()).updateEvent('501', draft('booking-move1', '2030-04-08T18:00:00.000Z', '2030-04-08T19:00:00.000Z'), created.event.etag!)
  t.same(repeat, moved, 'the same move again (a retry with the old version) is the move that landed')
  t.equal(ofUid('booking-move1').length, 2)

  const byOwner = calcom.rescheduleInCalCom(moved.etag!, '2030-04-08T20:00:00.000Z')
  await t.rejects(calendar.updateEvent('501', draft('booking-move1', '2030-04-08T13:00:00.000Z', '2030-04-08T14:00:00.000Z'), moved.etag!), { name: 'CalendarError', kind: 'conflict' }, 'moved in Cal.com since')
  const unconditional = await calendar.updateEvent('501', draft('booking-move1', '2030-04-08T13:00:00.000Z', '2030-04-08T14:00:00.000Z'))
  t.not(unconditional.etag, byOwner)

  const flaky = await connect(3_000)
  calcom.failNext('POST', /\/reschedule$/, { kind: 'hang', act: true })
  await t.rejects(flaky.updateEvent('501', draft('booking-move1', '2030-04-08T16:00:00.000Z', '2030-04-08T17:00:00.000Z'), unconditional.etag!), { name: 'CalendarError', kind: 'unknown_outcome' })
  const retried = await flaky.updateEvent('501', draft('booking-move1', '2030-04-08T16:00:00.000Z', '2030-04-08T17:00:00.000Z'), unconditional.etag!)
  t.same(ofUid('booking-move1').filter((b) => b.status === 'accepted').map((b) => [b.uid, b.start]), [[retried.etag, '2030-04-08T16:00:00.000Z']], 'one live booking, at the new time')
})

t.test('delete is a cancel; a booking already cancelled is already_gone', async (t) => {
  const calendar = await connect()
  await calendar.createEvent('501', draft('booking-cancel1', '2030-04-09T14:00:00.000Z', '2030-04-09T15:00:00.000Z'))
  t.equal(await calendar.deleteEvent('501', 'booking-cancel1'), 'deleted')
  t.equal(await calendar.deleteEvent('501', 'booking-cancel1'), 'already_gone')
  t.equal(ofUid('booking-cancel1')[0]!.status, 'cancelled')
  t.same(calcom.requests().filter((r) => r.path.endsWith('/cancel')).length, 1, 'cancelled once')
  await t.rejects(calendar.updateEvent('501', draft('booking-cancel1', '2030-04-09T16:00:00.000Z', '2030-04-09T17:00:00.000Z')), { name: 'CalendarError', kind: 'not_found' }, 'a move never brings it back')
  t.equal((await calendar.createEvent('501', draft('booking-cancel1', '2030-04-09T14:00:00.000Z', '2030-04-09T15:00:00.000Z'))).outcome, 'already_exists', 'nor does a late retry of its create')
  t.equal(await calendar.deleteEvent('501', 'booking-never'), 'already_gone')

  const { event } = await calendar.createEvent('501', draft('booking-cancel2', '2030-04-09T16:00:00.000Z', '2030-04-09T17:00:00.000Z'))
  // Someone cancels it in Cal.com between our look and our cancel: Cal.com refuses ours (400).
  calcom.failNext('POST', /\/cancel$/, { kind: 'status', status: 400, act: true })
  t.equal(await calendar.deleteEvent('501', 'booking-cancel2'), 'already_gone')
  t.equal(calcom.bookings().find((x) => x.uid === event.etag)!.status, 'cancelled')

  const { event: third } = await calendar.createEvent('501', draft('booking-cancel3', '2030-04-09T18:00:00.000Z', '2030-04-09T19:00:00.000Z'))
  calcom.failNext('GET', '/v2/bookings', { kind: 'status', status: 503 })
  await t.rejects((await connect()).deleteEvent('501', 'booking-cancel3'), { name: 'CalendarError', kind: 'unreachable' }, 'a failed look before the cancel: nothing was sent')
  calcom.failNext('POST', /\/cancel$/, { kind: 'status', status: 500 })
  await t.rejects(calendar.deleteEvent('501', 'booking-cancel3'), { name: 'CalendarError', kind: 'unknown_outcome', status: 500 })
  calcom.failNext('POST', /\/cancel$/, { kind: 'status', status: 429 })
  await t.rejects(calendar.deleteEvent('501', 'booking-cancel3'), { name: 'CalendarError', kind: 'unreachable', status: 429 }, 'rate-limited: nothing done, try later')
  t.equal(calcom.bookings().find((x) => x.uid === third.etag)!.status, 'accepted')
  t.equal(await calendar.deleteEvent('501', 'booking-cancel3'), 'deleted')
})

t.test('changes: a booking cancelled and one moved in Cal.com are noticed through the snapshot token', async (t) => {
  const calendar = await connect()
  const first = await calendar.changes('501', null)
  t.equal(first.full, true)
  const a = await calendar.createEvent('501', draft('booking-watch-a', '2030-04-10T14:00:00.000Z', '2030-04-10T15:00:00.000Z'))
  const b = await calendar.createEvent('501', draft('booking-watch-b', '2030-04-10T16:00:00.000Z', '2030-04-10T17:00:00.000Z'))
  const second = await (await connect()).changes('501', first.token)
  t.equal(second.full, false)
  t.same(second.changed.filter((e) => e.uid.startsWith('booking-watch')), [{ uid: 'booking-watch-a', etag: a.event.etag }, { uid: 'booking-watch-b', etag: b.event.etag }])
  t.same(second.removed, [])
  const quiet = await calendar.changes('501', second.token)
  t.same([quiet.changed, quiet.removed], [[], []], 'nothing happened since')

  calcom.cancelInCalCom(a.event.etag!)
  const movedTo = calcom.rescheduleInCalCom(b.event.etag!, '2030-04-10T19:00:00.000Z')
  const third = await (await connect()).changes('501', quiet.token)
  t.same(third.removed, ['booking-watch-a'])
  t.same(third.changed, [{ uid: 'booking-watch-b', etag: movedTo }])
  const after = await calendar.changes('501', third.token)
  t.same([after.changed, after.removed], [[], []])

  const live = calcom.bookings().filter((x) => x.eventTypeId === 501 && x.status === 'accepted' && x.metadata.leadlineUid !== undefined).length
  t.equal(third.token.length, 'calcom1.501.'.length + Math.ceil((live * 12 * 4) / 3), 'the token holds 12 bytes a live booking')
  t.equal((await calendar.changes('501', 'not-a-token')).full, true)
  t.equal((await calendar.changes('501', third.token.replace('calcom1.501.', 'calcom1.502.'))).full, true, 'another event type’s token starts over')
})

t.test('getEvent: the booking now standing for the UID, followed through a move made in Cal.com; cancelled is gone', async (t) => {
  const calendar = await connect()
  const { event } = await calendar.createEvent('501', draft('booking-read1', '2030-04-11T14:00:00.000Z', '2030-04-11T15:00:00.000Z'))
  t.same(await calendar.getEvent('501', 'booking-read1'), { uid: 'booking-read1', start: '2030-04-11T14:00:00.000Z', end: '2030-04-11T15:00:00.000Z', etag: event.etag })
  const movedTo = calcom.rescheduleInCalCom(event.etag!, '2030-04-11T18:00:00.000Z')
  t.same(await (await connect()).getEvent('501', 'booking-read1'), { uid: 'booking-read1', start: '2030-04-11T18:00:00.000Z', end: '2030-04-11T19:00:00.000Z', etag: movedTo }, 'a fresh connection finds the new booking too')
  calcom.cancelInCalCom(movedTo)
  t.equal(await calendar.getEvent('501', 'booking-read1'), null)
  t.equal(await calendar.getEvent('501', 'booking-never'), null)
  calcom.failNext('GET', '/v2/bookings', { kind: 'status', status: 503 })
  await t.rejects((await connect()).getEvent('501', 'booking-read1'), { name: 'CalendarError', kind: 'unreachable' })
})
