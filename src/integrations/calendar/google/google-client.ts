/**
 * What the Google adapter and the consent flow share: Google's addresses (overridable, so the official
 * clients can be pointed at a double), the OAuth client, and how a failed request becomes a CalendarError
 * that says whether Google can have acted on it.
 */
import { auth } from '@googleapis/calendar'
import { CalendarError } from '../calendar.port.ts'

export interface GoogleEndpoints {
  /** Where the owner is sent to consent. */
  readonly authUrl: string
  /** The OAuth 2.0 token endpoint (code exchange and refresh). */
  readonly tokenUrl: string
  /** The Calendar API's root (googleapis' `rootUrl`). */
  readonly apiRootUrl: string
}

export const GOOGLE_ENDPOINTS: GoogleEndpoints = {
  authUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
  tokenUrl: 'https://oauth2.googleapis.com/token',
  apiRootUrl: 'https://www.googleapis.com/',
}

/** Google's three addresses on one origin (a test double, a proxy): the consent page, the token endpoint, the API root. */
export function googleEndpointsAt(baseUrl: string): GoogleEndpoints {
  const base = baseUrl.replace(/\/+$/, '')
  return { authUrl: `${base}/o/oauth2/v2/auth`, tokenUrl: `${base}/token`, apiRootUrl: `${base}/` }
}

/** Least privilege: events read and written, calendars and free/busy read; never sharing or deleting calendars. */
export const GOOGLE_CALENDAR_SCOPES = [
  'https://www.googleapis.com/auth/calendar.events',
  'https://www.googleapis.com/auth/calendar.readonly',
] as const

export const DEFAULT_GOOGLE_TIMEOUT_MS = 15_000

export type GoogleOAuthClient = InstanceType<typeof auth.OAuth2>

export function oauthClient(
  client: { readonly clientId: string; readonly clientSecret?: string; readonly redirectUri?: string },
  endpoints: GoogleEndpoints,
  timeoutMs: number,
): GoogleOAuthClient {
  return new auth.OAuth2({
    clientId: client.clientId,
    ...(client.clientSecret === undefined ? {} : { clientSecret: client.clientSecret }),
    ...(client.redirectUri === undefined ? {} : { redirectUri: client.redirectUri }),
    endpoints: { oauth2AuthBaseUrl: endpoints.authUrl, oauth2TokenUrl: endpoints.tokenUrl },
    transporterOptions: { timeout: timeoutMs },
    // A 401 on a call (a token revoked or expired early) gets one fresh token and one retry: a 401 wrote nothing.
    forceRefreshOnFailure: true,
  })
}

/** The parts of a GaxiosError the mapping reads (duck-typed: gaxios is the SDK's, not ours). */
interface HttpFailure {
  readonly message?: string
  readonly code?: unknown
  readonly cause?: unknown
  readonly config?: { readonly url?: unknown }
  readonly response?: { readonly status?: number; readonly data?: unknown }
}

/** The OAuth error code of a token endpoint answer (`invalid_grant`, `invalid_client` …), if it is one. */
export function oauthErrorOf(error: unknown): string | null {
  const data = (error as HttpFailure | null)?.response?.data
  const code = typeof data === 'object' && data !== null ? (data as { error?: unknown }).error : undefined
  return typeof code === 'string' ? code : null
}

/** The first `errors[].reason` of a Calendar API error body (`duplicate`, `fullSyncRequired`, `rateLimitExceeded` …). */
export function reasonOf(error: unknown): string | null {
  const data = (error as HttpFailure | null)?.response?.data as { error?: { errors?: { reason?: unknown }[] } } | undefined
  const reason = data?.error?.errors?.[0]?.reason
  return typeof reason === 'string' ? reason : null
}

export function statusOf(error: unknown): number | null {
  const status = (error as HttpFailure | null)?.response?.status
  return typeof status === 'number' ? status : null
}

const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_INVALID_URL'])
const RATE_LIMITED = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'quotaExceeded', 'dailyLimitExceeded'])

/**
 * A failed call as the port's CalendarError. `writes`: the call may change the calendar, so a timeout, a
 * dropped connection or a 5xx after sending is `unknown_outcome`; a refused connection never sent anything.
 */
export function googleFailure(error: unknown, doing: string, writes: boolean, tokenUrl: string): CalendarError {
  if (error instanceof CalendarError) return error
  const status = statusOf(error)
  const detail = (error as HttpFailure | null)?.message ?? String(error)
  const oauth = oauthErrorOf(error)
  if (oauth === 'invalid_grant' || oauth === 'invalid_client' || oauth === 'unauthorized_client') {
    return new CalendarError('unauthorized', `Google refused the calendar consent ${doing} (${oauth}): the owner must connect Google Calendar again`, status)
  }
  // A fresh access token failed before the write itself was sent: whatever the token endpoint did, nothing was written.
  const sentWrite = writes && !String((error as HttpFailure | null)?.config?.url ?? '').startsWith(tokenUrl)
  if (status === null) {
    const neverSent = causeCodes(error).some((code) => NEVER_SENT.has(code))
    return new CalendarError(sentWrite && !neverSent ? 'unknown_outcome' : 'unreachable', `no answer from Google ${doing}: ${detail}`)
  }
  const reason = reasonOf(error)
  if (status === 429 || (status === 403 && reason !== null && RATE_LIMITED.has(reason))) {
    return new CalendarError('unreachable', `Google is rate-limiting ${doing} (${reason ?? status}); nothing was written`, status)
  }
  if (status === 401 || status === 403) return new CalendarError('unauthorized', `Google refused the credentials ${doing}: ${detail}`, status)
  if (status === 404 || status === 410) return new CalendarError('not_found', `no such calendar or event ${doing}`, status)
  if (status === 412) return new CalendarError('conflict', `the event was changed in the calendar ${doing}`, status)
  if (status >= 500) return new CalendarError(sentWrite ? 'unknown_outcome' : 'unreachable', `Google answered ${status} ${doing}`, status)
  return new CalendarError('rejected', `Google answered ${status} ${doing}: ${detail}`, status)
}

/** Every `code` along the error's causes (undici hides ECONNREFUSED two levels down). */
function causeCodes(error: unknown): string[] {
  const codes: string[] = []
  let current: unknown = error
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string') codes.push(code)
    const next = current as { cause?: unknown; error?: unknown }
    current = next.cause ?? next.error
  }
  return codes
}
