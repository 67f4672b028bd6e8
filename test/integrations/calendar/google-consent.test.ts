/**
 * The owner's Google consent through google-auth-library against the double: the consent URL asks for
 * offline access with the prompt forced, the two calendar scopes and a PKCE S256 challenge; the code
 * comes back to the console and is exchanged for a refresh token that then connects; every way the
 * exchange can go wrong has its own stable code.
 */
import { createHash } from 'node:crypto'
import t from 'tap'
import { createGoogleCalendar, exchangeGoogleCode, GOOGLE_CALENDAR_SCOPES, GOOGLE_ENDPOINTS, googleConsentUrl } from '../../../src/integrations/calendar/google/index.ts'
import { FAKE_GOOGLE_CLIENT_ID, FAKE_GOOGLE_CLIENT_SECRET, FAKE_GOOGLE_OWNER, startFakeGoogle } from '../../doubles/fake-google-calendar.ts'

const google = await startFakeGoogle()
t.teardown(() => google.close())
const redirectUri = 'https://app.leadline.example/console/setup/calendar/google/callback'
const client = { clientId: FAKE_GOOGLE_CLIENT_ID, clientSecret: FAKE_GOOGLE_CLIENT_SECRET, redirectUri, endpoints: google.endpoints }

/** The owner follows the URL and says yes; Google sends the browser back to the console's callback. */
async function consentAt(url: string): Promise<URLSearchParams> {
  const answer = await fetch(url, { redirect: 'manual' })
  const back = new URL(answer.headers.get('location') ?? 'about:blank')
  if (answer.status !== 302 || `${back.origin}${back.pathname}` !== redirectUri) throw new Error(`the consent page answered ${answer.status} to ${back.href}`)
  return back.searchParams
}

t.test("the consent URL: Google's page, offline access, consent forced, the calendar scopes, state and PKCE S256", async (t) => {
  const { url, codeVerifier } = await googleConsentUrl({ clientId: FAKE_GOOGLE_CLIENT_ID, redirectUri, state: 'st&te=1/x' })
  const parsed = new URL(url)
  t.equal(`${parsed.origin}${parsed.pathname}`, GOOGLE_ENDPOINTS.authUrl)
  const q = parsed.searchParams
  t.same(
    { client_id: q.get('client_id'), redirect_uri: q.get('redirect_uri'), response_type: q.get('response_type'), access_type: q.get('access_type'), prompt: q.get('prompt'), state: q.get('state'), method: q.get('code_challenge_method') },
    { client_id: FAKE_GOOGLE_CLIENT_ID, redirect_uri: redirectUri, response_type: 'code', access_type: 'offline', prompt: 'consent', state: 'st&te=1/x', method: 'S256' },
  )
  t.same(q.get('scope')!.split(' '), ['https://www.googleapis.com/auth/calendar.events', 'https://www.googleapis.com/auth/calendar.readonly'])
  t.same(q.get('scope')!.split(' '), [...GOOGLE_CALENDAR_SCOPES])
  t.equal(q.get('code_challenge'), createHash('sha256').update(codeVerifier).digest('base64url'), 'the challenge is the verifier, hashed')
  t.match(codeVerifier, /^[A-Za-z0-9._~-]{43,128}$/)
  t.notMatch(url, codeVerifier, 'the verifier never travels in the URL')
  const other = await googleConsentUrl({ clientId: FAKE_GOOGLE_CLIENT_ID, redirectUri, state: 's2', loginHint: 'owner@roofing.example' })
  t.not(other.codeVerifier, codeVerifier, 'a fresh verifier each time')
  t.equal(new URL(other.url).searchParams.get('login_hint'), 'owner@roofing.example')
})

t.test('the code exchanged for a refresh token and the account address; that token connects the calendar', async (t) => {
  const { url, codeVerifier } = await googleConsentUrl({ ...client, state: 'state-1' })
  const back = await consentAt(url)
  t.equal(back.get('state'), 'state-1')
  const grant = await exchangeGoogleCode({ ...client, code: back.get('code')!, codeVerifier })
  t.match(grant, { refreshToken: /^1\/\/0fake-/, email: FAKE_GOOGLE_OWNER })
  const exchange = google.requests().find((r) => r.path === '/token' && r.body.includes('authorization_code'))!
  t.match(Object.fromEntries(new URLSearchParams(exchange.body)), { client_id: FAKE_GOOGLE_CLIENT_ID, client_secret: FAKE_GOOGLE_CLIENT_SECRET, redirect_uri: redirectUri, code_verifier: codeVerifier })

  const calendar = await createGoogleCalendar({ endpoints: google.endpoints }).connect({ kind: 'google', refreshToken: grant.refreshToken, clientId: FAKE_GOOGLE_CLIENT_ID, clientSecret: FAKE_GOOGLE_CLIENT_SECRET })
  t.same(await calendar.listCalendars(), [{ id: FAKE_GOOGLE_OWNER, name: FAKE_GOOGLE_OWNER, timeZone: 'America/New_York' }])

  await t.rejects(exchangeGoogleCode({ ...client, code: back.get('code')!, codeVerifier }), { name: 'GoogleConsentError', code: 'code_refused' }, 'a code is used once')
})

t.test('the exchange refuses what it cannot use, each with its code', async (t) => {
  const first = await googleConsentUrl({ ...client, state: 's' })
  const code = (await consentAt(first.url)).get('code')!
  const other = await googleConsentUrl({ ...client, state: 's' })
  await t.rejects(exchangeGoogleCode({ ...client, code, codeVerifier: other.codeVerifier }), { code: 'code_refused' }, 'a verifier from another consent')
  await t.rejects(exchangeGoogleCode({ ...client, code: '4/0forged', codeVerifier: first.codeVerifier }), { code: 'code_refused' })

  google.consentGrants(['https://www.googleapis.com/auth/calendar.readonly'])
  const narrowed = await googleConsentUrl({ ...client, state: 's' })
  await t.rejects(
    exchangeGoogleCode({ ...client, code: (await consentAt(narrowed.url)).get('code')!, codeVerifier: narrowed.codeVerifier }),
    { name: 'GoogleConsentError', code: 'scope_not_granted', message: /calendar\.events/ },
    'the owner unticked "see and edit events" on the consent screen',
  )

  const unforced = await googleConsentUrl({ ...client, state: 's' })
  const withoutPrompt = new URL(unforced.url)
  withoutPrompt.searchParams.delete('prompt')
  await t.rejects(
    exchangeGoogleCode({ ...client, code: (await consentAt(withoutPrompt.href)).get('code')!, codeVerifier: unforced.codeVerifier }),
    { name: 'GoogleConsentError', code: 'no_refresh_token', message: /connect again/ },
    'no refresh token without a consent screen',
  )

  const again = await googleConsentUrl({ ...client, state: 's' })
  const lastCode = (await consentAt(again.url)).get('code')!
  await t.rejects(exchangeGoogleCode({ ...client, clientSecret: 'wrong', code: lastCode, codeVerifier: again.codeVerifier }), { code: 'code_refused' }, 'a wrong client secret')
  google.failNext({ kind: 'status', status: 503 }, { path: '/token' })
  google.failNext({ kind: 'status', status: 503 }, { path: '/token' })
  google.failNext({ kind: 'status', status: 503 }, { path: '/token' })
  google.failNext({ kind: 'status', status: 503 }, { path: '/token' })
  await t.rejects(exchangeGoogleCode({ ...client, code: lastCode, codeVerifier: again.codeVerifier }), { code: 'unreachable' }, 'Google failing')
  await t.rejects(exchangeGoogleCode({ ...client, endpoints: { tokenUrl: 'http://127.0.0.1:9/token' }, code: lastCode, codeVerifier: again.codeVerifier }), { code: 'unreachable' })
})
