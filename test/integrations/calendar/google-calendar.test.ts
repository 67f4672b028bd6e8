/**
 * Google Calendar through Google's own client against the double of its documented API
 * (test/doubles/fake-google-calendar.ts): connecting with a refresh token, the owner's events as busy
 * time, one event per booking UID however often it is written, updates on the ETag, deletes, changes
 * made in the calendar noticed through sync tokens, and outcomes that cannot be known said so.
 */
import t from 'tap'
import type { CalendarConnection, GoogleCredentials } from '../../../src/integrations/calendar/calendar.port.ts'
import { createGoogleCalendar } from '../../../src/integrations/calendar/google/index.ts'
import { FAKE_GOOGLE_CLIENT_ID, FAKE_GOOGLE_CLIENT_SECRET, FAKE_GOOGLE_OWNER, startFakeGoogle } from '../../doubles/fake-google-calendar.ts'

const google = await startFakeGoogle({
  calendars: [
    { id: FAKE_GOOGLE_OWNER, summary: FAKE_GOOGLE_OWNER, timeZone: 'America/New_York', accessRole: 'owner', primary: true },
    { id: 'jobs@group.calendar.google.com', summary: 'Jobs', timeZone: 'America/Chicago', accessRole: 'writer', primary: false },
    { id: 'en.usa#holiday@group.v.calendar.google.com', summary: 'Holidays in United States', timeZone: 'America/New_York', accessRole: 'reader', primary: false },
  ],
})
t.teardown(() => google.close())
const OWNER = FAKE_GOOGLE_OWNER
const JOBS = 'jobs@group.calendar.google.com'

const provider = createGoogleCalendar({ endpoints: google.endpoints })
const credentials = (refreshToken = google.grant()) => ({ name: 'CalendarError', kind: 'google' as const, refreshToken, clientId: FAKE_GOOGLE_CLIENT_ID, clientSecret: FAKE_GOOGLE_CLIENT_SECRET })
const connect = (): Promise<CalendarConnection> => provider.connect(credentials())
const draft = (uid: string, start: string, end: string) => ({ uid, start, end, summary: 'Roof estimate: Ann Lee', description: 'Phone +15551230000' })
const day = (date: string) => ({ start: `${date}T00:00:00.000Z`, end: `${date}T23:59:59.000Z` })

t.test('connect refreshes an access token at once and lists the calendars bookings can go to', async (t) => {
  const before = google.requests().length
  const calendar = await connect()
  t.match(google.requests().slice(before)[0], { method: 'POST', path: '/token' }, 'the refresh happened at connect')
  t.same(await calendar.listCalendars(), [
    { id: OWNER, name: OWNER, timeZone: 'America/New_York' },
    { id: JOBS, name: 'Jobs', timeZone: 'America/Chicago' },
  ], 'the holidays calendar the owner can only read is not offered')
})

t.test('a refused consent is unauthorized at connect; a revoked one later is unauthorized on the next call', async (t) => {
  await t.rejects(provider.connect(credentials('1//0not-a-token')), { name: 'CalendarError', kind: 'unauthorized' }, 'an unknown refresh token')
  await t.rejects(provider.connect({ ...credentials(), clientSecret: 'wrong' }), { name: 'CalendarError', kind: 'unauthorized' }, 'a wrong client secret')
  await t.rejects(provider.connect({ kind: 'caldav', serverUrl: 'http://x', username: 'a', password: 'b' } as unknown as GoogleCredentials), { name: 'CalendarError', kind: 'rejected' })
  await t.rejects(provider.connect({ ...credentials(), refreshToken: '' }), { name: 'CalendarError', kind: 'rejected', message: /refreshToken/ }, 'no consent yet')
  await t.rejects(provider.connect({ ...credentials(), clientId: ' ', clientSecret: '' }), { name: 'CalendarError', kind: 'rejected', message: /clientId, clientSecret/ }, 'GOOGLE_CLIENT_ID/SECRET unset')
  const nobody = createGoogleCalendar({ endpoints: { tokenUrl: 'http://127.0.0.1:9/token', apiRootUrl: 'http://127.0.0.1:9/' } })
  await t.rejects(nobody.connect(credentials()), { name: 'CalendarError', kind: 'unreachable' }, 'Google out of reach')

  const alone = await startFakeGoogle()
  t.teardown(() => alone.close())
  const calendar = await createGoogleCalendar({ endpoints: alone.endpoints }).connect({ ...credentials(alone.grant()) })
  t.equal((await calendar.listCalendars()).length, 1)
  alone.expireAccessTokens()
  t.equal((await calendar.listCalendars()).length, 1, 'an access token refused early is refreshed and the call made again')
  alone.revokeAll()
  alone.expireAccessTokens()
  await t.rejects(calendar.listCalendars(), { name: 'CalendarError', kind: 'unauthorized' }, 'the owner removed access in their Google account')
  await t.rejects(calendar.createEvent(OWNER, draft('booking-revoked', '2026-03-20T14:00:00.000Z', '2026-03-20T15:00:00.000Z')), { name: 'CalendarError', kind: 'unauthorized' }, 'a write is refused plainly, not an unknown outcome')
})

t.test("busy: the owner's own events, merged, clipped, all-day in the calendar's zone; free ones are not busy", async (t) => {
  google.ownerEvent(JOBS, { summary: 'dentist', start: '2026-03-10T13:00:00Z', end: '2026-03-10T14:00:00Z' })
  google.ownerEvent(JOBS, { summary: 'overlap', start: '2026-03-10T13:30:00Z', end: '2026-03-10T15:00:00Z' })
  google.ownerEvent(JOBS, { summary: 'holiday', date: '2026-03-12', endDate: '2026-03-13' })
  google.ownerEvent(JOBS, { summary: 'reminder', start: '2026-03-11T15:00:00Z', end: '2026-03-11T16:00:00Z', transparency: 'transparent' })
  const gone = google.ownerEvent(JOBS, { summary: 'called off', start: '2026-03-11T17:00:00Z', end: '2026-03-11T18:00:00Z' })
  google.ownerDelete(JOBS, gone.id)
  google.ownerEvent(JOBS, { summary: 'overnight', start: '2026-03-08T22:00:00Z', end: '2026-03-09T02:00:00Z' })

  const calendar = await connect()
  const busy = await calendar.busy(JOBS, { start: '2026-03-09T00:00:00.000Z', end: '2026-03-14T00:00:00.000Z' }, 'America/New_York')
  t.same(busy, [
    { start: '2026-03-09T00:00:00.000Z', end: '2026-03-09T02:00:00.000Z' },
    { start: '2026-03-10T13:00:00.000Z', end: '2026-03-10T15:00:00.000Z' },
    // Midnight to midnight in Chicago, the calendar's zone (CDT since 8 March).
    { start: '2026-03-12T05:00:00.000Z', end: '2026-03-13T05:00:00.000Z' },
  ])
  const asked = google.requests().filter((r) => r.path.startsWith('/calendar/v3/freeBusy')).at(-1)!
  t.match(JSON.parse(asked.body), { timeZone: 'America/New_York', items: [{ id: JOBS }] })
  await t.rejects(calendar.busy('nobody@group.calendar.google.com', day('2026-03-10'), 'UTC'), { name: 'CalendarError', kind: 'not_found' })
})

t.test('create: one event per UID, under an id Google accepts; the same booking again is already_exists', async (t) => {
  const calendar = await connect()
  const event = draft('leadline-bk_01J9ZX', '2026-03-20T14:00:00.000Z', '2026-03-20T15:00:00.000Z')
  const first = await calendar.createEvent(OWNER, event)
  t.equal(first.outcome, 'created')
  t.ok(first.event.etag)
  const [stored] = google.store.live(OWNER).filter((e) => e.summary === 'Roof estimate: Ann Lee')
  t.match(stored, { id: /^[a-v0-9]{5,1024}$/, description: 'Phone +15551230000', start: { dateTime: '2026-03-20T14:00:00.000Z', timeZone: 'UTC' } })

  const again = await calendar.createEvent(OWNER, { ...event, summary: 'a retry after a crash' })
  t.same(again, { outcome: 'already_exists', event: { uid: event.uid, etag: first.event.etag } }, 'the retry names the first event')
  const both = await Promise.all([connect(), connect()].map(async (c) => (await c).createEvent(OWNER, draft('leadline-race', '2026-03-22T14:00:00.000Z', '2026-03-22T15:00:00.000Z'))))
  t.same(both.map((r) => r.outcome).sort(), ['already_exists', 'created'], 'two writers at once: one event')
  t.equal(google.store.live(OWNER).length, 2)

  for (const uid of ['../other', 'a b', '']) {
    await t.rejects(calendar.createEvent(OWNER, draft(uid, '2026-03-21T14:00:00.000Z', '2026-03-21T15:00:00.000Z')), { name: 'CalendarError', kind: 'rejected' }, uid)
  }
  await t.rejects(calendar.createEvent(OWNER, draft('leadline-backwards', '2026-03-21T15:00:00.000Z', '2026-03-21T14:00:00.000Z')), { name: 'CalendarError', kind: 'rejected', status: 400 })
})

t.test('update on the ETag, delete twice; a deleted booking is not brought back by an update but is by its create', async (t) => {
  const calendar = await connect()
  const created = await calendar.createEvent(OWNER, draft('leadline-move1', '2026-03-25T14:00:00.000Z', '2026-03-25T15:00:00.000Z'))
  const moved = await calendar.updateEvent(OWNER, draft('leadline-move1', '2026-03-25T16:00:00.000Z', '2026-03-25T17:00:00.000Z'), created.event.etag!)
  t.not(moved.etag, created.event.etag)
  t.same(await calendar.busy(OWNER, day('2026-03-25'), 'UTC'), [{ start: '2026-03-25T16:00:00.000Z', end: '2026-03-25T17:00:00.000Z' }])
  const patched = google.requests().filter((r) => r.method === 'PATCH').at(-1)!
  t.equal(patched.headers['if-match'], created.event.etag, 'the ETag went as If-Match')
  await t.rejects(calendar.updateEvent(OWNER, draft('leadline-move1', '2026-03-25T18:00:00.000Z', '2026-03-25T19:00:00.000Z'), created.event.etag!), { name: 'CalendarError', kind: 'conflict' }, 'a stale ETag')
  const unchecked = await calendar.updateEvent(OWNER, draft('leadline-move1', '2026-03-25T18:00:00.000Z', '2026-03-25T19:00:00.000Z'))
  t.not(unchecked.etag, moved.etag, 'without an ETag, the current version is updated')

  t.equal(await calendar.deleteEvent(OWNER, 'leadline-move1'), 'deleted')
  t.equal(await calendar.deleteEvent(OWNER, 'leadline-move1'), 'already_gone', 'Google answers 410 for a deleted event')
  t.equal(await calendar.deleteEvent(OWNER, 'leadline-never'), 'already_gone', 'and 404 for one that never was')
  await t.rejects(calendar.updateEvent(OWNER, draft('leadline-move1', '2026-03-25T18:00:00.000Z', '2026-03-25T19:00:00.000Z')), { name: 'CalendarError', kind: 'not_found' })
  await t.rejects(calendar.updateEvent(OWNER, draft('leadline-never', '2026-03-25T18:00:00.000Z', '2026-03-25T19:00:00.000Z')), { name: 'CalendarError', kind: 'not_found' })
  t.same(await calendar.busy(OWNER, day('2026-03-25'), 'UTC'), [])

  const back = await calendar.createEvent(OWNER, draft('leadline-move1', '2026-03-25T14:00:00.000Z', '2026-03-25T15:00:00.000Z'))
  t.equal(back.outcome, 'created', 'Google keeps the deleted id (409); the booking written again restores it')
  t.same(await calendar.busy(OWNER, day('2026-03-25'), 'UTC'), [{ start: '2026-03-25T14:00:00.000Z', end: '2026-03-25T15:00:00.000Z' }])

  await calendar.deleteEvent(OWNER, 'leadline-move1')
  const both = await Promise.all([connect(), connect()].map(async (c) => (await c).createEvent(OWNER, draft('leadline-move1', '2026-03-25T16:00:00.000Z', '2026-03-25T17:00:00.000Z'))))
  t.same(both.map((r) => r.outcome).sort(), ['already_exists', 'created'], 'two writers restoring one deleted booking: one restores, the other finds it')
  t.same(await calendar.busy(OWNER, day('2026-03-25'), 'UTC'), [{ start: '2026-03-25T16:00:00.000Z', end: '2026-03-25T17:00:00.000Z' }])
})

t.test('changes: a first token, then an event moved and another deleted in Google Calendar, and an expired token', async (t) => {
  const calendar = await connect()
  await calendar.createEvent(JOBS, draft('leadline-keep', '2026-04-01T14:00:00.000Z', '2026-04-01T15:00:00.000Z'))
  await calendar.createEvent(JOBS, draft('leadline-gone', '2026-04-02T14:00:00.000Z', '2026-04-02T15:00:00.000Z'))
  const first = await calendar.changes(JOBS, null)
  t.equal(first.full, true)
  t.ok(first.changed.some((c) => c.uid === 'leadline-keep') && first.changed.some((c) => c.uid === 'leadline-gone'), 'our events by their UIDs')
  t.ok(first.changed.some((c) => /^[0-9a-f]{26}$/.test(c.uid)), "the owner's own events by their Google ids")
  t.same(await calendar.changes(JOBS, first.token), { token: first.token, full: false, changed: [], removed: [] }, 'nothing changed, nothing reported')

  const ours = (uid: string) => google.store.live(JOBS).find((e) => e.id === `leadline${Buffer.from(uid).toString('hex')}`)!
  google.ownerMove(JOBS, ours('leadline-keep').id, '2026-04-01T18:00:00Z', '2026-04-01T19:00:00Z')
  google.ownerDelete(JOBS, ours('leadline-gone').id)
  const next = await calendar.changes(JOBS, first.token)
  t.same(next.changed.map((c) => c.uid), ['leadline-keep'])
  t.same(next.removed, ['leadline-gone'], 'a deleted event, which Google returns with only its id, is named by its UID')
  t.equal(next.full, false)
  t.not(next.token, first.token)

  google.expireSyncTokens()
  const stale = await calendar.changes(JOBS, next.token)
  t.equal(stale.full, true, '410 fullSyncRequired starts over with everything')
  t.ok(stale.changed.some((c) => c.uid === 'leadline-keep'))
  t.ok(stale.removed.includes('leadline-gone'))
  t.same(await calendar.changes(JOBS, stale.token), { token: stale.token, full: false, changed: [], removed: [] }, 'the new token works')
})

t.test('changes follow every page of a long listing', async (t) => {
  const paged = await startFakeGoogle()
  t.teardown(() => paged.close())
  for (let i = 0; i < 2600; i += 1) paged.ownerEvent(OWNER, { summary: `job ${i}`, start: '2026-05-01T14:00:00Z', end: '2026-05-01T15:00:00Z' })
  const calendar = await createGoogleCalendar({ endpoints: paged.endpoints }).connect(credentials(paged.grant()))
  const all = await calendar.changes(OWNER, null)
  t.equal(all.changed.length, 2600)
  t.equal(paged.requests().filter((r) => r.path.includes('/events?')).length, 2, 'two pages of 2500')
})

t.test('outcomes that cannot be known: a timeout or a cut connection on create is unknown_outcome, and the retry finds one event', async (t) => {
  const slow = await createGoogleCalendar({ endpoints: google.endpoints, timeoutMs: 3_000 }).connect(credentials())
  google.failNext({ kind: 'hang', applied: true }, { method: 'POST', path: '/events' })
  const event = draft('leadline-timeout', '2026-04-10T14:00:00.000Z', '2026-04-10T15:00:00.000Z')
  await t.rejects(slow.createEvent(OWNER, event), { name: 'CalendarError', kind: 'unknown_outcome' })
  const retry = await slow.createEvent(OWNER, event)
  t.equal(retry.outcome, 'already_exists', 'Google had written it')

  const calendar = await connect()
  google.failNext({ kind: 'drop' }, { method: 'POST', path: '/events' })
  await t.rejects(calendar.createEvent(OWNER, draft('leadline-dropped', '2026-04-11T14:00:00.000Z', '2026-04-11T15:00:00.000Z')), { name: 'CalendarError', kind: 'unknown_outcome' })
  t.equal((await calendar.createEvent(OWNER, draft('leadline-dropped', '2026-04-11T14:00:00.000Z', '2026-04-11T15:00:00.000Z'))).outcome, 'already_exists')
  t.equal(google.store.live(OWNER).filter((e) => e.start.dateTime?.startsWith('2026-04-1')).length, 2, 'one event each')

  google.failNext({ kind: 'status', status: 503 }, { method: 'POST', path: '/events' })
  await t.rejects(calendar.createEvent(OWNER, draft('leadline-503', '2026-04-12T14:00:00.000Z', '2026-04-12T15:00:00.000Z')), { name: 'CalendarError', kind: 'unknown_outcome', status: 503 })
  // A fresh access token that Google fails to give (the SDK tries four times) means the write was never sent.
  google.expireAccessTokens()
  for (let i = 0; i < 4; i += 1) google.failNext({ kind: 'status', status: 503 }, { path: '/token' })
  const inserts = google.requests().filter((r) => r.method === 'POST' && r.path.includes('/events')).length
  await t.rejects(calendar.createEvent(OWNER, draft('leadline-no-token', '2026-04-12T14:00:00.000Z', '2026-04-12T15:00:00.000Z')), { name: 'CalendarError', kind: 'unreachable', status: 503 })
  t.equal(google.requests().filter((r) => r.method === 'POST' && r.path.includes('/events')).length, inserts + 1, 'only the first try, refused as expired, reached the calendar')
  google.failNext({ kind: 'status', status: 503 }, { method: 'POST', path: '/freeBusy' })
  await t.rejects(calendar.busy(OWNER, day('2026-04-12'), 'UTC'), { name: 'CalendarError', kind: 'unreachable', status: 503 }, 'a read that failed changed nothing')
  // google-auth-library answers a 403 with one fresh token and one retry: Google rate-limits both.
  google.failNext({ kind: 'status', status: 403, reason: 'rateLimitExceeded' }, { method: 'DELETE' })
  google.failNext({ kind: 'status', status: 403, reason: 'rateLimitExceeded' }, { method: 'DELETE' })
  await t.rejects(calendar.deleteEvent(OWNER, 'leadline-503'), { name: 'CalendarError', kind: 'unreachable', status: 403 }, 'rate-limited: nothing done, try later')
  google.failNext({ kind: 'status', status: 429, reason: 'rateLimitExceeded' }, { method: 'PATCH' })
  await t.rejects(calendar.updateEvent(OWNER, draft('leadline-dropped', '2026-04-11T16:00:00.000Z', '2026-04-11T17:00:00.000Z')), { name: 'CalendarError', kind: 'unreachable', status: 429 })
})

t.test('without the calendar scopes, Google refuses and the adapter says unauthorized', async (t) => {
  const calendar = await provider.connect(credentials(google.grant(['https://www.googleapis.com/auth/calendar.readonly'])))
  t.equal((await calendar.listCalendars()).length, 2)
  await t.rejects(calendar.createEvent(OWNER, draft('leadline-readonly', '2026-04-13T14:00:00.000Z', '2026-04-13T15:00:00.000Z')), { name: 'CalendarError', kind: 'unauthorized', status: 403 })
})

t.test('getEvent: one event as Google has it now; moved in Google Calendar, deleted, never there', async (t) => {
  const calendar = await connect()
  const created = await calendar.createEvent(JOBS, draft('leadline-read', '2026-04-03T14:00:00.000Z', '2026-04-03T15:00:00.000Z'))
  t.same(await calendar.getEvent(JOBS, 'leadline-read'), { uid: 'leadline-read', start: '2026-04-03T14:00:00.000Z', end: '2026-04-03T15:00:00.000Z', etag: created.event.etag })
  const id = `leadline${Buffer.from('leadline-read').toString('hex')}`
  google.ownerMove(JOBS, id, '2026-04-03T18:00:00Z', '2026-04-03T19:30:00Z')
  const moved = await calendar.getEvent(JOBS, 'leadline-read')
  t.match(moved, { start: '2026-04-03T18:00:00.000Z', end: '2026-04-03T19:30:00.000Z' })
  t.not(moved?.etag, created.event.etag)
  google.ownerDelete(JOBS, id)
  t.equal(await calendar.getEvent(JOBS, 'leadline-read'), null, 'Google keeps it, cancelled: gone')
  t.equal(await calendar.getEvent(JOBS, 'leadline-never'), null, 'never there')
  google.failNext({ kind: 'status', status: 503 })
  await t.rejects(calendar.getEvent(JOBS, 'leadline-read'), { name: 'CalendarError', kind: 'unreachable' }, 'a read that failed changed nothing')
})
