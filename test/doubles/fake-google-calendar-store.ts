/**
 * TEST DOUBLE, the calendars behind fake-google-calendar.ts: Google Calendar API v3's events as Google
 * keeps them. A deleted event stays, `status: cancelled`, under its id (a new insert with that id is 409;
 * `get` still answers it; a second delete is 410). Every write gives a new ETag and a new place in the
 * calendar's change order, which is what sync tokens count. Free/busy skips cancelled and transparent
 * events and reads all-day events in the calendar's zone.
 */
import { randomBytes } from 'node:crypto'
import { DateTime } from 'luxon'

export interface FakeCalendar {
  readonly id: string
  summary: string
  timeZone: string
  accessRole: 'owner' | 'writer' | 'reader' | 'freeBusyReader'
  primary: boolean
}

export interface EventTime {
  dateTime?: string
  date?: string
  timeZone?: string
}

export interface FakeEvent {
  kind: 'calendar#event'
  id: string
  etag: string
  status: 'confirmed' | 'tentative' | 'cancelled'
  summary?: string
  description?: string
  transparency?: 'opaque' | 'transparent'
  start: EventTime
  end: EventTime
  created: string
  updated: string
  iCalUID: string
  sequence: number
  [field: string]: unknown
}

/** A Google error as its JSON API sends it: `{error: {code, message, errors: [{domain, reason, message}]}}`. */
export class GoogleApiError extends Error {
  readonly status: number
  readonly reason: string
  constructor(status: number, reason: string, message: string) {
    super(message)
    this.status = status
    this.reason = reason
  }
  body(): string {
    return JSON.stringify({ error: { code: this.status, message: this.message, errors: [{ domain: 'global', reason: this.reason, message: this.message }] } })
  }
}

const EVENT_ID = /^[a-v0-9]{5,1024}$/

export class CalendarStore {
  readonly calendars = new Map<string, FakeCalendar>()
  private readonly events = new Map<string, Map<string, FakeEvent>>()
  /** Each event's place in its calendar's change order (what a sync token counts up to). */
  private readonly changedAt = new Map<FakeEvent, number>()
  private seq = 0
  private etags = 3_181_161_784_712_000
  /** Tokens issued before this were expired by a test: 410 fullSyncRequired. */
  syncEpoch = 0

  constructor(private readonly now: () => Date) {}

  addCalendar(calendar: FakeCalendar): void {
    this.calendars.set(calendar.id, calendar)
    this.events.set(calendar.id, new Map())
  }

  calendar(id: string): FakeCalendar {
    const calendar = this.calendars.get(id)
    if (calendar === undefined) throw new GoogleApiError(404, 'notFound', 'Not Found')
    return calendar
  }

  private eventsOf(calendarId: string): Map<string, FakeEvent> {
    this.calendar(calendarId)
    return this.events.get(calendarId)!
  }

  private touch(calendarId: string, event: FakeEvent): FakeEvent {
    this.etags += 1_000
    event.etag = `"${this.etags}"`
    event.updated = this.now().toISOString()
    this.seq += 1
    this.changedAt.set(event, this.seq)
    this.eventsOf(calendarId).set(event.id, event)
    return event
  }

  insert(calendarId: string, input: Record<string, unknown>): FakeEvent {
    const events = this.eventsOf(calendarId)
    // Google's own ids are 26 base32hex characters; hex is a subset.
    const id = typeof input.id === 'string' ? input.id : randomBytes(13).toString('hex')
    if (!EVENT_ID.test(id)) throw new GoogleApiError(400, 'invalid', 'Invalid resource id value.')
    if (events.has(id)) throw new GoogleApiError(409, 'duplicate', 'The requested identifier already exists.')
    const at = this.now().toISOString()
    const event: FakeEvent = {
      ...input,
      kind: 'calendar#event',
      id,
      etag: '',
      status: input.status === 'tentative' ? 'tentative' : 'confirmed',
      start: input.start as EventTime,
      end: input.end as EventTime,
      created: at,
      updated: at,
      iCalUID: `${id}@google.com`,
      sequence: 0,
    }
    this.checkTimes(event)
    return this.touch(calendarId, event)
  }

  get(calendarId: string, id: string): FakeEvent {
    const event = this.eventsOf(calendarId).get(id)
    if (event === undefined) throw new GoogleApiError(404, 'notFound', 'Not Found')
    return event
  }

  /** PATCH (merge) or PUT (replace); `ifMatch` as the header came. */
  update(calendarId: string, id: string, input: Record<string, unknown>, replace: boolean, ifMatch: string | undefined): FakeEvent {
    const current = this.get(calendarId, id)
    this.checkIfMatch(current, ifMatch)
    const next: FakeEvent = replace
      ? { ...input, kind: 'calendar#event', id, etag: current.etag, status: (input.status as FakeEvent['status'] | undefined) ?? 'confirmed', start: input.start as EventTime, end: input.end as EventTime, created: current.created, updated: current.updated, iCalUID: current.iCalUID, sequence: current.sequence + 1 }
      : { ...current, ...input, id, kind: 'calendar#event', iCalUID: current.iCalUID, created: current.created, sequence: current.sequence + 1 }
    this.checkTimes(next)
    this.changedAt.delete(current)
    return this.touch(calendarId, next)
  }

  remove(calendarId: string, id: string, ifMatch: string | undefined): void {
    const current = this.get(calendarId, id)
    if (current.status === 'cancelled') throw new GoogleApiError(410, 'deleted', 'Resource has been deleted')
    this.checkIfMatch(current, ifMatch)
    this.changedAt.delete(current)
    this.touch(calendarId, { ...current, status: 'cancelled' })
  }

  live(calendarId: string): FakeEvent[] {
    return [...this.eventsOf(calendarId).values()].filter((e) => e.status !== 'cancelled')
  }

  syncToken(): string {
    return Buffer.from(JSON.stringify({ seq: this.seq, epoch: this.syncEpoch })).toString('base64url')
  }

  /** Events for a listing: all (deleted ones with `showDeleted`), or those changed since a sync token. */
  list(calendarId: string, syncToken: string | undefined, showDeleted: boolean): FakeEvent[] {
    const events = [...this.eventsOf(calendarId).values()]
    if (syncToken === undefined) return events.filter((e) => showDeleted || e.status !== 'cancelled')
    let since: { seq?: unknown; epoch?: unknown }
    try {
      since = JSON.parse(Buffer.from(syncToken, 'base64url').toString('utf8')) as typeof since
    } catch {
      since = {}
    }
    if (typeof since.seq !== 'number' || since.epoch !== this.syncEpoch) {
      throw new GoogleApiError(410, 'fullSyncRequired', 'Sync token is no longer valid, a full sync is required.')
    }
    const from = since.seq
    // Deleted events always come back in an incremental sync, whatever showDeleted says.
    return events.filter((e) => (this.changedAt.get(e) ?? 0) > from).sort((a, b) => this.changedAt.get(a)! - this.changedAt.get(b)!)
  }

  /** Busy periods of [from, to) in ms, formatted in `zone` with its offset as Google answers. */
  busy(calendarId: string, from: number, to: number, zone: string): { start: string; end: string }[] {
    const calendar = this.calendar(calendarId)
    const spans = this.live(calendarId)
      .filter((e) => e.transparency !== 'transparent')
      .map((e) => ({ start: this.instant(e.start, calendar.timeZone), end: this.instant(e.end, calendar.timeZone) }))
      .filter((s) => s.start < to && s.end > from)
      .sort((a, b) => a.start - b.start)
    const format = (ms: number) => DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true })!
    return spans.map((s) => ({ start: format(Math.max(s.start, from)), end: format(Math.min(s.end, to)) }))
  }

  private instant(time: EventTime, zone: string): number {
    if (time.dateTime !== undefined) return Date.parse(time.dateTime)
    return DateTime.fromISO(time.date ?? '', { zone }).toMillis()
  }

  private checkTimes(event: FakeEvent): void {
    const zone = 'UTC'
    if (event.start === undefined || event.end === undefined) throw new GoogleApiError(400, 'required', 'Missing end time.')
    const start = this.instant(event.start, zone)
    const end = this.instant(event.end, zone)
    if (!Number.isFinite(start) || !Number.isFinite(end)) throw new GoogleApiError(400, 'invalid', 'Invalid start or end time.')
    if (end <= start) throw new GoogleApiError(400, 'timeRangeEmpty', 'The specified time range is empty.')
  }

  private checkIfMatch(current: FakeEvent, ifMatch: string | undefined): void {
    if (ifMatch !== undefined && ifMatch !== '*' && ifMatch !== current.etag) throw new GoogleApiError(412, 'conditionNotMet', 'Precondition Failed')
  }
}
