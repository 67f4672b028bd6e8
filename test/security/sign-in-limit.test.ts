/**
 * The console's sign-in limit holds when guesses arrive together: each attempt is counted before its
 * password is checked, so 60 simultaneous guesses get at most SIGN_IN_LIMIT checks. Behind a proxy
 * (LEADLINE_TRUST_PROXY) the limit is per client address from X-Forwarded-For, and only then.
 */
import t from 'tap'
import { SIGN_IN_ADDRESS_LIMIT, SIGN_IN_LIMIT, SIGN_IN_WINDOW_MS } from '../../src/http/console/sign-in.route.ts'
import { loadConfig } from '../../src/config/config.ts'
import { buildApp } from '../helpers/build-app.ts'
import { Browser, ownerWithPassword, PASSWORD, TEST_ENV } from '../http/console/console-helpers.ts'

async function owner(t: Parameters<typeof buildApp>[0], options: Parameters<typeof buildApp>[1] = {}) {
  const app = await buildApp(t, { env: TEST_ENV, ...options })
  const { account } = await app.createAccount('Acme Insurance')
  const email = 'owner@acme.example.com'
  await ownerWithPassword(app, account.accountId, email)
  const browser = new Browser(app)
  await browser.get('/app/sign-in')
  return { app, email, browser }
}

/** A sign-in form post from `address` (sent as X-Forwarded-For, which only a trusted proxy may set). */
function signIn(f: Awaited<ReturnType<typeof owner>>, password: string, forwardedFor?: string) {
  const form = new URLSearchParams({ _csrf: f.browser.csrf, email: f.email, password })
  return f.app.app.inject({
    method: 'POST', url: '/app/sign-in', payload: form.toString(),
    headers: { cookie: f.browser.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
  })
}

t.test(`60 simultaneous guesses for one email: at most ${SIGN_IN_LIMIT} are checked, and the right one, after them, is refused`, async (t) => {
  const f = await owner(t)
  const guesses = [...Array.from({ length: 59 }, (_, i) => `wrong guess number ${i}`), PASSWORD]
  const answers = await Promise.all(guesses.map((password) => signIn(f, password)))
  const checked = answers.filter((a) => a.statusCode === 401).length
  t.ok(checked <= SIGN_IN_LIMIT, `${checked} passwords checked (401), at most ${SIGN_IN_LIMIT}`)
  t.equal(answers.filter((a) => a.statusCode === 429).length, 60 - checked, 'every other guess refused unchecked (429)')
  t.equal(answers.at(-1)?.statusCode, 429, 'the right password, past the limit, is refused')
  t.notOk(answers.some((a) => a.statusCode === 303), 'nobody signed in')
  t.ok(Number(answers.at(-1)?.headers['retry-after']) > 800, 'Retry-After says when to come back')
})

t.test('a right password within the limit signs in and gives its attempt back; the window ends after 15 minutes', async (t) => {
  let now = Date.parse('2026-03-10T15:00:00Z')
  const f = await owner(t, { clock: () => new Date(now) })
  for (let i = 0; i < SIGN_IN_LIMIT - 1; i++) t.equal((await signIn(f, `wrong ${i}`)).statusCode, 401)
  for (let i = 0; i < 3; i++) t.equal((await signIn(f, PASSWORD)).statusCode, 303, `signing in again (${i + 1}) does not use up the limit`)
  t.equal((await signIn(f, 'wrong again')).statusCode, 401, `the ${SIGN_IN_LIMIT}th failure is still checked`)
  t.equal((await signIn(f, PASSWORD)).statusCode, 429, 'then even the right password waits')
  now += SIGN_IN_WINDOW_MS
  t.equal((await signIn(f, PASSWORD)).statusCode, 303, 'until the window has passed')
})

t.test('X-Forwarded-For is ignored unless LEADLINE_TRUST_PROXY is set: a guesser cannot make up addresses', async (t) => {
  const f = await owner(t)
  for (let i = 0; i < SIGN_IN_LIMIT; i++) t.equal((await signIn(f, `wrong ${i}`, `198.51.100.${i}`)).statusCode, 401)
  const answer = await signIn(f, PASSWORD, '203.0.113.9')
  t.equal(answer.statusCode, 429, 'a new X-Forwarded-For is the same client: still limited')
})

t.test('behind a trusted proxy the limit is per client address, as X-Forwarded-For says', async (t) => {
  const f = await owner(t, { trustProxy: ['127.0.0.1'] })
  for (let i = 0; i < SIGN_IN_LIMIT; i++) t.equal((await signIn(f, `wrong ${i}`, '198.51.100.7')).statusCode, 401)
  t.equal((await signIn(f, PASSWORD, '198.51.100.7')).statusCode, 429, 'the guessing client is limited')
  t.equal((await signIn(f, PASSWORD, '203.0.113.9')).statusCode, 303, 'the owner, elsewhere behind the same proxy, signs in')
  const addresses = await Promise.all(Array.from({ length: SIGN_IN_ADDRESS_LIMIT + 10 }, (_, i) => signIn({ ...f, email: `nobody${i}@example.com` }, 'wrong', '192.0.2.1')))
  t.equal(addresses.filter((a) => a.statusCode === 401).length, SIGN_IN_ADDRESS_LIMIT, `one address: ${SIGN_IN_ADDRESS_LIMIT} checks across emails, then 429`)
})

t.test('LEADLINE_TRUST_PROXY: off by default; true, or addresses, CIDR ranges and range names', async (t) => {
  t.equal(loadConfig({}).trustProxy, false)
  t.equal(loadConfig({ LEADLINE_TRUST_PROXY: 'false' }).trustProxy, false)
  t.equal(loadConfig({ LEADLINE_TRUST_PROXY: 'true' }).trustProxy, true)
  t.same(loadConfig({ LEADLINE_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,uniquelocal' }).trustProxy, ['10.0.0.0/8', '127.0.0.1', 'uniquelocal'])
  for (const bad of ['the load balancer', '2']) t.throws(() => loadConfig({ LEADLINE_TRUST_PROXY: bad }), /LEADLINE_TRUST_PROXY/, bad)
})
