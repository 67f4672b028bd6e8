/**
 * The owner's Google consent, in two steps the console route calls: the URL to send the owner to (offline
 * access, consent forced so a refresh token comes back, PKCE S256), and the exchange of the code Google
 * sends back for that refresh token. Nothing here keeps state: the route keeps `state` and the verifier.
 */
import { calendar as googleCalendar } from '@googleapis/calendar'
import { DEFAULT_GOOGLE_TIMEOUT_MS, GOOGLE_CALENDAR_SCOPES, GOOGLE_ENDPOINTS, oauthClient, oauthErrorOf, statusOf, type GoogleEndpoints } from './google-client.ts'

type AuthUrlOptions = NonNullable<Parameters<ReturnType<typeof oauthClient>['generateAuthUrl']>[0]>

export interface GoogleConsentRequest {
  readonly clientId: string
  /** The console's callback, exactly as registered with the OAuth client. */
  readonly redirectUri: string
  /** Random and single-use, bound to the owner's session; checked when Google sends the owner back. */
  readonly state: string
  /** The address to preselect on Google's account chooser. */
  readonly loginHint?: string
  readonly endpoints?: Partial<GoogleEndpoints>
}

export interface GoogleConsent {
  readonly url: string
  /** Keep it with `state` (server-side or sealed), never in the URL; the exchange needs it. */
  readonly codeVerifier: string
}

export interface GoogleCodeExchange {
  readonly code: string
  readonly codeVerifier: string
  readonly redirectUri: string
  readonly clientId: string
  readonly clientSecret: string
  readonly endpoints?: Partial<GoogleEndpoints>
  readonly timeoutMs?: number
}

export interface GoogleGrant {
  readonly refreshToken: string
  /** The Google account's address (its primary calendar's id), for the connection's label; null if unreadable. */
  readonly email: string | null
}

export type GoogleConsentFailure =
  /** Google answered without a refresh token: the owner must consent again (the URL forces the prompt). */
  | 'no_refresh_token'
  /** The owner unticked a permission on Google's screen: bookings need all of them. */
  | 'scope_not_granted'
  /** The code is wrong, used or expired, or the verifier does not match it: start the consent again. */
  | 'code_refused'
  /** Google could not be reached or failed; nothing was granted that we hold. */
  | 'unreachable'

export class GoogleConsentError extends Error {
  readonly code: GoogleConsentFailure
  constructor(code: GoogleConsentFailure, message: string) {
    super(message)
    this.name = 'GoogleConsentError'
    this.code = code
  }
}

export async function googleConsentUrl(request: GoogleConsentRequest): Promise<GoogleConsent> {
  const endpoints = { ...GOOGLE_ENDPOINTS, ...request.endpoints }
  const oauth = oauthClient({ clientId: request.clientId, redirectUri: request.redirectUri }, endpoints, DEFAULT_GOOGLE_TIMEOUT_MS)
  const { codeVerifier, codeChallenge } = await oauth.generateCodeVerifierAsync()
  const url = oauth.generateAuthUrl({
    access_type: 'offline',
    // Google sends a refresh token only on a consent screen the owner actually saw.
    prompt: 'consent',
    scope: [...GOOGLE_CALENDAR_SCOPES],
    state: request.state,
    code_challenge: codeChallenge!,
    // The library types the method as its own enum; Google takes the string.
    code_challenge_method: 'S256' as AuthUrlOptions['code_challenge_method'],
    ...(request.loginHint === undefined ? {} : { login_hint: request.loginHint }),
  })
  return { url, codeVerifier }
}

export async function exchangeGoogleCode(exchange: GoogleCodeExchange): Promise<GoogleGrant> {
  const endpoints = { ...GOOGLE_ENDPOINTS, ...exchange.endpoints }
  const timeoutMs = exchange.timeoutMs ?? DEFAULT_GOOGLE_TIMEOUT_MS
  const oauth = oauthClient(exchange, endpoints, timeoutMs)
  let tokens
  try {
    tokens = (await oauth.getToken({ code: exchange.code, codeVerifier: exchange.codeVerifier, redirect_uri: exchange.redirectUri })).tokens
  } catch (error) {
    const oauthError = oauthErrorOf(error)
    const status = statusOf(error)
    if (oauthError !== null && status !== null && status < 500) throw new GoogleConsentError('code_refused', `Google refused the consent code (${oauthError}): start the consent again`)
    throw new GoogleConsentError('unreachable', `Google could not exchange the consent code: ${(error as Error).message}`)
  }
  const granted = new Set((tokens.scope ?? '').split(' '))
  const missing = GOOGLE_CALENDAR_SCOPES.filter((scope) => !granted.has(scope))
  if (missing.length > 0) throw new GoogleConsentError('scope_not_granted', `the owner did not grant ${missing.join(', ')}: connect again and leave every box ticked`)
  if (typeof tokens.refresh_token !== 'string' || tokens.refresh_token === '') {
    throw new GoogleConsentError('no_refresh_token', 'Google sent no refresh token: connect again and consent on the screen Google shows')
  }
  oauth.setCredentials(tokens)
  return { refreshToken: tokens.refresh_token, email: await primaryAddress(oauth, endpoints, timeoutMs) }
}

/** The primary calendar's id is the account's address; a label is not worth failing a consent for. */
async function primaryAddress(oauth: ReturnType<typeof oauthClient>, endpoints: GoogleEndpoints, timeoutMs: number): Promise<string | null> {
  try {
    const api = googleCalendar({ version: 'v3', auth: oauth, rootUrl: endpoints.apiRootUrl, timeout: timeoutMs, retry: false })
    const id = (await api.calendars.get({ calendarId: 'primary' })).data.id
    return typeof id === 'string' && id.includes('@') ? id : null
  } catch {
    return null
  }
}
