/**
 * Setup → Calendar's CalDAV form against a real CalDAV server (Radicale on 127.0.0.1): a wrong app
 * password refused beside its field with nothing connected, the right one connected with the server's
 * calendars offered to the type form; the password never in a page nor a log line.
 */
import t from 'tap'
import { loggerOptions } from '../../../src/http/server.ts'
import { buildApp } from '../../helpers/build-app.ts'
import { startRadicale } from '../../support/radicale.ts'
import { ownerCalendarApp } from '../../support/radicale-calendars.ts'
import { signedInConsole, TEST_ENV } from './console-helpers.ts'

const radicale = await startRadicale()
t.teardown(() => radicale.stop())
const PAGE = '/app/setup/calendar'

t.test('CalDAV from the console: a wrong app password refused, the right one connected, never shown or logged', async (t) => {
  const calendarId = await ownerCalendarApp(radicale).newCalendar()
  const logged: string[] = []
  const app = await buildApp(t, { env: { ...TEST_ENV, LEADLINE_CALENDAR_ALLOW_PRIVATE: '1' }, logger: { ...(loggerOptions('trace') as object), stream: { write: (line: string) => logged.push(line) } } })
  const f = await signedInConsole(t, { app })
  await f.browser.get(PAGE)
  const fields = { server_url: radicale.url, username: radicale.username }

  const wrong = await f.browser.post(`${PAGE}/caldav`, { ...fields, password: `${radicale.password}-not` })
  t.equal(wrong.statusCode, 400)
  t.match(wrong.body, /aria-invalid="true" aria-describedby="caldav-password-error">\s*<p class="error" role="alert" id="caldav-password-error">The server refused this username and app password/)
  t.equal((await app.leadline.calendars.setup(f.accountId)).connection, null, 'nothing connected')

  const right = await f.browser.post(`${PAGE}/caldav`, { ...fields, password: radicale.password })
  t.equal(right.statusCode, 303, right.body.slice(0, 2000))
  const page = await f.browser.get(right.headers.location as string)
  t.match(page.body, new RegExp(`Connected: ${radicale.username} at 127\\.0\\.0\\.1:\\d+\\.`))
  t.match(page.body, /<dt>Provider<\/dt><dd>CalDAV<\/dd>/)
  t.match(page.body, new RegExp(`<option value="${calendarId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`), "the server's calendar offered to the type form")

  for (const body of [wrong.body, right.body, page.body]) t.notMatch(body, radicale.password, 'the password in no page')
  t.ok(logged.some((line) => line.includes('/setup/calendar/caldav')))
  t.notMatch(logged.join('\n'), radicale.password, 'the password in no log line')
})
