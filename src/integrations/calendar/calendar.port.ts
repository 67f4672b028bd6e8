/**
 * The calendar port: what appointments need of the calendar a business already uses. Connect with the
 * owner's credentials (checked at once), list calendars, read busy times (the owner's own events block
 * slots), write one event per booking under a stable UID, and notice what changed in the calendar since
 * a token. Adapters: CalDAV (tsdav), Google Calendar, Cal.com (API v2), simulated (in memory); open-calendar.ts picks one by kind. Every failure says whether the calendar can have acted on it.
 */

/** The owner's credentials for a CalDAV server (an app password, never the account's main one). */
export interface CalDavCredentials {
  readonly kind: 'caldav'
  /** The server's address, or its CalDAV root (`https://caldav.fastmail.com/`, `https://cloud.example/remote.php/dav`). */
  readonly serverUrl: string
  readonly username: string
  readonly password: string
}

/** A Cal.com account (API v2): an API key and, optionally, the one event type bookings go to. */
export interface CalComCredentials {
  readonly kind: 'calcom'
  /** `cal_live_…` (or `cal_…` on a self-hosted instance), from Settings → Developer → API keys. */
  readonly apiKey: string
  /** The event type the owner chose; listCalendars then lists only it. */
  readonly eventTypeId?: number
  /** The API's origin, `https://api.cal.com` unless self-hosted. */
  readonly baseUrl?: string
}

/** The owner's Google consent: the refresh token, and the OAuth client (GOOGLE_CLIENT_ID/SECRET) it was granted to. */
export interface GoogleCredentials {
  readonly kind: 'google'
  readonly refreshToken: string
  readonly clientId: string
  readonly clientSecret: string
}


/**
 * The simulated calendar (the embedded default's demo, and the in-process tests): no credentials, no
 * real calendar. `owner` (the account id, set by Leadline, never by the caller) names whose in-memory
 * calendar it is, shared by every connection of that account in the process.
 */
export interface SimulatedCalendarCredentials {
  readonly kind: 'simulated'
  readonly owner?: string
}

export type CalendarCredentials = CalDavCredentials | GoogleCredentials | CalComCredentials | SimulatedCalendarCredentials

/** Which kind of calendar: each kind has one adapter folder and one line in open-calendar.ts. */
export type CalendarKind = CalendarCredentials['kind']

export interface CalendarInfo {
  /** The calendar's id for later calls (CalDAV: its collection URL). */
  readonly id: string
  readonly name: string
  /** Its IANA zone when the calendar names one. */
  readonly timeZone: string | null
}

/** A half-open interval [start, end) in UTC ISO 8601. */
export interface Interval {
  readonly start: string
  readonly end: string
}

/** The event a booking writes: what it says and when, under the UID that makes a retry find it again. */
export interface CalendarEventDraft {
  /** Stable across retries (derived from the booking): one booking, one event. Letters, digits, `.`, `_`, `-`, `@`. */
  readonly uid: string
  readonly start: string
  readonly end: string
  readonly summary: string
  readonly description?: string
  /** The lead, for calendars that book a person rather than write an event (Cal.com requires one). */
  readonly attendee?: CalendarAttendee
}

export interface CalendarAttendee {
  readonly name: string
  /** E.164 (`+15551230000`). */
  readonly phone: string
  /** The lead's IANA zone, in which the booking platform writes to them. */
  readonly timeZone: string
}

export interface CalendarEventRef {
  readonly uid: string
  /** The calendar's version of the event (CalDAV: its ETag); changes whenever anyone edits it. */
  readonly etag: string | null
}

export type CreateOutcome =
  /** Written now. */
  | { readonly outcome: 'created'; readonly event: CalendarEventRef }
  /** An event with this UID was already there: an earlier attempt of the same booking landed. */
  | { readonly outcome: 'already_exists'; readonly event: CalendarEventRef }

/** One event as the calendar has it now: when it is (UTC instants) and its version. */
export interface CalendarEventTimes {
  readonly uid: string
  readonly start: string
  readonly end: string
  readonly etag: string | null
}

/** What changed in a calendar since a token. */
export interface CalendarChanges {
  /** Pass it to the next `changes` call. */
  readonly token: string
  /** True when the old token was not honoured and `changed` lists every event: compare, do not trust deltas. */
  readonly full: boolean
  /** Events created or edited (by UID when the calendar's file name carries it, else by file). */
  readonly changed: readonly CalendarEventRef[]
  /** Events deleted from the calendar. */
  readonly removed: readonly string[]
}

export interface CalendarConnection {
  listCalendars(): Promise<CalendarInfo[]>
  /** Busy intervals in `range`, sorted and merged; all-day and floating times are read in `zone`. */
  busy(calendarId: string, range: Interval, zone: string): Promise<Interval[]>
  /** Writes the event only if no event has its UID yet (CalDAV: `If-None-Match: *`). */
  createEvent(calendarId: string, draft: CalendarEventDraft): Promise<CreateOutcome>
  /** Replaces the event with this UID; with `etag`, only if nobody changed it since (else `conflict`). */
  updateEvent(calendarId: string, draft: CalendarEventDraft, etag?: string): Promise<CalendarEventRef>
  /** Deletes the event with this UID; an event already gone is `already_gone`, not an error. */
  deleteEvent(calendarId: string, uid: string): Promise<'deleted' | 'already_gone'>
  /** What changed since `token` (null: everything there is now, with a first token). */
  changes(calendarId: string, token: string | null): Promise<CalendarChanges>
  /**
   * The event with this UID as it is now; null when it is gone (deleted, cancelled, or never there).
   * Floating and all-day times are read in `zone` (default UTC).
   */
  getEvent(calendarId: string, uid: string, zone?: string): Promise<CalendarEventTimes | null>
}

export interface CalendarProvider<C extends CalendarCredentials = CalendarCredentials> {
  readonly name: C['kind']
  /** Checks the credentials with the server before answering: a wrong password is `unauthorized` now, not later. */
  connect(credentials: C): Promise<CalendarConnection>
}

export type CalendarFailure =
  /** The credentials were refused. */
  | 'unauthorized'
  /** No such calendar or event. */
  | 'not_found'
  /** Someone changed the event since the ETag we hold. */
  | 'conflict'
  /** The request was refused as it was (bad input, unsupported); nothing was written. */
  | 'rejected'
  /** The server could not be reached; nothing was written. */
  | 'unreachable'
  /** The request may or may not have been applied (a timeout, a 5xx after sending): retry with the same UID. */
  | 'unknown_outcome'

export class CalendarError extends Error {
  readonly kind: CalendarFailure
  readonly status: number | null
  constructor(kind: CalendarFailure, message: string, status: number | null = null) {
    super(message)
    this.name = 'CalendarError'
    this.kind = kind
    this.status = status
  }
}

const UID = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,199}$/

/** Whether `uid` can name an event file on every calendar (no slashes, no spaces, no dot-only names). */
export function isSafeEventUid(uid: string): boolean {
  return UID.test(uid)
}
