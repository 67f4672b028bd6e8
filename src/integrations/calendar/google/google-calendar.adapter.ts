/**
 * Google Calendar through Google's own client (`@googleapis/calendar`, OAuth2Client from
 * google-auth-library). A booking's event id is derived from its UID (google-event-ids.ts), so a retry's
 * insert answers 409 and finds the first event; updates carry `If-Match`; changes come from `events.list`
 * sync tokens. Retries are left to the caller's claim → perform → record loop, so no write is ever sent
 * twice behind its back.
 */
import { calendar as googleCalendar, type calendar_v3 } from '@googleapis/calendar'
import { DateTime } from 'luxon'
import { mergeSpans } from '../../../domain/appointments/intervals.ts'
import {
  CalendarError,
  type CalendarChanges,
  type CalendarConnection,
  type CalendarEventDraft,
  type CalendarEventRef,
  type CalendarEventTimes,
  type CalendarInfo,
  type CalendarProvider,
  type CreateOutcome,
  type GoogleCredentials,
  type Interval,
} from '../calendar.port.ts'
import { DEFAULT_GOOGLE_TIMEOUT_MS, GOOGLE_ENDPOINTS, googleFailure, oauthClient, reasonOf, statusOf, type GoogleEndpoints } from './google-client.ts'
import { googleEventId, uidOfGoogleEvent } from './google-event-ids.ts'

export interface GoogleCalendarOptions {
  /** Google's addresses; tests point them at the double. */
  readonly endpoints?: Partial<GoogleEndpoints>
  /** How long one request may take before its outcome counts as unknown. */
  readonly timeoutMs?: number
}

/** Calendars a booking can be written to; the ones the owner can only read are not offered. */
const WRITABLE = new Set(['owner', 'writer'])

export function createGoogleCalendar(options: GoogleCalendarOptions = {}): CalendarProvider<GoogleCredentials> {
  const endpoints = { ...GOOGLE_ENDPOINTS, ...options.endpoints }
  const timeoutMs = options.timeoutMs ?? DEFAULT_GOOGLE_TIMEOUT_MS
  return {
    name: 'google',
    async connect(credentials) {
      if (credentials.kind !== 'google') throw new CalendarError('rejected', `Google Calendar cannot use ${credentials.kind} credentials`)
      const missing = (['refreshToken', 'clientId', 'clientSecret'] as const).filter((field) => typeof credentials[field] !== 'string' || credentials[field].trim() === '')
      if (missing.length > 0) throw new CalendarError('rejected', `Google Calendar credentials need ${missing.join(', ')}`)
      const api = await login(credentials, endpoints, timeoutMs)
      return connection(api, endpoints.tokenUrl)
    },
  }
}

async function login(credentials: GoogleCredentials, endpoints: GoogleEndpoints, timeoutMs: number): Promise<calendar_v3.Calendar> {
  const oauth = oauthClient(credentials, endpoints, timeoutMs)
  oauth.setCredentials({ refresh_token: credentials.refreshToken })
  try {
    // A revoked consent is named now, at connect, not at the first booking.
    await oauth.getAccessToken()
  } catch (error) {
    throw googleFailure(error, 'refreshing the access token', false, endpoints.tokenUrl)
  }
  return googleCalendar({ version: 'v3', auth: oauth, rootUrl: endpoints.apiRootUrl, timeout: timeoutMs, retry: false })
}

function connection(api: calendar_v3.Calendar, tokenUrl: string): CalendarConnection {
  const call = async <T>(doing: string, writes: boolean, request: () => Promise<{ data: T }>): Promise<T> => {
    try {
      return (await request()).data
    } catch (error) {
      throw googleFailure(error, doing, writes, tokenUrl)
    }
  }
  const body = (draft: CalendarEventDraft): calendar_v3.Schema$Event => ({
    summary: draft.summary,
    description: draft.description ?? '',
    start: { dateTime: new Date(draft.start).toISOString(), timeZone: 'UTC' },
    end: { dateTime: new Date(draft.end).toISOString(), timeZone: 'UTC' },
  })
  const fetchEvent = (calendarId: string, eventId: string, doing: string) =>
    call(doing, false, () => api.events.get({ calendarId, eventId }))
  const patch = (calendarId: string, draft: CalendarEventDraft, etag: string, extra: calendar_v3.Schema$Event = {}) =>
    call(`updating event ${draft.uid}`, true, () =>
      api.events.patch({ calendarId, eventId: googleEventId(draft.uid), sendUpdates: 'none', requestBody: { ...body(draft), ...extra } }, { headers: { 'If-Match': etag } }),
    )

  return {
    async listCalendars(): Promise<CalendarInfo[]> {
      const calendars: CalendarInfo[] = []
      let pageToken: string | undefined
      do {
        const page = await call('listing calendars', false, () => api.calendarList.list({ ...(pageToken === undefined ? {} : { pageToken }) }))
        for (const entry of page.items ?? []) {
          if (typeof entry.id !== 'string' || !WRITABLE.has(entry.accessRole ?? '') || entry.deleted === true) continue
          calendars.push({ id: entry.id, name: entry.summaryOverride ?? entry.summary ?? entry.id, timeZone: entry.timeZone ?? null })
        }
        pageToken = page.nextPageToken ?? undefined
      } while (pageToken !== undefined)
      return calendars
    },

    async busy(calendarId: string, range: Interval, zone: string): Promise<Interval[]> {
      const answer = await call('reading free/busy', false, () =>
        api.freebusy.query({ requestBody: { timeMin: range.start, timeMax: range.end, timeZone: zone, items: [{ id: calendarId }] } }),
      )
      const entry = answer.calendars?.[calendarId]
      const error = entry?.errors?.[0]
      if (entry === undefined || error !== undefined) {
        const reason = error?.reason ?? 'missing'
        throw new CalendarError(reason === 'notFound' ? 'not_found' : 'rejected', `Google has no free/busy for calendar ${calendarId} (${reason})`)
      }
      const from = Date.parse(range.start)
      const to = Date.parse(range.end)
      // Clipped to the range asked for, so a busy day that began yesterday blocks only today's part.
      const spans = (entry.busy ?? []).map((b) => ({ start: Math.max(from, Date.parse(b.start ?? '')), end: Math.min(to, Date.parse(b.end ?? '')) }))
      return mergeSpans(spans.filter((s) => Number.isFinite(s.start) && Number.isFinite(s.end))).map((s) => ({
        start: new Date(s.start).toISOString(),
        end: new Date(s.end).toISOString(),
      }))
    },

    async createEvent(calendarId: string, draft: CalendarEventDraft): Promise<CreateOutcome> {
      const id = googleEventId(draft.uid)
      try {
        const created = await api.events.insert({ calendarId, sendUpdates: 'none', requestBody: { id, ...body(draft) } })
        return { outcome: 'created', event: { uid: draft.uid, etag: created.data.etag ?? null } }
      } catch (error) {
        if (statusOf(error) !== 409) throw googleFailure(error, `creating event ${draft.uid}`, true, tokenUrl)
      }
      const existing = await fetchEvent(calendarId, id, `reading event ${draft.uid}`)
      if (existing.status !== 'cancelled') return { outcome: 'already_exists', event: { uid: draft.uid, etag: existing.etag ?? null } }
      // Google keeps a deleted event's id; writing the booking again brings it back, as a new file would on CalDAV.
      try {
        const restored = await patch(calendarId, draft, existing.etag ?? '*', { status: 'confirmed' })
        return { outcome: 'created', event: { uid: draft.uid, etag: restored.etag ?? null } }
      } catch (error) {
        if (!(error instanceof CalendarError && error.kind === 'conflict')) throw error
        // Another writer of the same booking restored it first.
        const now = await fetchEvent(calendarId, id, `reading event ${draft.uid}`)
        if (now.status === 'cancelled') throw error
        return { outcome: 'already_exists', event: { uid: draft.uid, etag: now.etag ?? null } }
      }
    },

    async updateEvent(calendarId: string, draft: CalendarEventDraft, etag?: string): Promise<CalendarEventRef> {
      let expected = etag
      if (expected === undefined) {
        // Without an ETag, still never bring back an event the owner deleted: read it, then update that version.
        const current = await fetchEvent(calendarId, googleEventId(draft.uid), `reading event ${draft.uid}`)
        if (current.status === 'cancelled') throw new CalendarError('not_found', `event ${draft.uid} is not in the calendar`, 410)
        expected = current.etag ?? '*'
      }
      const updated = await patch(calendarId, draft, expected)
      return { uid: draft.uid, etag: updated.etag ?? null }
    },

    async deleteEvent(calendarId: string, uid: string): Promise<'deleted' | 'already_gone'> {
      try {
        await api.events.delete({ calendarId, eventId: googleEventId(uid), sendUpdates: 'none' })
        return 'deleted'
      } catch (error) {
        const status = statusOf(error)
        if (status === 404 || status === 410) return 'already_gone'
        throw googleFailure(error, `deleting event ${uid}`, true, tokenUrl)
      }
    },

    async changes(calendarId: string, token: string | null): Promise<CalendarChanges> {
      if (token !== null) {
        try {
          return await listing(calendarId, token)
        } catch (error) {
          // 410 fullSyncRequired: the token expired (or the calendar's sharing changed); start over with everything.
          if (!(error instanceof CalendarError && error.status === 410)) throw error
        }
      }
      return listing(calendarId, null)
    },

    async getEvent(calendarId: string, uid: string, zone = 'UTC'): Promise<CalendarEventTimes | null> {
      let event: calendar_v3.Schema$Event
      try {
        event = (await api.events.get({ calendarId, eventId: googleEventId(uid) })).data
      } catch (error) {
        const status = statusOf(error)
        if (status === 404 || status === 410) return null
        throw googleFailure(error, `reading event ${uid}`, false, tokenUrl)
      }
      // Google keeps a deleted event's id, marked cancelled.
      if (event.status === 'cancelled') return null
      const start = instantOf(event.start, zone)
      const end = instantOf(event.end, zone)
      if (start === null || end === null) throw new CalendarError('rejected', `Google's event ${uid} has no readable start or end`)
      return { uid, start, end, etag: event.etag ?? null }
    },
  }

  async function listing(calendarId: string, syncToken: string | null): Promise<CalendarChanges> {
    const changed: CalendarEventRef[] = []
    const removed: string[] = []
    let pageToken: string | undefined
    let nextSyncToken: string | undefined
    do {
      const page = await call('reading changes', false, async () => {
        try {
          return await api.events.list({
            calendarId,
            // The same parameters on every call of a sync, as Google asks; deleted events are how removals show.
            showDeleted: true,
            maxResults: 2500,
            ...(syncToken === null ? {} : { syncToken }),
            ...(pageToken === undefined ? {} : { pageToken }),
          })
        } catch (error) {
          if (statusOf(error) === 410) throw new CalendarError('not_found', `sync token refused (${reasonOf(error) ?? 'gone'})`, 410)
          throw error
        }
      })
      for (const event of page.items ?? []) {
        if (typeof event.id !== 'string') continue
        const uid = uidOfGoogleEvent(event.id)
        if (event.status === 'cancelled') removed.push(uid)
        else changed.push({ uid, etag: event.etag ?? null })
      }
      pageToken = page.nextPageToken ?? undefined
      nextSyncToken = page.nextSyncToken ?? undefined
    } while (pageToken !== undefined)
    if (nextSyncToken === undefined) throw new CalendarError('rejected', 'Google gave no sync token for the calendar')
    return { token: nextSyncToken, full: syncToken === null, changed, removed }
  }
}

/** A Google event time as a UTC instant: `dateTime` as written, an all-day `date` at midnight in its zone. */
function instantOf(time: calendar_v3.Schema$EventDateTime | undefined, zone: string): string | null {
  if (typeof time?.dateTime === 'string') {
    const ms = Date.parse(time.dateTime)
    return Number.isNaN(ms) ? null : new Date(ms).toISOString()
  }
  if (typeof time?.date === 'string') {
    const day = DateTime.fromISO(time.date, { zone: time.timeZone ?? zone })
    return day.isValid ? day.toUTC().toISO() : null
  }
  return null
}
