/**
 * The CalDAV calendar (iCloud, Fastmail, Nextcloud, Zoho, Radicale …) through tsdav. A booking's event
 * lives at `<calendar>/<uid>.ics`, so its UID alone finds it again after a crash; it is created with
 * `If-None-Match: *`, so a retry can never make a second one.
 */
import { createDAVClient, type DAVCalendar, type DAVResponse } from 'tsdav'
import { mergeSpans } from '../../../domain/appointments/intervals.ts'
import {
  CalendarError,
  isSafeEventUid,
  type CalDavCredentials,
  type CalendarChanges,
  type CalendarConnection,
  type CalendarEventDraft,
  type CalendarEventRef,
  type CalendarEventTimes,
  type CalendarInfo,
  type CalendarProvider,
  type CreateOutcome,
  type Interval,
} from '../calendar.port.ts'
import type { OwnerNetwork } from '../../network/public-fetch.ts'
import { busyIntervals, calendarZone, eventIcs, eventTimes, parseEvents, type ParsedEvents } from './ical-events.ts'

export interface CalDavOptions {
  /** How long one request may take before its outcome counts as unknown. */
  readonly timeoutMs?: number
  /** Reaching the owner's server: its address checked at connect, every request pinned to allowed addresses (the registry's; tests may leave it out). */
  readonly network?: OwnerNetwork
  readonly now?: () => Date
}

type DavClient = Awaited<ReturnType<typeof createDAVClient>>

/** Parsed event versions kept per connection (about four busy months of one calendar). */
const MAX_PARSED_EVENTS = 2_000

export function createCalDavCalendar(options: CalDavOptions = {}): CalendarProvider<CalDavCredentials> {
  const timeoutMs = options.timeoutMs ?? 15_000
  const now = options.now ?? (() => new Date())
  return {
    name: 'caldav',
    async connect(credentials) {
      const fetcher = options.network?.fetch ?? fetch
      if (credentials.kind !== 'caldav') throw new CalendarError('rejected', `CalDAV cannot use ${credentials.kind} credentials`)
      if (options.network !== undefined) {
        try {
          await options.network.check(credentials.serverUrl)
        } catch (error) {
          throw new CalendarError('rejected', `the CalDAV server's address is refused: ${(error as Error).message}`)
        }
      }
      const client = await login(credentials, timeoutMs, fetcher)
      return connection(client, credentials, timeoutMs, now, fetcher)
    },
  }
}

async function login(credentials: CalDavCredentials, timeoutMs: number, fetcher: typeof fetch): Promise<DavClient> {
  // tsdav's discovery swallows a refused password into a vague error; one PROPFIND first names it.
  const probe = await send(credentials.serverUrl, { method: 'PROPFIND', headers: { ...authHeader(credentials), depth: '0' } }, timeoutMs, false, fetcher)
  if (probe.status === 401 || probe.status === 403) throw new CalendarError('unauthorized', 'the calendar refused the username or password', probe.status)
  try {
    return await createDAVClient({
      serverUrl: credentials.serverUrl,
      credentials: { username: credentials.username, password: credentials.password },
      authMethod: 'Basic',
      defaultAccountType: 'caldav',
      fetchOptions: { signal: AbortSignal.timeout(timeoutMs) },
      fetch: fetcher,
    })
  } catch (error) {
    throw new CalendarError('rejected', `no CalDAV calendars found at ${credentials.serverUrl}: ${(error as Error).message}`)
  }
}

function connection(client: DavClient, credentials: CalDavCredentials, timeoutMs: number, now: () => Date, fetcher: typeof fetch): CalendarConnection {
  const auth = authHeader(credentials)
  const fetchOptions = () => ({ signal: AbortSignal.timeout(timeoutMs) })
  const eventUrl = (calendarId: string, uid: string) => {
    if (!isSafeEventUid(uid)) throw new CalendarError('rejected', `an event UID must be letters, digits, '.', '_', '-' or '@': ${JSON.stringify(uid)}`)
    return new URL(`${encodeURIComponent(uid)}.ics`, withSlash(calendarId)).href
  }
  const calendar = (calendarId: string): DAVCalendar => ({ url: withSlash(calendarId) })
  // Parsing the owner's events is most of what reading busy times costs us, and fetching them most of what it
  // costs the server: an event keeps its ETag until someone edits it, so the range's events are listed by
  // ETag and only versions not seen yet are fetched (one multiget) and parsed; an edit is a new ETag.
  const parsedByEtag = new Map<string, ParsedEvents>()
  const keep = (url: string, etag: string, events: ParsedEvents) => {
    if (parsedByEtag.size >= MAX_PARSED_EVENTS) parsedByEtag.clear()
    parsedByEtag.set(`${url} ${etag}`, events)
  }
  const eventsIn = async (calendarId: string, range: Interval): Promise<ParsedEvents[]> => {
    const url = withSlash(calendarId)
    const listed = await dav(() => client.calendarQuery({ url, props: { 'd:getetag': {} }, filters: timeRangeFilter(range), depth: '1', fetchOptions: fetchOptions() }))
    const found: ParsedEvents[] = []
    const missing: string[] = []
    for (const response of listed) {
      if (typeof response.href !== 'string' || !response.href.includes('.ics')) continue
      const href = new URL(response.href, url).href
      const etag = response.props?.getetag == null ? '' : String(response.props.getetag)
      const events = etag === '' ? undefined : parsedByEtag.get(`${href} ${etag}`)
      if (events === undefined) missing.push(href)
      else found.push(events)
    }
    if (missing.length === 0) return found
    const objects = await dav(() => client.fetchCalendarObjects({ calendar: calendar(calendarId), objectUrls: missing, fetchOptions: fetchOptions() }))
    for (const object of objects) {
      if (typeof object.data !== 'string') continue
      const events = parseEvents(object.data)
      if (object.etag !== undefined && object.etag !== '') keep(object.url, object.etag, events)
      found.push(events)
    }
    return found
  }

  return {
    async listCalendars(): Promise<CalendarInfo[]> {
      const calendars = await dav(() => client.fetchCalendars({ fetchOptions: fetchOptions() }))
      return calendars
        .filter((c) => c.components === undefined || c.components.length === 0 || c.components.includes('VEVENT'))
        .map((c) => ({
          id: c.url,
          name: typeof c.displayName === 'string' && c.displayName !== '' ? c.displayName : c.url,
          timeZone: typeof c.timezone === 'string' ? calendarZone(c.timezone) : null,
        }))
    },

    async busy(calendarId: string, range: Interval, zone: string): Promise<Interval[]> {
      const spans = (await eventsIn(calendarId, range)).flatMap((events) => busyIntervals(events, range, zone).map((i) => ({ start: Date.parse(i.start), end: Date.parse(i.end) })))
      return mergeSpans(spans).map((s) => ({ start: new Date(s.start).toISOString(), end: new Date(s.end).toISOString() }))
    },

    async createEvent(calendarId: string, draft: CalendarEventDraft): Promise<CreateOutcome> {
      const url = eventUrl(calendarId, draft.uid)
      const response = await send(url, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'text/calendar; charset=utf-8', 'if-none-match': '*' },
        body: eventIcs(draft, now()),
      }, timeoutMs, true, fetcher)
      if (response.status === 201 || response.status === 204 || response.status === 200) {
        return { outcome: 'created', event: { uid: draft.uid, etag: response.headers.get('etag') } }
      }
      if (response.status === 412) {
        const existing = await send(url, { method: 'HEAD', headers: auth }, timeoutMs, false, fetcher)
        return { outcome: 'already_exists', event: { uid: draft.uid, etag: existing.headers.get('etag') } }
      }
      throw failure(response.status, `creating event ${draft.uid}`)
    },

    async updateEvent(calendarId: string, draft: CalendarEventDraft, etag?: string): Promise<CalendarEventRef> {
      const response = await send(eventUrl(calendarId, draft.uid), {
        method: 'PUT',
        // Without an ETag, `If-Match: *` still refuses to bring back an event the owner deleted.
        headers: { ...auth, 'content-type': 'text/calendar; charset=utf-8', 'if-match': etag ?? '*' },
        body: eventIcs(draft, now()),
      }, timeoutMs, true, fetcher)
      if (response.ok) return { uid: draft.uid, etag: response.headers.get('etag') }
      if (response.status === 412) {
        throw etag === undefined
          ? new CalendarError('not_found', `event ${draft.uid} is not in the calendar`, 412)
          : new CalendarError('conflict', `event ${draft.uid} was changed in the calendar`, 412)
      }
      throw failure(response.status, `updating event ${draft.uid}`)
    },

    async deleteEvent(calendarId: string, uid: string): Promise<'deleted' | 'already_gone'> {
      const response = await send(eventUrl(calendarId, uid), { method: 'DELETE', headers: auth }, timeoutMs, true, fetcher)
      if (response.ok) return 'deleted'
      if (response.status === 404 || response.status === 410) return 'already_gone'
      throw failure(response.status, `deleting event ${uid}`)
    },

    async changes(calendarId: string, token: string | null): Promise<CalendarChanges> {
      const report = (syncToken: string | undefined) =>
        dav(() =>
          client.syncCollection({
            url: withSlash(calendarId),
            props: { 'd:getetag': {} },
            syncLevel: 1,
            ...(syncToken === undefined ? {} : { syncToken }),
            fetchOptions: fetchOptions(),
          }),
        )
      let responses = await report(token ?? undefined)
      let full = token === null
      // A token the server no longer honours (RFC 6578 valid-sync-token): start over with everything.
      if (token !== null && responses.length === 1 && !responses[0]!.ok && responses[0]!.status >= 400) {
        responses = await report(undefined)
        full = true
      }
      if (responses.length === 1 && !responses[0]!.ok && responses[0]!.status >= 400) throw failure(responses[0]!.status, 'reading changes')
      const newToken = syncTokenOf(responses)
      if (newToken === null) throw new CalendarError('rejected', 'the calendar does not support sync-collection')
      const changed: CalendarEventRef[] = []
      const removed: string[] = []
      for (const response of responses) {
        const uid = uidOf(response.href)
        if (uid === null) continue
        if (response.status === 404) removed.push(uid)
        else changed.push({ uid, etag: response.props?.getetag == null ? null : String(response.props.getetag) })
      }
      return { token: newToken, full, changed, removed }
    },

    async getEvent(calendarId: string, uid: string, zone = 'UTC'): Promise<CalendarEventTimes | null> {
      const url = eventUrl(calendarId, uid)
      let response: Response
      let text: string
      try {
        response = await fetcher(url, { method: 'GET', headers: auth, signal: AbortSignal.timeout(timeoutMs) })
        text = await response.text()
      } catch (error) {
        throw new CalendarError('unreachable', `no answer from the calendar: ${(error as Error).message}`)
      }
      if (response.status === 404 || response.status === 410) return null
      // A read changed nothing: a server error is `unreachable`, never an unknown outcome.
      if (response.status >= 500) throw new CalendarError('unreachable', `the calendar answered ${response.status} reading event ${uid}`, response.status)
      if (!response.ok) throw failure(response.status, `reading event ${uid}`)
      let times
      try {
        times = eventTimes(text, uid, zone)
      } catch (error) {
        throw new CalendarError('rejected', `event ${uid} is not readable iCalendar: ${(error as Error).message}`)
      }
      return times === null ? null : { uid, ...times, etag: response.headers.get('etag') }
    },
  }
}

function authHeader(credentials: CalDavCredentials): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}` }
}

/** CalDAV's time-range filter (RFC 4791 9.9) for the VEVENTs of `range`, in the UTC form servers read. */
function timeRangeFilter(range: Interval) {
  const utc = (iso: string) => `${new Date(iso).toISOString().slice(0, 19).replace(/[-:.]/g, '')}Z`
  return [{ 'comp-filter': { _attributes: { name: 'VCALENDAR' }, 'comp-filter': { _attributes: { name: 'VEVENT' }, 'time-range': { _attributes: { start: utc(range.start), end: utc(range.end) } } } } }]
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`
}

/** The event's UID from its file name (`…/<uid>.ics`); null for the collection itself. */
function uidOf(href: string | undefined): string | null {
  const name = /([^/]+)\.ics$/.exec(href ?? '')?.[1]
  return name === undefined ? null : decodeURIComponent(name)
}

function syncTokenOf(responses: readonly DAVResponse[]): string | null {
  const token = (responses[0]?.raw as { multistatus?: { syncToken?: unknown } } | undefined)?.multistatus?.syncToken
  return token == null ? null : String(token)
}

/** One request; a request that may have reached the server (`writes`) and got no answer is `unknown_outcome`. */
async function send(url: string, init: RequestInit, timeoutMs: number, writes: boolean, fetcher: typeof fetch): Promise<Response> {
  try {
    const response = await fetcher(url, { ...init, signal: AbortSignal.timeout(timeoutMs) })
    await response.arrayBuffer()
    if (writes && response.status >= 500) throw new CalendarError('unknown_outcome', `the calendar answered ${response.status}`, response.status)
    return response
  } catch (error) {
    if (error instanceof CalendarError) throw error
    throw new CalendarError(writes ? 'unknown_outcome' : 'unreachable', `no answer from the calendar: ${(error as Error).message}`)
  }
}

/** A tsdav read; a network failure is `unreachable` (reads change nothing). */
async function dav<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read()
  } catch (error) {
    if (error instanceof CalendarError) throw error
    throw new CalendarError('unreachable', `no answer from the calendar: ${(error as Error).message}`)
  }
}

function failure(status: number, doing: string): CalendarError {
  if (status === 401 || status === 403) return new CalendarError('unauthorized', `the calendar refused the credentials ${doing}`, status)
  if (status === 404) return new CalendarError('not_found', `no such calendar or event ${doing}`, status)
  if (status >= 500) return new CalendarError('unknown_outcome', `the calendar answered ${status} ${doing}`, status)
  return new CalendarError('rejected', `the calendar answered ${status} ${doing}`, status)
}
