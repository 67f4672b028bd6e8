/** Signing in and out of the console: cookies, CSRF, the attempt limit, session expiry, set-password links. */
import t from 'tap'
import { buildApp, operatorContext } from '../../helpers/build-app.ts'
import { SIGN_IN_LIMIT } from '../../../src/http/console/sign-in.route.ts'
import { SESSION_IDLE_MS, SESSION_RENEW_AFTER_MS } from '../../../src/domain/user/user.decider.ts'
import { Browser, ownerWithPassword, PASSWORD, signedInConsole, TEST_ENV } from './console-helpers.ts'

t.test('sign in: a session cookie (httpOnly, SameSite=Lax, Path=/app), then the console; signed-in events on the log', async (t) => {
  const { app, browser, email, accountId } = await signedInConsole(t, { signIn: false })
  const page = await browser.get('/app/leads')
  t.equal(page.statusCode, 303, 'signed out: sent to sign in')
  t.equal(page.headers.location, '/app/sign-in?next=%2Fapp%2Fleads')

  const form = await browser.get('/app/sign-in?next=%2Fapp%2Fsettings')
  t.equal(form.statusCode, 200)
  t.match(form.headers['content-security-policy'], "script-src 'self'", 'a strict CSP')
  t.notMatch(form.body, /<script>|<style>|style="/, 'no inline script or style')
  t.match(form.body, /<label for="email">Email<\/label>/, 'labelled fields')
  const csrfCookie = (form.cookies as Array<{ name: string; httpOnly?: boolean; path?: string; sameSite?: string }>).find((c) => c.name === 'leadline_csrf')
  t.match(csrfCookie, { httpOnly: true, path: '/app', sameSite: 'Strict' }, 'the CSRF secret is an httpOnly cookie')

  const signedIn = await browser.post('/app/sign-in', { email: email.toUpperCase(), password: PASSWORD, next: '/app/settings' })
  t.equal(signedIn.statusCode, 303)
  t.equal(signedIn.headers.location, '/app/settings', 'back to where the owner was going')
  const cookie = (signedIn.cookies as Array<{ name: string; value: string; httpOnly?: boolean; path?: string; sameSite?: string; secure?: boolean }>).find((c) => c.name === 'leadline_session')
  t.match(cookie, { httpOnly: true, path: '/app', sameSite: 'Lax' })
  t.notOk(cookie?.secure, 'not Secure on an http public URL')
  t.match(cookie?.value, /^llsess_[0-9a-z]{32}$/)
  t.equal((await browser.get('/app/settings')).statusCode, 200, 'signed in')

  const events = (await app.leadline.store.readAll()).filter((e) => e.stream.startsWith(`user-${accountId}-`))
  t.same(events.map((e) => e.type), ['UserCreated', 'PasswordSetupIssued', 'PasswordSet', 'SignedIn'])
  t.notOk(JSON.stringify(events).includes(cookie?.value ?? 'x'), 'the session token is not on the log (only its hash)')
  t.notOk(JSON.stringify(events).includes(PASSWORD), 'nor the password')
  t.match((events[2]?.data as { passwordHash: string }).passwordHash, /^scrypt\$ln=10,r=8,p=1\$/)

  t.equal((await browser.post('/app/sign-in', { email, password: PASSWORD, next: 'https://evil.example.com/' })).headers.location, '/app/home', 'never sent to another site')
})

t.test('the cookie is Secure when the public URL is https', async (t) => {
  const app = await buildApp(t, { env: TEST_ENV, publicUrl: 'https://leads.example.com' })
  const { browser } = await signedInConsole(t, { app, signIn: false })
  const response = await browser.signIn((await app.leadline.usersQueries.ofAccount((await app.leadline.accountsQueries.list())[0]!.accountId))[0]!.email)
  t.equal(response.statusCode, 303)
  t.match((response.cookies as Array<{ name: string; secure?: boolean }>).find((c) => c.name === 'leadline_session'), { secure: true })
})

t.test('a wrong password or an unknown email: 401, the same words, no cookie, nothing on the log', async (t) => {
  const { app, browser, email } = await signedInConsole(t, { signIn: false })
  const before = await app.leadline.store.headPosition()
  for (const [who, password] of [[email, 'not the password at all'], ['nobody@example.com', PASSWORD]] as const) {
    const response = await browser.signIn(who, password)
    t.equal(response.statusCode, 401, who)
    t.match(response.body, 'Wrong email or password.')
    t.notOk(browser.cookies.has('leadline_session'))
  }
  // A script posting the same form (no text/html in its Accept) gets the JSON error, not the page.
  await browser.get('/app/sign-in')
  const scripted = await app.app.inject({
    method: 'POST', url: '/app/sign-in', headers: { cookie: browser.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: browser.csrf, email, password: 'not it either' }).toString(),
  })
  t.equal(scripted.statusCode, 401)
  t.same(scripted.json(), { error: 'wrong email or password', detail: 'Wrong email or password.' })
  t.equal(await app.leadline.store.headPosition(), before, 'a failed sign-in appends nothing')
})

t.test(`sign-in attempts are limited: ${SIGN_IN_LIMIT} failures per email and address, then 429 even with the right password`, async (t) => {
  const { browser, email, app } = await signedInConsole(t, { signIn: false })
  for (let i = 0; i < SIGN_IN_LIMIT; i++) t.equal((await browser.signIn(email, `wrong password ${i}`)).statusCode, 401)
  const limited = await browser.signIn(email, PASSWORD)
  t.equal(limited.statusCode, 429)
  t.match(limited.body, /Too many failed sign-ins\. Wait 1[45] minutes/)
  t.ok(Number(limited.headers['retry-after']) > 800, 'retry-after says when')
  t.notOk(browser.cookies.has('leadline_session'))
  // Another owner from the same address is not locked out by someone guessing this one's password.
  const other = await app.createAccount('Other Co')
  await ownerWithPassword(app, other.account.accountId, 'other@example.com')
  t.equal((await browser.signIn('other@example.com')).statusCode, 303)
})

t.test('CSRF: a form post without the page token (or with another) is refused, 403, and changes nothing', async (t) => {
  const { app, browser, accountId } = await signedInConsole(t)
  await browser.get('/app/connections/lead-webhook')
  const before = await app.leadline.store.headPosition()
  for (const token of ['', 'forged-token']) {
    const response = await browser.post('/app/connections/lead-webhook/rotate', { _csrf: token })
    t.equal(response.statusCode, 403)
    t.match(response.body, 'This form has expired')
  }
  const noCookie = await app.app.inject({
    method: 'POST', url: '/app/sign-in', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'email=a%40b.c&password=x',
  })
  t.equal(noCookie.statusCode, 403, 'sign-in itself needs the token (no login CSRF)')
  t.equal(await app.leadline.store.headPosition(), before, 'nothing appended')
})

t.test('sign out ends the session at once: the old cookie no longer works', async (t) => {
  const { browser, app } = await signedInConsole(t)
  const stolen = browser.cookieHeader()
  await browser.get('/app/leads')
  const out = await browser.post('/app/sign-out')
  t.equal(out.statusCode, 303)
  t.equal(out.headers.location, '/app/sign-in?signed-out')
  t.notOk(browser.cookies.has('leadline_session'), 'the cookie is cleared')
  const replayed = await app.app.inject({ method: 'GET', url: '/app/leads', headers: { cookie: stolen } })
  t.equal(replayed.statusCode, 303, 'a copy of the old cookie is refused')
  t.equal(replayed.headers.location, '/app/sign-in?next=%2Fapp%2Fleads')
})

t.test(`sessions end after ${SESSION_IDLE_MS / 3600_000} h idle and after 7 days whatever; activity renews them at most hourly`, async (t) => {
  let now = Date.parse('2026-05-04T12:00:00.000Z')
  const clock = () => new Date(now)
  const { browser, app, accountId } = await signedInConsole(t, { clock })
  t.equal((await browser.get('/app/leads')).statusCode, 200)
  now += SESSION_RENEW_AFTER_MS - 1000
  t.equal((await browser.get('/app/leads')).statusCode, 200)
  const renewals = async () => (await app.leadline.store.readAll()).filter((e) => e.stream.startsWith(`user-${accountId}`) && e.type === 'SessionRenewed').length
  t.equal(await renewals(), 0, 'no event for every click')
  now += 2000
  t.equal((await browser.get('/app/leads')).statusCode, 200)
  t.equal(await renewals(), 1, 'renewed once past the hour')
  // Active every 11 hours for 7 days: still signed in until the absolute end.
  const signedInAt = Date.parse('2026-05-04T12:00:00.000Z')
  while (now + 11 * 3600_000 < signedInAt + 7 * 24 * 3600_000) {
    now += 11 * 3600_000
    t.equal((await browser.get('/app/leads')).statusCode, 200, `active at ${new Date(now).toISOString()}`)
  }
  now = signedInAt + 7 * 24 * 3600_000
  t.equal((await browser.get('/app/leads')).statusCode, 303, 'ended after 7 days')

  const idle = new Browser(app)
  t.equal((await idle.signIn(`owner-${accountId}@example.com`)).statusCode, 303)
  now += SESSION_IDLE_MS + 1000
  t.equal((await idle.get('/app/leads')).statusCode, 303, 'ended after 12 idle hours')
})

t.test('a set-password link works once, for 24 hours; a new password ends every session', async (t) => {
  let now = Date.parse('2026-05-04T12:00:00.000Z')
  const app = await buildApp(t, { env: TEST_ENV, clock: () => new Date(now) })
  const { account } = await app.createAccount('Acme')
  const link = await app.leadline.users.create(account.accountId, 'Owner@Example.com', operatorContext)
  t.equal(link.email, 'owner@example.com', 'emails are kept lower-cased')
  const browser = new Browser(app)
  const url = `/app/set-password?token=${link.token}`
  const form = await browser.get(url)
  t.equal(form.statusCode, 200)
  t.match(form.body, 'owner@example.com')
  t.equal(form.headers['referrer-policy'], 'no-referrer', 'the token in the URL is never sent on as a referrer')

  t.match((await browser.post('/app/set-password', { token: link.token, password: 'short', confirm: 'short' })).body, 'use at least 12 characters')
  t.match((await browser.post('/app/set-password', { token: link.token, password: PASSWORD, confirm: `${PASSWORD}!` })).body, 'The two passwords differ.')
  const set = await browser.post('/app/set-password', { token: link.token, password: PASSWORD, confirm: PASSWORD })
  t.equal(set.statusCode, 303)
  t.equal(set.headers.location, '/app/sign-in?password-set')
  t.equal((await browser.get(url)).statusCode, 410, 'used once, gone')
  t.equal((await browser.signIn('owner@example.com')).statusCode, 303)
  t.equal((await browser.get('/app/leads')).statusCode, 200)

  const again = await app.leadline.users.issueLink(account.accountId, 'owner@example.com', operatorContext)
  await app.leadline.users.setPassword(again.token, 'a brand new passphrase')
  t.equal((await browser.get('/app/leads')).statusCode, 303, 'the session made with the old password ended')
  t.equal((await browser.signIn('owner@example.com')).statusCode, 401, 'the old password no longer works')
  t.equal((await browser.signIn('owner@example.com', 'a brand new passphrase')).statusCode, 303)

  const late = await app.leadline.users.issueLink(account.accountId, 'owner@example.com', operatorContext)
  now += 24 * 3600_000
  t.equal((await browser.get(`/app/set-password?token=${late.token}`)).statusCode, 410, 'expired after 24 hours')
  t.equal((await browser.get('/app/set-password?token=llpw_nothing')).statusCode, 410)
})

t.test('one email, one account: adding it to a second account is refused', async (t) => {
  const app = await buildApp(t, { env: TEST_ENV })
  const a = await app.createAccount('A')
  const b = await app.createAccount('B')
  await app.leadline.users.create(a.account.accountId, 'owner@example.com', operatorContext)
  await t.rejects(app.leadline.users.create(b.account.accountId, 'owner@example.com', operatorContext), { code: 'user_exists' })
  await t.rejects(app.leadline.users.create(a.account.accountId, 'OWNER@example.com', operatorContext), { code: 'user_exists' })
  await t.rejects(app.leadline.users.create(a.account.accountId, 'not an email', operatorContext), { code: 'invalid_email' })
})

t.test('unknown console paths are a 404 page; assets are served same-origin', async (t) => {
  const { browser } = await signedInConsole(t)
  const missing = await browser.get('/app/nothing-here')
  t.equal(missing.statusCode, 404)
  t.match(missing.headers['content-type'], 'text/html')
  const css = await browser.get('/app/assets/console.css?v=1')
  t.equal(css.statusCode, 200)
  t.match(css.headers['content-type'], 'text/css')
  t.equal((await browser.get('/app/assets/console.js')).statusCode, 200)
  t.equal((await browser.get('/app/assets/..%2Fhtml.ts')).statusCode, 404)
})
