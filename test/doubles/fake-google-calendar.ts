/**
 * TEST DOUBLE: Google's OAuth 2.0 and Calendar API v3 on 127.0.0.1, driven by the real
 * `@googleapis/calendar` client and its google-auth-library OAuth2Client through their `rootUrl` and
 * `endpoints` options. Not a mock of our code: an HTTP server built from Google's documented shapes.
 *
 * Google behaviours it models:
 * - The consent page (`GET /o/oauth2/v2/auth`): the owner says yes at once; a 302 to `redirect_uri`
 *   with `code`, `state` and `scope`. A refresh token is granted only for `access_type=offline` with
 *   `prompt=consent`; PKCE `S256` challenges are kept with the code. `consentGrants` narrows the scopes
 *   the owner leaves ticked (Google's granular consent).
 * - The token endpoint (`POST /token`, form-encoded): `authorization_code` (single use, the same
 *   `redirect_uri`, the PKCE verifier) and `refresh_token`; `{access_token, expires_in, refresh_token?,
 *   scope, token_type}`; errors `{error, error_description}`: `invalid_grant` (400), `invalid_client` (401).
 * - Calendar API v3 with a Bearer token (401 `authError`; 403 `insufficientPermissions` without a scope
 *   that allows the call): `users/me/calendarList`, `calendars/{id}`, `freeBusy`, and
 *   `calendars/{id}/events` insert/get/patch/update/delete/list (fake-google-calendar-store.ts): 409
 *   duplicate id, `If-Match` (412), 410 on deleting twice, `syncToken`/`nextSyncToken`/`pageToken`,
 *   410 `fullSyncRequired`. Errors use Google's `{error: {code, message, errors: [{domain, reason}]}}`.
 * Faults, for the next matching request: any status with Google's error body, hanging without an answer
 * (before or after applying), or dropping the connection after applying.
 *
 * Not modelled: recurring events and instances, attendees and notifications, batch, watch channels,
 * ACLs, id tokens, quotas beyond a programmed 403/429.
 */
import { createHash, randomBytes } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { CalendarStore, GoogleApiError, type FakeCalendar, type FakeEvent } from './fake-google-calendar-store.ts'

export const FAKE_GOOGLE_CLIENT_ID = '1234567890-leadline.apps.googleusercontent.com'
export const FAKE_GOOGLE_CLIENT_SECRET = 'GOCSPX-fakeLeadlineSecret0123'
export const FAKE_GOOGLE_OWNER = 'owner@roofing.example'

const SCOPE = 'https://www.googleapis.com/auth/'
const READS = new Set([`${SCOPE}calendar`, `${SCOPE}calendar.readonly`, `${SCOPE}calendar.events`, `${SCOPE}calendar.events.readonly`])
const LISTS = new Set([`${SCOPE}calendar`, `${SCOPE}calendar.readonly`])
const WRITES = new Set([`${SCOPE}calendar`, `${SCOPE}calendar.events`])

export type FakeGoogleFault =
  | { kind: 'status'; status: number; reason?: string }
  /** No answer until the client gives up; `applied`: the write happened first. */
  | { kind: 'hang'; applied: boolean }
  /** The write happened, then the connection was cut before the answer. */
  | { kind: 'drop' }

export interface FaultMatch {
  method?: string
  /** A substring of the request's path. */
  path?: string
}

export interface GoogleRequest {
  method: string
  path: string
  headers: http.IncomingHttpHeaders
  body: string
  status?: number
}

export interface FakeGoogle {
  readonly url: string
  /** Pass to the adapter and the consent functions as `endpoints`. */
  readonly endpoints: { authUrl: string; tokenUrl: string; apiRootUrl: string }
  readonly store: CalendarStore
  requests(): GoogleRequest[]
  /** A consent already given (as if through the consent page), for tests that start connected. */
  grant(scopes?: readonly string[]): string
  /** The owner removes Leadline's access in their Google account: every token of it stops working. */
  revokeAll(): void
  /** Access tokens stop working (expired early); refresh tokens still do. */
  expireAccessTokens(): void
  /** Every sync token issued so far is refused with 410 fullSyncRequired. */
  expireSyncTokens(): void
  /** The scopes the owner leaves ticked on the next consent (default: all asked for). */
  consentGrants(scopes: readonly string[] | null): void
  failNext(fault: FakeGoogleFault, match?: FaultMatch): void
  /** The owner, in Google Calendar: a timed event (ISO instants) or an all-day one (`date`, `endDate`). */
  ownerEvent(calendarId: string, event: { summary: string; start?: string; end?: string; date?: string; endDate?: string; transparency?: 'transparent' }): FakeEvent
  ownerMove(calendarId: string, id: string, start: string, end: string): FakeEvent
  ownerDelete(calendarId: string, id: string): void
  close(): Promise<void>
}

interface Grant {
  clientId: string
  scopes: string[]
  revoked: boolean
}

interface Code {
  clientId: string
  redirectUri: string
  scopes: string[]
  challenge: string | null
  offline: boolean
  used: boolean
}

export async function startFakeGoogle(options: { calendars?: FakeCalendar[]; now?: () => Date } = {}): Promise<FakeGoogle> {
  const now = options.now ?? (() => new Date())
  const store = new CalendarStore(now)
  for (const calendar of options.calendars ?? [{ id: FAKE_GOOGLE_OWNER, summary: FAKE_GOOGLE_OWNER, timeZone: 'America/New_York', accessRole: 'owner', primary: true }]) store.addCalendar(calendar)
  const clients = new Map([[FAKE_GOOGLE_CLIENT_ID, FAKE_GOOGLE_CLIENT_SECRET]])
  const codes = new Map<string, Code>()
  const refreshTokens = new Map<string, Grant>()
  const accessTokens = new Map<string, { grant: Grant; expired: boolean }>()
  const faults: { fault: FakeGoogleFault; match: FaultMatch }[] = []
  const recorded: GoogleRequest[] = []
  let nextGrants: readonly string[] | null = null

  const newGrant = (clientId: string, scopes: readonly string[]): string => {
    const token = `1//0fake-${randomBytes(24).toString('base64url')}`
    refreshTokens.set(token, { clientId, scopes: [...scopes], revoked: false })
    return token
  }
  const accessFor = (grant: Grant) => {
    const token = `ya29.fake-${randomBytes(24).toString('base64url')}`
    accessTokens.set(token, { grant, expired: false })
    return { access_token: token, expires_in: 3599, scope: grant.scopes.join(' '), token_type: 'Bearer' }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const entry: GoogleRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }
      recorded.push(entry)
      const send = (status: number, body: string, headers: Record<string, string> = {}) => {
        entry.status = status
        res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers }).end(body)
      }
      const at = faults.findIndex(({ match }) => (match.method === undefined || match.method === entry.method) && (match.path === undefined || entry.path.includes(match.path)))
      const fault = at === -1 ? undefined : faults.splice(at, 1)[0]!.fault
      if (fault?.kind === 'status') return send(fault.status, new GoogleApiError(fault.status, fault.reason ?? 'backendError', 'Backend Error').body())
      if (fault?.kind === 'hang' && !fault.applied) return
      try {
        const [status, body, headers] = route(entry, new URL(entry.path, 'http://fake'))
        if (fault?.kind === 'hang') return
        if (fault?.kind === 'drop') return void req.socket.destroy()
        send(status, body, headers)
      } catch (error) {
        if (error instanceof GoogleApiError) return send(error.status, error.body())
        send(500, new GoogleApiError(500, 'backendError', `fake google crashed: ${String(error)}`).body())
      }
    })
  })

  function route(req: GoogleRequest, url: URL): [number, string, Record<string, string>?] {
    if (req.method === 'GET' && url.pathname === '/o/oauth2/v2/auth') return consent(url)
    if (req.method === 'POST' && url.pathname === '/token') return token(new URLSearchParams(req.body), req.headers.authorization)
    const match = /^\/calendar\/v3\/(.+)$/.exec(url.pathname)
    if (match === null) throw new GoogleApiError(404, 'notFound', 'Not Found')
    const grant = authorize(req.headers.authorization)
    return api(req, url, match[1]!.split('/').map(decodeURIComponent), grant)
  }

  function consent(url: URL): [number, string, Record<string, string>] {
    const q = url.searchParams
    const clientId = q.get('client_id') ?? ''
    const redirectUri = q.get('redirect_uri') ?? ''
    if (!clients.has(clientId)) return [401, JSON.stringify({ error: 'invalid_client', error_description: 'The OAuth client was not found.' }), {}]
    if (q.get('response_type') !== 'code' || redirectUri === '') return [400, JSON.stringify({ error: 'invalid_request', error_description: 'Required parameter is missing: response_type or redirect_uri' }), {}]
    const method = q.get('code_challenge_method')
    if (method !== null && method !== 'S256' && method !== 'plain') return [400, JSON.stringify({ error: 'invalid_request', error_description: 'Invalid code_challenge_method' }), {}]
    const asked = (q.get('scope') ?? '').split(' ').filter((s) => s !== '')
    const scopes = nextGrants === null ? asked : asked.filter((s) => nextGrants!.includes(s))
    nextGrants = null
    const code = `4/0fake-${randomBytes(24).toString('base64url')}`
    codes.set(code, {
      clientId,
      redirectUri,
      scopes,
      challenge: q.get('code_challenge'),
      offline: q.get('access_type') === 'offline' && (q.get('prompt') ?? '').split(' ').includes('consent'),
      used: false,
    })
    const back = new URL(redirectUri)
    back.searchParams.set('state', q.get('state') ?? '')
    back.searchParams.set('code', code)
    back.searchParams.set('scope', scopes.join(' '))
    return [302, '', { location: back.href }]
  }

  function token(form: URLSearchParams, authorization: string | undefined): [number, string] {
    const basic = authorization?.startsWith('Basic ') ? Buffer.from(authorization.slice(6), 'base64').toString('utf8').split(':') : null
    const clientId = basic?.[0] ?? form.get('client_id') ?? ''
    const secret = basic?.[1] ?? form.get('client_secret') ?? ''
    if (clients.get(clientId) !== secret) return [401, JSON.stringify({ error: 'invalid_client', error_description: 'Unauthorized' })]
    const refused = (description: string): [number, string] => [400, JSON.stringify({ error: 'invalid_grant', error_description: description })]
    if (form.get('grant_type') === 'refresh_token') {
      const grant = refreshTokens.get(form.get('refresh_token') ?? '')
      if (grant === undefined || grant.revoked || grant.clientId !== clientId) return refused('Token has been expired or revoked.')
      return [200, JSON.stringify(accessFor(grant))]
    }
    if (form.get('grant_type') !== 'authorization_code') return [400, JSON.stringify({ error: 'unsupported_grant_type', error_description: 'Invalid grant_type' })]
    const code = codes.get(form.get('code') ?? '')
    if (code === undefined || code.clientId !== clientId) return refused('Malformed auth code.')
    if (code.used) return refused('Bad Request')
    if (code.redirectUri !== form.get('redirect_uri')) return [400, JSON.stringify({ error: 'redirect_uri_mismatch', error_description: 'Bad Request' })]
    if (code.challenge !== null) {
      const verifier = form.get('code_verifier')
      if (verifier === null) return refused('Missing code verifier.')
      if (createHash('sha256').update(verifier).digest('base64url') !== code.challenge) return refused('Invalid code verifier.')
    }
    code.used = true
    const refreshToken = code.offline ? newGrant(clientId, code.scopes) : null
    const grant = refreshToken === null ? { clientId, scopes: code.scopes, revoked: false } : refreshTokens.get(refreshToken)!
    return [200, JSON.stringify({ ...accessFor(grant), ...(refreshToken === null ? {} : { refresh_token: refreshToken }) })]
  }

  function authorize(header: string | undefined): Grant {
    const access = accessTokens.get(/^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '')
    if (access === undefined || access.expired || access.grant.revoked) {
      throw new GoogleApiError(401, 'authError', 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.')
    }
    return access.grant
  }

  function api(req: GoogleRequest, url: URL, path: string[], grant: Grant): [number, string] {
    const allowed = (scopes: Set<string>) => {
      if (!grant.scopes.some((s) => scopes.has(s))) throw new GoogleApiError(403, 'insufficientPermissions', 'Request had insufficient authentication scopes.')
    }
    const ok = (body: unknown): [number, string] => [200, JSON.stringify(body)]
    const body = () => (req.body === '' ? {} : (JSON.parse(req.body) as Record<string, unknown>))
    const calendarId = (id: string) => (id === 'primary' ? [...store.calendars.values()].find((c) => c.primary)?.id ?? id : id)
    const [head, second, third, eventId, ...rest] = path

    if (req.method === 'GET' && head === 'users' && second === 'me' && third === 'calendarList' && eventId === undefined) {
      allowed(LISTS)
      const items = [...store.calendars.values()].map((c) => ({ kind: 'calendar#calendarListEntry', etag: '"1"', ...c }))
      return ok(page('calendar#calendarList', items, url, () => ({})))
    }
    if (req.method === 'POST' && head === 'freeBusy' && second === undefined) {
      allowed(READS)
      const query = body() as { timeMin?: string; timeMax?: string; timeZone?: string; items?: { id: string }[] }
      const from = Date.parse(query.timeMin ?? '')
      const to = Date.parse(query.timeMax ?? '')
      if (!Number.isFinite(from) || !Number.isFinite(to)) throw new GoogleApiError(400, 'badRequest', 'Bad Request')
      const calendars = Object.fromEntries((query.items ?? []).map(({ id }) => {
        try {
          return [id, { busy: store.busy(calendarId(id), from, to, query.timeZone ?? 'UTC') }]
        } catch {
          return [id, { errors: [{ domain: 'global', reason: 'notFound' }], busy: [] }]
        }
      }))
      return ok({ kind: 'calendar#freeBusy', timeMin: query.timeMin, timeMax: query.timeMax, calendars })
    }
    if (head !== 'calendars' || second === undefined || rest.length > 0) throw new GoogleApiError(404, 'notFound', 'Not Found')
    const cal = calendarId(second)
    if (third === undefined && req.method === 'GET') {
      allowed(READS)
      const c = store.calendar(cal)
      return ok({ kind: 'calendar#calendar', etag: '"1"', id: c.id, summary: c.summary, timeZone: c.timeZone })
    }
    if (third !== 'events') throw new GoogleApiError(404, 'notFound', 'Not Found')
    const ifMatch = typeof req.headers['if-match'] === 'string' ? req.headers['if-match'] : undefined
    if (eventId === undefined && req.method === 'GET') {
      allowed(READS)
      const syncToken = url.searchParams.get('syncToken') ?? undefined
      if (syncToken !== undefined && ['timeMin', 'timeMax', 'q', 'orderBy', 'updatedMin', 'iCalUID'].some((p) => url.searchParams.has(p))) {
        throw new GoogleApiError(400, 'invalid', 'Sync token cannot be combined with these parameters.')
      }
      const events = store.list(cal, syncToken, url.searchParams.get('showDeleted') === 'true')
      return ok(page('calendar#events', events, url, () => ({ nextSyncToken: store.syncToken() })))
    }
    if (eventId === undefined && req.method === 'POST') {
      allowed(WRITES)
      return ok(store.insert(cal, body()))
    }
    if (eventId === undefined) throw new GoogleApiError(404, 'notFound', 'Not Found')
    if (req.method === 'GET') {
      allowed(READS)
      return ok(store.get(cal, eventId))
    }
    allowed(WRITES)
    if (req.method === 'PATCH' || req.method === 'PUT') return ok(store.update(cal, eventId, body(), req.method === 'PUT', ifMatch))
    if (req.method === 'DELETE') {
      store.remove(cal, eventId, ifMatch)
      return [204, '']
    }
    throw new GoogleApiError(404, 'notFound', 'Not Found')
  }

  /** One page of a listing; the rest waits server-side under `nextPageToken`, and the last page carries `last()`. */
  const pending = new Map<string, { items: unknown[]; last: Record<string, unknown> }>()
  function page(kind: string, all: unknown[], url: URL, last: () => Record<string, unknown>): Record<string, unknown> {
    const size = Math.min(Number(url.searchParams.get('maxResults') ?? 250), 2500)
    const token = url.searchParams.get('pageToken')
    const source = token === null ? { items: all, last: last() } : pending.get(token)
    if (source === undefined) throw new GoogleApiError(400, 'invalid', 'Invalid page token value.')
    const items = source.items.slice(0, size)
    const remaining = source.items.slice(size)
    if (remaining.length === 0) return { kind, etag: '"p1"', items, ...source.last }
    const next = randomBytes(12).toString('base64url')
    pending.set(next, { items: remaining, last: source.last })
    return { kind, etag: '"p1"', items, nextPageToken: next }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url: base,
    endpoints: { authUrl: `${base}/o/oauth2/v2/auth`, tokenUrl: `${base}/token`, apiRootUrl: `${base}/` },
    store,
    requests: () => [...recorded],
    grant: (scopes = [`${SCOPE}calendar.events`, `${SCOPE}calendar.readonly`]) => newGrant(FAKE_GOOGLE_CLIENT_ID, scopes),
    revokeAll() {
      for (const grant of refreshTokens.values()) grant.revoked = true
    },
    expireAccessTokens() {
      for (const access of accessTokens.values()) access.expired = true
    },
    expireSyncTokens() {
      store.syncEpoch += 1
    },
    consentGrants(scopes) {
      nextGrants = scopes
    },
    failNext(fault, match = {}) {
      faults.push({ fault, match })
    },
    ownerEvent(calendarId, event) {
      const zone = store.calendar(calendarId).timeZone
      const time = (instant: string | undefined, date: string | undefined) => (date !== undefined ? { date } : { dateTime: instant!, timeZone: zone })
      return store.insert(calendarId, {
        summary: event.summary,
        start: time(event.start, event.date),
        end: time(event.end, event.endDate),
        ...(event.transparency === undefined ? {} : { transparency: event.transparency }),
      })
    },
    ownerMove: (calendarId, id, start, end) => store.update(calendarId, id, { start: { dateTime: start }, end: { dateTime: end } }, false, undefined),
    ownerDelete: (calendarId, id) => store.remove(calendarId, id, undefined),
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
