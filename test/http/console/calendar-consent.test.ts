/**
 * Setup → Calendar's two-step connections against the doubles: Google's consent round trip (start →
 * the double's consent page → the callback → connected, the refresh token sealed: in no page, log line,
 * event or `audit export`), finished on a second node, a state used twice, forged, expired or from another session refused, the
 * owner saying no; and Cal.com's API key, then its event type (the key never in a page or a log).
 */
import t, { type Test } from 'tap'
import { runCli } from '../../../src/cli/main.ts'
import { loggerOptions } from '../../../src/http/server.ts'
import { PENDING_COOKIE, PENDING_TTL_MS } from '../../../src/http/console/calendar-pending.ts'
import { buildApp, type TestApp } from '../../helpers/build-app.ts'
import { FAKE_GOOGLE_CLIENT_ID, FAKE_GOOGLE_CLIENT_SECRET, FAKE_GOOGLE_OWNER, startFakeGoogle, type FakeGoogle } from '../../doubles/fake-google-calendar.ts'
import { FAKE_CALCOM_KEY, startFakeCalCom } from '../../doubles/fake-calcom.ts'
import { Browser, signedInConsole, TEST_ENV, type ConsoleFixture } from './console-helpers.ts'

const PAGE = '/app/setup/calendar'
const PUBLIC_URL = 'https://leads.example.com'
const CALLBACK = `${PUBLIC_URL}${PAGE}/google/callback`

interface Setup {
  readonly google: FakeGoogle
  readonly app: TestApp
  readonly logged: string[]
  readonly now: { at: number }
}

async function setup(t: Test, options: { store?: 'sqlite'; sameLogAs?: Setup } = {}): Promise<Setup> {
  const google = options.sameLogAs?.google ?? await startFakeGoogle()
  if (!options.sameLogAs) t.teardown(() => google.close())
  const logged: string[] = []
  const now = { at: Date.parse('2026-03-10T15:00:00Z') }
  const app = await buildApp(t, {
    publicUrl: PUBLIC_URL,
    clock: () => new Date(now.at),
    env: { ...TEST_ENV, LEADLINE_CALENDAR_ALLOW_PRIVATE: '1', GOOGLE_CLIENT_ID: FAKE_GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET: FAKE_GOOGLE_CLIENT_SECRET, LEADLINE_GOOGLE_API_URL: google.url },
    logger: { ...(loggerOptions('trace') as object), stream: { write: (line: string) => logged.push(line) } },
    ...(options.store ? { store: options.store } : {}),
    ...(options.sameLogAs ? { sameLogAs: options.sameLogAs.app } : {}),
  })
  return { google, app, logged, now }
}

/** "Connect Google Calendar": the console's redirect to Google, the consent parameters it carries. */
async function start(t: Test, f: ConsoleFixture, google: FakeGoogle): Promise<URL> {
  const started = await f.browser.get(`${PAGE}/google/start`)
  t.equal(started.statusCode, 303, 'off to Google')
  const consent = new URL(started.headers.location as string)
  t.equal(`${consent.origin}${consent.pathname}`, `${google.url}/o/oauth2/v2/auth`, "Google's consent page, at LEADLINE_GOOGLE_API_URL")
  return consent
}

/** The owner says yes on Google's page; Google sends the browser back to the callback: its path and query. */
async function consentAt(t: Test, consent: URL): Promise<string> {
  const answer = await fetch(consent, { redirect: 'manual' })
  t.equal(answer.status, 302)
  const back = new URL(answer.headers.get('location') as string)
  t.equal(`${back.origin}${back.pathname}`, CALLBACK, 'back to the redirect URI under the public URL')
  return `${back.pathname}${back.search}`
}

const codeExchanges = (google: FakeGoogle) => google.requests().filter((r) => r.path === '/token' && r.body.includes('grant_type=authorization_code'))

t.test('Google: start, consent, callback, connected; the refresh token sealed and nowhere else', async (t) => {
  const { google, app, logged } = await setup(t, { store: 'sqlite' })
  const f = await signedInConsole(t, { app })
  const page = await f.browser.get(PAGE)
  t.match(page.body, /<a class="button" href="\/app\/setup\/calendar\/google\/start" id="google-connect">Connect Google Calendar<\/a>/)

  const consent = await start(t, f, google)
  const q = consent.searchParams
  t.match({ client_id: q.get('client_id'), redirect_uri: q.get('redirect_uri'), access_type: q.get('access_type'), prompt: q.get('prompt'), method: q.get('code_challenge_method') },
    { client_id: FAKE_GOOGLE_CLIENT_ID, redirect_uri: CALLBACK, access_type: 'offline', prompt: 'consent', method: 'S256' })
  t.match(q.get('state'), /^[A-Za-z0-9_-]{43}$/, 'a random state of 32 bytes')
  const pending = f.browser.cookies.get(PENDING_COOKIE) as string
  t.match(pending, /^llsealed1\./, 'the state and the PKCE verifier kept sealed in the browser, not in the URL')
  t.notMatch(pending, q.get('state')!, 'not even the state in the clear')
  const cookie = (f.browser.last!.cookies as Array<{ name: string; path?: string; httpOnly?: boolean; secure?: boolean; sameSite?: string; maxAge?: number }>).find((c) => c.name === PENDING_COOKIE)
  t.match(cookie, { path: PAGE, httpOnly: true, secure: true, sameSite: 'Lax', maxAge: PENDING_TTL_MS / 1000 })

  const callback = await consentAt(t, consent)
  const back = await f.browser.get(callback)
  t.equal(back.statusCode, 303)
  t.equal(back.headers.location, `${PAGE}?connected`)
  t.notOk(f.browser.cookies.has(PENDING_COOKIE), 'the pending consent is cleared')
  const exchange = Object.fromEntries(new URLSearchParams(codeExchanges(google)[0]!.body))
  t.match(exchange, { redirect_uri: CALLBACK, client_id: FAKE_GOOGLE_CLIENT_ID, code_verifier: /^[A-Za-z0-9._~-]{43,128}$/ }, 'the code exchanged with its PKCE verifier')

  const connected = await f.browser.get(`${PAGE}?connected`)
  t.match(connected.body, /role="status">Connected: Google Calendar\./)
  t.match(connected.body, /<dt>Provider<\/dt><dd>Google Calendar<\/dd>[\s\S]*<li>owner@roofing\.example <span class="muted">\(America\/New_York\)<\/span><\/li>/)
  t.match(connected.body, /<dt>Connected<\/dt><dd><time datetime="2026-03-10T15:00:00\.000Z">2026-03-10 11:00 EDT<\/time>/)

  // The refresh token Leadline holds is the one it refreshes with: read it from that request to Google.
  const refresh = google.requests().find((r) => r.path === '/token' && r.body.includes('grant_type=refresh_token'))
  const refreshToken = new URLSearchParams(refresh?.body).get('refresh_token') as string
  t.match(refreshToken, /^1\/\/0fake-/)
  const opened = await app.leadline.calendars.open(f.accountId)
  t.same(await opened?.listCalendars(), [{ id: FAKE_GOOGLE_OWNER, name: FAKE_GOOGLE_OWNER, timeZone: 'America/New_York' }], 'the sealed credentials open for bookings')

  const events = JSON.stringify(await app.leadline.store.readAll())
  t.match(events, /"type":"CalendarConnected"[^}]*"provider":"google"/)
  t.notMatch(events, refreshToken, 'the log holds the token only sealed')
  t.notMatch(events, FAKE_GOOGLE_CLIENT_SECRET, 'and the client secret only sealed')
  let out = ''
  let err = ''
  const code = await runCli(['audit', 'export', '--account', f.accountId, '--include-recordings'], { out: (s) => (out += s), err: (s) => (err += s), env: { LEADLINE_STORE: app.store, LOG_LEVEL: 'silent' } })
  t.equal(code, 0, err)
  t.match(out, /"type":"CalendarConnected"/)
  t.notMatch(out, refreshToken, 'not in audit export')
  t.notMatch(out, /llsealed1\./, 'nor its sealed form')
  for (const body of [page.body, connected.body]) t.notMatch(body, refreshToken)
  t.ok(logged.some((line) => line.includes('/google/callback')), 'the callback was logged')
  const logs = logged.join('\n')
  t.notMatch(logs, refreshToken, 'the refresh token is in no log line')
  t.notMatch(logs, new URLSearchParams(callback.split('?')[1]).get('code')!, 'nor the consent code')
  t.notMatch(logs, FAKE_GOOGLE_CLIENT_SECRET, 'nor the client secret')
})

t.test('Google: a state used twice, forged, expired or from another session is refused; nothing is exchanged for it', async (t) => {
  const { google, app, now } = await setup(t)
  const f = await signedInConsole(t, { app })
  const callback = await consentAt(t, await start(t, f, google))
  const kept = f.browser.cookies.get(PENDING_COOKIE) as string
  t.equal((await f.browser.get(callback)).statusCode, 303, 'the first callback connects')
  f.browser.cookies.set(PENDING_COOKIE, kept)
  const replayed = await f.browser.get(callback)
  t.equal(replayed.statusCode, 400, 'the same state and cookie again: refused')
  t.match(replayed.body, /role="alert" id="google-error">This Google consent has expired, was already used, or was started in another session: nothing was connected\. Connect Google Calendar again\./)
  t.equal(codeExchanges(google).length, 1, 'the code was exchanged once')

  const fresh = await consentAt(t, await start(t, f, google))
  const forged = fresh.replace(/state=[^&]+/, 'state=forged-state-of-an-attacker')
  t.equal((await f.browser.get(forged)).statusCode, 400, 'a state that is not the one kept')
  t.equal((await f.browser.get(fresh)).statusCode, 400, 'the cookie is spent by the refusal too')

  const late = await consentAt(t, await start(t, f, google))
  now.at += PENDING_TTL_MS + 1000
  t.equal((await f.browser.get(late)).statusCode, 400, 'a consent older than its time is refused')

  const mine = await consentAt(t, await start(t, f, google))
  const stolen = f.browser.cookies.get(PENDING_COOKIE) as string
  const other = await signedInConsole(t, { app, email: 'intruder@example.com' })
  other.browser.cookies.set(PENDING_COOKIE, stolen)
  t.equal((await other.browser.get(mine)).statusCode, 400, "another owner's session cannot finish it")
  t.equal(codeExchanges(google).length, 1, 'no refused callback reached Google')
  t.equal((await app.leadline.calendars.setup(other.accountId)).connection, null)
})

t.test('Google: a consent started on one node is finished on another (the same log and key), as behind a load balancer or after a restart', async (t) => {
  const first = await setup(t, { store: 'sqlite' })
  const f = await signedInConsole(t, { app: first.app })
  const callback = await consentAt(t, await start(t, f, first.google))
  const second = await setup(t, { sameLogAs: first })
  await second.app.leadline.runner.catchUp()
  const onSecond = new Browser(second.app)
  for (const [name, value] of f.browser.cookies) onSecond.cookies.set(name, value)
  const back = await onSecond.get(callback)
  t.equal(back.statusCode, 303, back.body.slice(0, 500))
  t.equal(back.headers.location, `${PAGE}?connected`)
  t.match(await second.app.leadline.calendars.setup(f.accountId), { connection: { provider: 'google' } })
})

t.test('Google: the owner says no, or unticks a permission: a plain message, nothing connected', async (t) => {
  const { google, app } = await setup(t)
  const f = await signedInConsole(t, { app })
  const consent = await start(t, f, google)
  const denied = await f.browser.get(`${PAGE}/google/callback?error=access_denied&state=${consent.searchParams.get('state')}`)
  t.equal(denied.statusCode, 400)
  t.match(denied.body, /role="alert" id="google-error">You did not allow Leadline to use Google Calendar: nothing was connected\. Connect again when you are ready\./)
  t.equal((await app.leadline.calendars.setup(f.accountId)).connection, null)

  google.consentGrants(['https://www.googleapis.com/auth/calendar.events'])
  const narrowed = await f.browser.get(await consentAt(t, await start(t, f, google)))
  t.equal(narrowed.statusCode, 400)
  t.match(narrowed.body, /Leadline needs both permissions Google asks for[^<]*nothing was connected/)
  t.equal((await app.leadline.calendars.setup(f.accountId)).connection, null)
})

t.test('Cal.com: the API key, then the event type; refusals beside their field; the key in no page and no log', async (t) => {
  const calcom = await startFakeCalCom()
  t.teardown(() => calcom.close())
  const { app, logged } = await setup(t)
  const f = await signedInConsole(t, { app })
  await f.browser.get(PAGE)

  const missing = await f.browser.post(`${PAGE}/calcom`, { api_key: '', base_url: calcom.url })
  t.equal(missing.statusCode, 400)
  t.match(missing.body, /id="calcom-apiKey-error">The API key is needed/)
  const badUrl = await f.browser.post(`${PAGE}/calcom`, { api_key: FAKE_CALCOM_KEY, base_url: 'api.cal.example' })
  t.match(badUrl.body, /id="calcom-baseUrl-error">The API address must be a web address/)
  const wrong = await f.browser.post(`${PAGE}/calcom`, { api_key: 'cal_live_wrongwrongwrong', base_url: calcom.url })
  t.equal(wrong.statusCode, 400)
  t.match(wrong.body, /aria-invalid="true" aria-describedby="calcom-apiKey-error">\s*<p class="error" role="alert" id="calcom-apiKey-error">Cal\.com refused this API key/)
  t.match(wrong.body, `value="${calcom.url}"`, 'the address stays typed')
  t.notMatch(wrong.body, 'cal_live_wrongwrongwrong', 'the key is not written back')

  const step = await f.browser.post(`${PAGE}/calcom`, { api_key: FAKE_CALCOM_KEY, base_url: calcom.url })
  t.equal(step.statusCode, 200)
  t.match(step.body, /<h1>Setup → Calendar: Cal\.com event type<\/h1>/)
  t.match(step.body, /<input type="radio" name="event_type" value="501"> Roof estimate[\s\S]*value="502"> Quick call/)
  t.match(step.body, /make the phone number required and the email optional or hidden/)
  t.equal((await app.leadline.calendars.setup(f.accountId)).connection, null, 'nothing connected before the event type is chosen')

  const none = await f.browser.post(`${PAGE}/calcom/event-type`, {})
  t.equal(none.statusCode, 400)
  t.match(none.body, /id="calcom-event-type-error">Choose the event type leads book into/)
  const absent = await f.browser.post(`${PAGE}/calcom/event-type`, { event_type: '999' })
  t.equal(absent.statusCode, 400)
  t.match(absent.body, /id="calcom-event-type-error">Nothing was connected: the calendar or the event was not found/)
  t.equal((await f.browser.post(`${PAGE}/calcom/event-type`, { event_type: '501', _csrf: 'forged' })).statusCode, 403)

  const chosen = await f.browser.post(`${PAGE}/calcom/event-type`, { event_type: '501' })
  t.equal(chosen.statusCode, 303)
  t.notOk(f.browser.cookies.has(PENDING_COOKIE), 'the kept key is cleared from the browser')
  const page = await f.browser.get(`${PAGE}?connected`)
  t.match(page.body, /Connected: Cal\.com \(event type 501\) at 127\.0\.0\.1:\d+\./)
  t.match(page.body, /<dt>Calendars it offers<\/dt><dd><ul><li>Roof estimate <span class="muted">\(America\/New_York\)<\/span><\/li><\/ul>/)
  t.match(await app.leadline.calendars.setup(f.accountId), { connection: { provider: 'calcom', calendars: [{ id: '501', name: 'Roof estimate' }] } })

  const again = await f.browser.post(`${PAGE}/calcom/event-type`, { event_type: '502' })
  t.equal(again.statusCode, 400, 'the step is over once used')
  t.match(again.body, /id="calcom-apiKey-error">The Cal\.com step expired/)

  for (const body of [missing, badUrl, wrong, step, none, absent, chosen, page, again].map((r) => r.body)) t.notMatch(body, FAKE_CALCOM_KEY, 'the key in no page')
  t.ok(logged.some((line) => line.includes('/setup/calendar/calcom')))
  t.notMatch(logged.join('\n'), FAKE_CALCOM_KEY, 'the key in no log line')
  t.notMatch(JSON.stringify(await app.leadline.store.readAll()), FAKE_CALCOM_KEY, 'the key on the log only sealed')
})
