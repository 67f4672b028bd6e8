/**
 * Cal.com (API v2) as a calendar. Cal.com books people into event types rather than holding raw events:
 * a "calendar" is an event type, busy time is what its open slots leave out, and an event is a booking
 * whose metadata carries the event's UID, so a retry finds the booking an earlier attempt made instead of
 * making a second. Moves are Cal.com reschedules (a new booking uid each time: the UID still finds it);
 * deletes are cancellations; changes are noticed by polling the bookings against a snapshot token.
 */
import type { OwnerNetwork } from '../../network/public-fetch.ts'
import { mergeSpans, type Span } from '../../../domain/appointments/intervals.ts'
import {
  CalendarError,
  isSafeEventUid,
  type CalComCredentials,
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
import { CalComApi, type CalBooking, type CalMe } from './calcom-api.ts'
import { changedSince, currentOf, decodeSnapshot, encodeSnapshot, goneSince, isLive, LEADLINE_UID, leadlineUidOf, type LiveEvent } from './calcom-bookings.ts'

export const CALCOM_API_URL = 'https://api.cal.com'

export interface CalComOptions {
  /** How long one request may take before its outcome counts as unknown. */
  readonly timeoutMs?: number
  /** Reaching a self-hosted Cal.com the owner named: its address checked at connect, every request pinned to allowed addresses. */
  readonly network?: OwnerNetwork
  readonly now?: () => Date
}

/** How far back bookings are searched for a UID: a past appointment can still be moved or cancelled. */
const LOOK_BACK_MS = 30 * 86_400_000
/** How far back `changes` watches: an appointment that ended a day ago no longer moves. */
const WATCH_BACK_MS = 86_400_000
const PAGE = 100
/** Bookings read at most per search (MAX_PAGES × PAGE); a search that would go beyond fails rather than guess. */
const MAX_PAGES = 50
/** A slot can begin this long before the range and still cover part of it. */
const SLOT_REACH_MS = 86_400_000

export function createCalComCalendar(options: CalComOptions = {}): CalendarProvider<CalComCredentials> {
  const timeoutMs = options.timeoutMs ?? 15_000
  const now = options.now ?? (() => new Date())
  return {
    name: 'calcom',
    async connect(credentials) {
      if (credentials.kind !== 'calcom') throw new CalendarError('rejected', `Cal.com cannot use ${credentials.kind} credentials`)
      if (!/^cal_[A-Za-z0-9_-]+$/.test(credentials.apiKey)) {
        throw new CalendarError('rejected', 'a Cal.com API key starts with cal_ (Cal.com: Settings → Developer → API keys)')
      }
      const baseUrl = credentials.baseUrl ?? CALCOM_API_URL
      if (options.network !== undefined) {
        try {
          await options.network.check(baseUrl)
        } catch (error) {
          throw new CalendarError('rejected', `the Cal.com address is refused: ${(error as Error).message}`)
        }
      }
      const api = new CalComApi(baseUrl, credentials.apiKey, timeoutMs, options.network?.fetch ?? fetch)
      const me = await api.me()
      return connection(api, credentials, me, now)
    },
  }
}

function connection(api: CalComApi, credentials: CalComCredentials, me: CalMe, now: () => Date): CalendarConnection {
  /** Which booking last stood for a UID: the quick way back to it (a full search also finds it). */
  const known = new Map<string, string>()

  /** The booking standing for `uid` now (following moves), or null when no booking carries it. */
  async function find(eventTypeId: number, uid: string, hint: { bookingUid?: string | null; start?: string }): Promise<CalBooking | null> {
    for (const lead of [hint.bookingUid, known.get(uid)]) {
      if (lead == null) continue
      const followed = await follow(lead, uid)
      if (followed !== null) return remember(uid, followed)
    }
    const from = Math.min(now().getTime(), hint.start === undefined ? Infinity : Date.parse(hint.start)) - LOOK_BACK_MS
    const carrying = (await bookingsFrom(eventTypeId, from)).filter((b) => leadlineUidOf(b) === uid)
    const current = currentOf(carrying)
    if (current === null) return null
    // A move can land outside the searched window: the chain's pointers still lead to it.
    return remember(uid, current.rescheduledToUid == null ? current : ((await follow(current.rescheduledToUid, uid)) ?? current))
  }

  /** From one booking along `rescheduledToUid` to the chain's end; null when it is not this UID's booking. */
  async function follow(bookingUid: string, uid: string): Promise<CalBooking | null> {
    let booking = await bookingOrNull(bookingUid)
    if (booking === null || leadlineUidOf(booking) !== uid) return null
    for (let hops = 0; hops < 20 && booking.rescheduledToUid != null; hops++) {
      const next: CalBooking | null = await bookingOrNull(booking.rescheduledToUid)
      if (next === null) break
      booking = next
    }
    return booking
  }

  async function bookingOrNull(bookingUid: string): Promise<CalBooking | null> {
    try {
      return await api.booking(bookingUid)
    } catch (error) {
      if (error instanceof CalendarError && error.kind === 'not_found') return null
      throw error
    }
  }

  function remember(uid: string, booking: CalBooking): CalBooking {
    known.set(uid, booking.uid)
    return booking
  }

  async function bookingsFrom(eventTypeId: number, fromMs: number): Promise<CalBooking[]> {
    const all: CalBooking[] = []
    const afterStart = new Date(fromMs).toISOString()
    for (let page = 0; page < MAX_PAGES; page++) {
      const { bookings, hasNextPage } = await api.bookings({ eventTypeId, afterStart, take: PAGE, skip: page * PAGE })
      all.push(...bookings.filter((b) => b.eventTypeId == null || b.eventTypeId === eventTypeId))
      if (!hasNextPage || bookings.length === 0) return all
    }
    throw new CalendarError('rejected', `event type ${eventTypeId} has more than ${MAX_PAGES * PAGE} bookings since ${afterStart}: too many to search`)
  }

  return {
    async listCalendars(): Promise<CalendarInfo[]> {
      const types = await api.eventTypes()
      const chosen = credentials.eventTypeId === undefined ? types : types.filter((t) => t.id === credentials.eventTypeId)
      if (credentials.eventTypeId !== undefined && chosen.length === 0) {
        throw new CalendarError('not_found', `the Cal.com account has no event type ${credentials.eventTypeId}`)
      }
      return chosen.map((t) => ({ id: String(t.id), name: t.title, timeZone: me.timeZone }))
    },

    // Cal.com is the authority on availability (working hours, its connected calendars, its buffers,
    // limits and notice): busy is the range minus the open slots it offers.
    async busy(calendarId: string, range: Interval): Promise<Interval[]> {
      const eventTypeId = eventTypeOf(calendarId)
      const from = Date.parse(range.start)
      const to = Date.parse(range.end)
      if (!(from < to)) return []
      const slots = await api.slots(eventTypeId, new Date(from - SLOT_REACH_MS).toISOString(), new Date(to).toISOString())
      const lengthMs = slots.some((s) => s.end === undefined) ? await eventLengthMs(eventTypeId) : 0
      const open = mergeSpans(
        slots.map((s) => {
          const start = Date.parse(s.start)
          return { start: Math.max(start, from), end: Math.min(s.end === undefined ? start + lengthMs : Date.parse(s.end), to) }
        }),
      )
      return minus({ start: from, end: to }, open).map((s) => ({ start: new Date(s.start).toISOString(), end: new Date(s.end).toISOString() }))
    },

    async createEvent(calendarId: string, draft: CalendarEventDraft): Promise<CreateOutcome> {
      const eventTypeId = eventTypeOf(calendarId)
      checkUid(draft.uid)
      const attendee = draft.attendee
      if (attendee === undefined) throw new CalendarError('rejected', 'a Cal.com booking needs the lead as attendee (name, phone, zone)')
      const start = instant(draft.start)
      // A booking that carries this UID, even one since cancelled in Cal.com, is this event: never a second.
      const existing = await find(eventTypeId, draft.uid, { start })
      if (existing !== null) return { outcome: 'already_exists', event: refOf(draft.uid, existing) }
      const created = await api.createBooking({
        start,
        eventTypeId,
        attendee: { name: attendee.name, timeZone: attendee.timeZone, phoneNumber: attendee.phone, language: 'en' },
        metadata: { [LEADLINE_UID]: draft.uid },
        ...(draft.description === undefined ? {} : { bookingFieldsResponses: { notes: draft.description.slice(0, 1000) } }),
      })
      return { outcome: 'created', event: refOf(draft.uid, remember(draft.uid, created)) }
    },

    async updateEvent(calendarId: string, draft: CalendarEventDraft, etag?: string): Promise<CalendarEventRef> {
      const eventTypeId = eventTypeOf(calendarId)
      checkUid(draft.uid)
      const start = instant(draft.start)
      const current = await find(eventTypeId, draft.uid, { bookingUid: etag ?? null, start })
      if (current === null || !isLive(current)) throw new CalendarError('not_found', `no live Cal.com booking carries event ${draft.uid}`)
      // Already at the new time: an earlier attempt of this same move landed (or nothing to move).
      if (Date.parse(current.start) === Date.parse(start) && (etag === undefined || etag === current.uid || etag === current.rescheduledFromUid)) {
        return refOf(draft.uid, current)
      }
      if (etag !== undefined && etag !== current.uid) throw new CalendarError('conflict', `event ${draft.uid} was changed in Cal.com`)
      const moved = await api.reschedule(current.uid, start, 'Moved in Leadline')
      return refOf(draft.uid, remember(draft.uid, moved))
    },

    async deleteEvent(calendarId: string, uid: string): Promise<'deleted' | 'already_gone'> {
      const eventTypeId = eventTypeOf(calendarId)
      checkUid(uid)
      const current = await find(eventTypeId, uid, {})
      if (current === null || !isLive(current)) return 'already_gone'
      try {
        await api.cancel(current.uid, 'Cancelled in Leadline')
        return 'deleted'
      } catch (error) {
        // Cal.com refuses (400) to cancel a booking already cancelled: someone got there first.
        if (error instanceof CalendarError && error.kind === 'rejected') {
          const now = await bookingOrNull(current.uid)
          if (now !== null && !isLive(now)) return 'already_gone'
        }
        throw error
      }
    },

    async changes(calendarId: string, token: string | null): Promise<CalendarChanges> {
      const eventTypeId = eventTypeOf(calendarId)
      const byUid = new Map<string, CalBooking[]>()
      for (const booking of await bookingsFrom(eventTypeId, now().getTime() - WATCH_BACK_MS)) {
        const uid = leadlineUidOf(booking)
        if (uid !== null) byUid.set(uid, [...(byUid.get(uid) ?? []), booking])
      }
      const live: LiveEvent[] = []
      const gone: string[] = []
      for (const [uid, bookings] of byUid) {
        const current = currentOf(bookings)!
        if (isLive(current)) live.push({ uid, booking: remember(uid, current) })
        else gone.push(uid)
      }
      const next = encodeSnapshot(eventTypeId, live)
      const snapshot = decodeSnapshot(eventTypeId, token)
      if (snapshot === null) return { token: next, full: true, changed: live.map((e) => refOf(e.uid, e.booking)), removed: [] }
      return { token: next, full: false, changed: changedSince(snapshot, live).map((e) => refOf(e.uid, e.booking)), removed: goneSince(snapshot, gone) }
    },

    // The booking now standing for the UID (a move's chain followed); a cancelled or rejected one is gone.
    async getEvent(calendarId: string, uid: string): Promise<CalendarEventTimes | null> {
      const eventTypeId = eventTypeOf(calendarId)
      checkUid(uid)
      const current = await find(eventTypeId, uid, {})
      if (current === null || !isLive(current)) return null
      return { uid, start: instant(current.start), end: instant(current.end), etag: current.uid }
    },
  }

  async function eventLengthMs(eventTypeId: number): Promise<number> {
    const type = (await api.eventTypes()).find((t) => t.id === eventTypeId)
    if (type === undefined) throw new CalendarError('not_found', `the Cal.com account has no event type ${eventTypeId}`)
    return type.lengthInMinutes * 60_000
  }
}

/** The event ref: the port's UID, and the Cal.com booking now standing for it as its version (a move makes a new one). */
function refOf(uid: string, booking: CalBooking): CalendarEventRef {
  return { uid, etag: booking.uid }
}

function eventTypeOf(calendarId: string): number {
  if (!/^[1-9]\d{0,15}$/.test(calendarId)) throw new CalendarError('rejected', `a Cal.com calendar id is an event type id (digits): ${JSON.stringify(calendarId)}`)
  return Number(calendarId)
}

function checkUid(uid: string): void {
  if (!isSafeEventUid(uid)) throw new CalendarError('rejected', `an event UID must be letters, digits, '.', '_', '-' or '@': ${JSON.stringify(uid)}`)
}

/** Cal.com takes the start in UTC. */
function instant(iso: string): string {
  const ms = Date.parse(iso)
  if (Number.isNaN(ms)) throw new CalendarError('rejected', `not an ISO 8601 instant: ${JSON.stringify(iso)}`)
  return new Date(ms).toISOString()
}

/** `range` minus the merged, sorted `open` spans. */
function minus(range: Span, open: readonly Span[]): Span[] {
  const out: Span[] = []
  let at = range.start
  for (const span of open) {
    if (span.start > at) out.push({ start: at, end: span.start })
    at = Math.max(at, span.end)
  }
  if (at < range.end) out.push({ start: at, end: range.end })
  return out
}
