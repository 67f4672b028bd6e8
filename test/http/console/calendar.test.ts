/**
 * Setup → Calendar through `inject` with a signed-in owner: the simulated calendar connected from its
 * button, appointment types added, edited and removed with each refusal shown beside its field and
 * nothing saved, disconnect behind a confirm step, no post without the form's CSRF token, and the
 * CalDAV form's refusals (the app password never written back into the page nor into the logs).
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { buildApp } from '../../helpers/build-app.ts'
import { calendarSyncDecider } from '../../../src/domain/calendar-sync/calendar-sync.decider.ts'
import { calendarSyncStream } from '../../../src/domain/calendar-sync/calendar-sync.events.ts'
import { loggerOptions } from '../../../src/http/server.ts'
import { signedInConsole, TEST_ENV, type ConsoleFixture } from './console-helpers.ts'

const PAGE = '/app/setup/calendar'

async function accountEvents(f: ConsoleFixture): Promise<string[]> {
  return (await f.app.leadline.store.readAll()).filter((e) => e.stream === `account-${f.accountId}`).map((e) => e.type)
}

/** The simulated calendar connected from its button; the calendar's id as the type form offers it. */
async function connectSimulated(t: Test, f: ConsoleFixture): Promise<string> {
  await f.browser.get(PAGE)
  const connected = await f.browser.post(`${PAGE}/simulated`)
  t.equal(connected.statusCode, 303)
  t.equal(connected.headers.location, `${PAGE}?connected`)
  const page = await f.browser.get(connected.headers.location as string)
  return /<select id="type-calendarId" name="calendar"><option value="([^"]+)" selected>/.exec(page.body)?.[1] ?? ''
}

t.test('the page: under Setup, nothing connected yet, every way to connect offered, Google saying what to set', async (t) => {
  const f = await signedInConsole(t)
  const page = await f.browser.get(PAGE)
  t.equal(page.statusCode, 200)
  t.match(page.body, /<a href="\/app\/setup\/calendar" aria-current="page"><span class="section">Setup → <\/span>Calendar<\/a>/, 'in the navigation, under Setup')
  t.match(page.body, /id="calendar-status">No calendar is connected/)
  t.match(page.body, /<form method="post" action="\/app\/setup\/calendar\/caldav"/)
  t.match(page.body, /An app password, not your main one/)
  t.match(page.body, /<code>https:\/\/caldav\.icloud\.com<\/code>[\s\S]*<code>https:\/\/caldav\.fastmail\.com<\/code>[\s\S]*remote\.php\/dav/, 'hints for iCloud, Fastmail and Nextcloud')
  t.match(page.body, /<form method="post" action="\/app\/setup\/calendar\/calcom"/)
  t.match(page.body, /Simulated calendar \(demo\)[\s\S]*Use the simulated calendar/)
  t.match(page.body, /id="google-not-configured">Google Calendar is not set up on this server[\s\S]*<code>GOOGLE_CLIENT_ID<\/code> and <code>GOOGLE_CLIENT_SECRET<\/code>[\s\S]*<code>http:\/\/leadline\.test\/app\/setup\/calendar\/google\/callback<\/code>/)
  t.notMatch(page.body, /Connect Google Calendar<\/a>/, 'no consent button without the OAuth client')
  t.match(page.body, /Connect a calendar first/, 'no type form before a calendar')
  const start = await f.browser.get(`${PAGE}/google/start`)
  t.equal(start.statusCode, 400, 'consent cannot start without the OAuth client')
  t.match(start.body, /role="alert" id="google-error">Google Calendar is not set up on this server: your Leadline operator sets GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET first\./)

  const signedOut = await signedInConsole(t, { app: f.app, email: 'nobody@example.com', signIn: false })
  const away = await signedOut.browser.get(PAGE)
  t.equal(away.statusCode, 303)
  t.equal(away.headers.location, '/app/sign-in?next=%2Fapp%2Fsetup%2Fcalendar')
})

t.test('the simulated calendar: connected from its button, shown with its calendars and the time in the account zone', async (t) => {
  const f = await signedInConsole(t, { clock: () => new Date('2026-03-10T15:04:00Z') })
  const forged = await f.browser.post(`${PAGE}/simulated`, { _csrf: 'forged' })
  t.equal(forged.statusCode, 403, 'no connection without the form\'s token')
  t.same(await accountEvents(f).then((types) => types.filter((type) => type === 'CalendarConnected')), [])
  const calendarId = await connectSimulated(t, f)
  t.equal(calendarId, 'simulated:primary')
  const page = f.browser.last!
  t.match(page.body, /role="status">Connected: Simulated calendar \(in memory: nothing reaches a real calendar\)\./)
  t.match(page.body, /<dt>Provider<\/dt><dd>Simulated \(demo\)<\/dd>/)
  t.match(page.body, /<dt>Calendars it offers<\/dt><dd><ul><li>Simulated calendar/)
  t.match(page.body, /<dt>Connected<\/dt><dd><time datetime="2026-03-10T15:04:00\.000Z">2026-03-10 11:04 EDT<\/time><\/dd>/, 'in the account zone, the zone named')
  t.match(page.body, /<h2>Connect another calendar<\/h2>[\s\S]*connecting another replaces the one above/)
  t.match(page.body, /<h3>Add an appointment type<\/h3>/)
  t.match(page.body, /<dt>Edits in the calendar<\/dt><dd id="calendar-sync">checked every minute while an appointment is booked<\/dd>/, 'whether edits made in the calendar are seen')
})

t.test('the calendar\'s edits not seen: since when and why, in plain words', async (t) => {
  const f = await signedInConsole(t, { clock: () => new Date('2026-03-10T15:04:00Z') })
  await connectSimulated(t, f)
  await f.app.leadline.commands.handle(calendarSyncStream(f.accountId), calendarSyncDecider, { type: 'RecordSyncFailure', accountId: f.accountId, kind: 'unauthorized', message: 'the calendar refused the username or password' }, { actor: { kind: 'process', id: 'calendar-sync' }, correlationId: 'test' })
  const page = await f.browser.get(PAGE)
  t.match(page.body, /<dd id="calendar-sync" class="error">not seen since <time datetime="2026-03-10T15:04:00\.000Z">2026-03-10 11:04 EDT<\/time>: the calendar refused the username or password\./)
})

t.test('appointment types: added, listed, edited, refused field by field with nothing saved, removed', async (t) => {
  const f = await signedInConsole(t)
  const calendar = await connectSimulated(t, f)
  const added = await f.browser.post(`${PAGE}/types`, { name: 'Roof estimate', duration: '60', buffer: '15', hours: 'mon-fri 09:00-16:00', notice: '240', maxPerDay: '4', calendar })
  t.equal(added.statusCode, 303)
  t.equal(added.headers.location, `${PAGE}?saved`)
  const listed = await f.browser.get(`${PAGE}?saved`)
  t.match(listed.body, /role="status">Appointment type saved\./)
  t.match(listed.body, /<tr data-type="roof-estimate">\s*<th scope="row">Roof estimate<\/th>\s*<td>60 min<\/td>\s*<td>15 min<\/td>\s*<td><code>mon-fri 09:00-16:00<\/code><\/td>\s*<td>240 min<\/td>\s*<td>4<\/td>\s*<td>Simulated calendar/)
  t.match(await f.app.leadline.calendars.setup(f.accountId), { types: [{ id: 'roof-estimate', name: 'Roof estimate', durationMinutes: 60, bufferMinutes: 15, bookableHours: 'mon-fri 09:00-16:00', minimumNoticeMinutes: 240, maxPerDay: 4, calendarId: calendar }] })

  // A second type of the same name gets an id of its own; blanks take the defaults (business hours, no limit).
  await f.browser.post(`${PAGE}/types`, { name: 'Roof estimate', duration: '30', buffer: '', hours: '', notice: '', maxPerDay: '', calendar })
  const second = (await f.app.leadline.calendars.setup(f.accountId)).types.find((type) => type.id === 'roof-estimate-2')
  t.match(second, { durationMinutes: 30, bufferMinutes: 0, bookableHours: null, minimumNoticeMinutes: 120, maxPerDay: null })
  t.match((await f.browser.get(PAGE)).body, /<tr data-type="roof-estimate-2">[\s\S]*<span class="muted">business hours<\/span>[\s\S]*<span class="muted">no limit<\/span>/)

  const saved = (await accountEvents(f)).length
  const refusals: Array<[Record<string, string>, string, RegExp]> = [
    [{ name: '', duration: '30' }, 'name', /Name: must not be empty\. Nothing was saved\./],
    [{ name: 'Call', duration: '2' }, 'durationMinutes', /Length: must be at least 5\. Nothing was saved\./],
    [{ name: 'Call', duration: '' }, 'durationMinutes', /Length: is needed, in minutes\./],
    [{ name: 'Call', duration: 'half an hour' }, 'durationMinutes', /Length: must be a whole number\./],
    [{ name: 'Call', duration: '30', buffer: '-5' }, 'bufferMinutes', /Buffer: must be a whole number\./],
    [{ name: 'Call', duration: '30', hours: 'mon 25:00-26:00' }, 'bookableHours', /Bookable hours: invalid calling hours &#34;mon 25:00-26:00&#34;: bad time &#34;25:00&#34;\./],
    [{ name: 'Call', duration: '30', maxPerDay: '0' }, 'maxPerDay', /At most a day: must be at least 1\./],
    [{ name: 'Call', duration: '30', calendar: 'somebody-elses' }, 'calendarId', /Calendar: not one of the connected calendar&#39;s: choose one from the list\./],
  ]
  for (const [fields, field, message] of refusals) {
    const refused = await f.browser.post(`${PAGE}/types`, { calendar, ...fields })
    t.equal(refused.statusCode, 400, field)
    t.match(refused.body, new RegExp(`aria-invalid="true" aria-describedby="type-${field}-error">(?:<option[^]*?</select>)?\\s*<p class="error" role="alert" id="type-${field}-error">${message.source}`), `${field}: the refusal beside the field`)
    if (fields.name) t.match(refused.body, new RegExp(`id="type-name" name="name" value="${fields.name}"`), 'what was typed stays in the form')
  }
  t.equal((await accountEvents(f)).length, saved, 'nothing saved by any refusal')

  const edit = await f.browser.get(`${PAGE}?edit=roof-estimate`)
  t.match(edit.body, /<h3>Edit Roof estimate<\/h3>\s*<input type="hidden" name="id" value="roof-estimate">/)
  t.match(edit.body, /id="type-durationMinutes" name="duration" value="60"/)
  await f.browser.post(`${PAGE}/types`, { id: 'roof-estimate', name: 'Roof inspection', duration: '45', buffer: '15', hours: '', notice: '240', maxPerDay: '4', calendar })
  const types = (await f.app.leadline.calendars.setup(f.accountId)).types
  t.match(types.find((type) => type.id === 'roof-estimate'), { name: 'Roof inspection', durationMinutes: 45, bookableHours: null }, 'edited in place, same id')
  t.equal(types.length, 2)

  await f.browser.get(PAGE)
  t.equal((await f.browser.post(`${PAGE}/types/roof-estimate-2/remove`, { _csrf: 'forged' })).statusCode, 403)
  const removed = await f.browser.post(`${PAGE}/types/roof-estimate-2/remove`)
  t.equal(removed.headers.location, `${PAGE}?removed`)
  const after = await f.browser.get(`${PAGE}?removed`)
  t.match(after.body, /Appointment type removed\. Appointments already booked keep their time\./)
  t.notMatch(after.body, /data-type="roof-estimate-2"/)
  const gone = await f.browser.post(`${PAGE}/types/roof-estimate-2/remove`)
  t.equal(gone.statusCode, 404, 'a type removed already is not found')
})

t.test('disconnect: a confirm page first, then the post; the types stay', async (t) => {
  const f = await signedInConsole(t)
  const calendar = await connectSimulated(t, f)
  await f.browser.post(`${PAGE}/types`, { name: 'Quick call', duration: '15', calendar })
  const confirm = await f.browser.get(`${PAGE}/disconnect`)
  t.equal(confirm.statusCode, 200)
  t.match(confirm.body, /<h1>Disconnect Simulated calendar[^<]*\?<\/h1>[\s\S]*Appointments already booked stay[\s\S]*<form method="post" action="\/app\/setup\/calendar\/disconnect"/)
  t.not((await f.app.leadline.calendars.setup(f.accountId)).connection, null, 'looking changes nothing')
  t.equal((await f.browser.post(`${PAGE}/disconnect`, { _csrf: 'forged' })).statusCode, 403)
  const done = await f.browser.post(`${PAGE}/disconnect`)
  t.equal(done.headers.location, `${PAGE}?disconnected`)
  const page = await f.browser.get(`${PAGE}?disconnected`)
  t.match(page.body, /Calendar disconnected\. The appointment types stay/)
  t.match(page.body, /id="calendar-status">No calendar is connected/)
  t.match(page.body, /<tr data-type="quick-call">[\s\S]*not in the connected calendar/, 'the type stays, its calendar named as gone')
  t.equal((await f.browser.get(`${PAGE}/disconnect`)).statusCode, 303, 'nothing to disconnect: back to the page')
  const refused = await f.browser.post(`${PAGE}/types`, { name: 'Another', duration: '15', calendar })
  t.equal(refused.statusCode, 400)
  t.match(refused.body, /role="alert" id="type-error">Nothing was saved: connect a calendar first/)
})

t.test('CalDAV: each field refused beside it, the app password never in the page nor the logs, nothing connected', async (t) => {
  // A server that refuses every login, as a CalDAV server does a main password where an app password is needed.
  const refusing = http.createServer((_req, res) => res.writeHead(401, { 'www-authenticate': 'Basic realm="caldav"' }).end())
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => refusing.close(() => resolve())))
  const closed = http.createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const closedPort = (closed.address() as AddressInfo).port
  await new Promise<void>((resolve) => closed.close(() => resolve()))

  const logged: string[] = []
  // The refusing servers listen on 127.0.0.1, which only LEADLINE_CALENDAR_ALLOW_PRIVATE lets a calendar be on.
  const app = await buildApp(t, { env: { ...TEST_ENV, LEADLINE_CALENDAR_ALLOW_PRIVATE: '1' }, logger: { ...(loggerOptions('trace') as object), stream: { write: (line: string) => logged.push(line) } } })
  const f = await signedInConsole(t, { app })
  const password = 'abcd-efgh-ijkl-mnop-secret'
  const base = { server_url: `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/dav`, username: 'owner@example.com', password }
  const cases: Array<[Record<string, string>, string, RegExp]> = [
    [{ ...base, server_url: 'caldav.example.com' }, 'serverUrl', /The server address must be a web address starting with https:\/\//],
    [{ ...base, server_url: 'https://owner:pw@caldav.example.com/' }, 'serverUrl', /must be a web address/],
    [{ ...base, username: ' ' }, 'username', /The username is needed/],
    [{ ...base, password: '' }, 'password', /The app password is needed/],
    [base, 'password', /The server refused this username and app password: check both, and that it is an app password/],
    [{ ...base, server_url: `http://127.0.0.1:${closedPort}/dav` }, 'serverUrl', /Nothing was connected: the calendar could not be reached/],
  ]
  await f.browser.get(PAGE)
  for (const [fields, field, message] of cases) {
    const refused = await f.browser.post(`${PAGE}/caldav`, fields)
    t.equal(refused.statusCode, 400, `${field}: ${message.source}`)
    t.match(refused.body, new RegExp(`id="caldav-${field}-error">[^<]*${message.source}`), `${field}: beside the field`)
    t.notMatch(refused.body, password, 'the password is not written back')
    if (fields.username?.trim()) t.match(refused.body, `value="${fields.username}"`, 'the username stays typed')
  }
  t.equal((await app.leadline.calendars.setup(f.accountId)).connection, null, 'nothing connected')
  t.ok(logged.some((line) => line.includes('/app/setup/calendar/caldav')), 'the requests were logged')
  t.notMatch(logged.join('\n'), password, 'the password is in no log line')

  // Without the setting, a calendar on the server's own network is refused in words, before anything is sent to it.
  const closedApp = await signedInConsole(t)
  await closedApp.browser.get(PAGE)
  const local = await closedApp.browser.post(`${PAGE}/caldav`, { ...base, server_url: base.server_url.replace('http:', 'https:') })
  t.equal(local.statusCode, 400)
  t.match(local.body, /id="caldav-error">[^<]*127\.0\.0\.1 is not a public address/, 'a private address refused, saying why')
  t.notMatch(local.body, password)
})
