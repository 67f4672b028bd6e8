/**
 * The simulated calendar: a clearly labelled in-memory calendar, so `npm start` with no credentials can
 * demo booking and the in-process tests have a calendar. It keeps the port's whole contract (busy times,
 * create by UID once, update under an ETag, delete, changes since a token) and is shared by every
 * connection of one account in this process; nothing reaches a real calendar, and a restart empties it.
 */
import { mergeSpans } from '../../../domain/appointments/intervals.ts'
import {
  CalendarError,
  isSafeEventUid,
  type CalendarChanges,
  type CalendarConnection,
  type CalendarEventDraft,
  type CalendarEventRef,
  type CalendarFailure,
  type CalendarProvider,
  type Interval,
  type SimulatedCalendarCredentials,
} from '../calendar.port.ts'

export const SIMULATED_CALENDAR_ID = 'simulated:primary'
export const SIMULATED_CALENDAR_NAME = 'Simulated calendar (in memory: no real calendar)'

export interface SimulatedEvent {
  readonly uid: string
  readonly start: string
  readonly end: string
  readonly summary: string
  readonly description: string | null
  readonly etag: string
}

type Operation = 'busy' | 'create' | 'update' | 'delete' | 'changes' | 'get'

/**
 * A failure the next call of an operation meets (a test's or a demo's hook, not a mock): `timeout_after_write`
 * applies the change and then reports `unknown_outcome`, as a request whose answer was lost does;
 * `timeout_before_write` reports it having changed nothing; any other kind refuses with that kind.
 */
export type SimulatedFault = 'timeout_after_write' | 'timeout_before_write' | Exclude<CalendarFailure, 'unknown_outcome'>

interface Change {
  readonly seq: number
  readonly uid: string
  readonly removed: boolean
}

/** One account's in-memory calendars: what the port's calls read and write, and the owner's own edits. */
export class SimulatedCalendars {
  private readonly events = new Map<string, Map<string, SimulatedEvent>>([[SIMULATED_CALENDAR_ID, new Map()]])
  private readonly log: Change[] = []
  private seq = 0
  /** Tokens at or below this sequence are no longer honoured. */
  private expiredBelow = -1
  private readonly faults = new Map<Operation, { fault: SimulatedFault; skip: number }[]>()

  /** The next `operation` call (after `afterCalls` that go through) fails as `fault` (queued: call it twice for two failures). */
  failNext(operation: Operation, fault: SimulatedFault, afterCalls = 0): void {
    this.faults.set(operation, [...(this.faults.get(operation) ?? []), { fault, skip: afterCalls }])
  }

  /** The events of a calendar now, by start. */
  list(calendarId: string = SIMULATED_CALENDAR_ID): SimulatedEvent[] {
    return [...this.calendar(calendarId).values()].sort((a, b) => a.start.localeCompare(b.start))
  }

  /** The owner adds an event of their own (it blocks slots like any other). */
  ownerEvent(uid: string, start: string, end: string, summary = 'Busy', calendarId: string = SIMULATED_CALENDAR_ID): SimulatedEvent {
    return this.put(calendarId, { uid, start: iso(start), end: iso(end), summary, description: null })
  }

  /** The owner moves an event in the calendar (its ETag changes). */
  ownerMove(uid: string, start: string, end: string, calendarId: string = SIMULATED_CALENDAR_ID): SimulatedEvent {
    const current = this.calendar(calendarId).get(uid)
    if (current === undefined) throw new CalendarError('not_found', `no event ${uid}`, 404)
    return this.put(calendarId, { ...current, start: iso(start), end: iso(end) })
  }

  /** Forgets the change log, as a server does when it expires old sync tokens: the next `changes` is a full listing. */
  expireTokens(): void {
    this.log.length = 0
    // Tokens issued from now on are above the line.
    this.expiredBelow = this.seq++
  }

  /** The owner deletes an event in the calendar. */
  ownerDelete(uid: string, calendarId: string = SIMULATED_CALENDAR_ID): boolean {
    return this.remove(calendarId, uid)
  }

  /** The port's calls, each through the fault hook first. */
  connection(): CalendarConnection {
    return {
      listCalendars: async () => [...this.events.keys()].map((id) => ({ id, name: id === SIMULATED_CALENDAR_ID ? SIMULATED_CALENDAR_NAME : id, timeZone: null })),
      busy: async (calendarId, range) => this.perform('busy', false, () => this.busy(calendarId, range)),
      createEvent: async (calendarId, draft) =>
        this.perform('create', true, () => {
          checkDraft(draft)
          const existing = this.calendar(calendarId).get(draft.uid)
          if (existing !== undefined) return { outcome: 'already_exists' as const, event: ref(existing) }
          return { outcome: 'created' as const, event: ref(this.put(calendarId, { uid: draft.uid, start: iso(draft.start), end: iso(draft.end), summary: draft.summary, description: draft.description ?? null })) }
        }),
      updateEvent: async (calendarId, draft, etag) =>
        this.perform('update', true, () => {
          checkDraft(draft)
          const existing = this.calendar(calendarId).get(draft.uid)
          if (existing === undefined) throw new CalendarError('not_found', `no event ${draft.uid} in the calendar`, 404)
          if (etag !== undefined && etag !== existing.etag) throw new CalendarError('conflict', `event ${draft.uid} was changed since ${etag}`, 412)
          return ref(this.put(calendarId, { uid: draft.uid, start: iso(draft.start), end: iso(draft.end), summary: draft.summary, description: draft.description ?? null }))
        }),
      deleteEvent: async (calendarId, uid) => this.perform('delete', true, () => (this.remove(calendarId, uid) ? 'deleted' : 'already_gone')),
      changes: async (calendarId, token) => this.perform('changes', false, () => this.changes(calendarId, token)),
      getEvent: async (calendarId, uid) =>
        this.perform('get', false, () => {
          const event = this.calendar(calendarId).get(uid)
          return event === undefined ? null : { uid: event.uid, start: event.start, end: event.end, etag: event.etag }
        }),
    }
  }

  private perform<T>(operation: Operation, writes: boolean, act: () => T): T {
    const queued = this.faults.get(operation)
    const next = queued?.[0]
    let fault: SimulatedFault | undefined
    if (next !== undefined) {
      if (next.skip > 0) next.skip -= 1
      else fault = queued!.shift()!.fault
    }
    if (fault === undefined) return act()
    if (fault === 'timeout_after_write') {
      if (writes) act()
      throw new CalendarError('unknown_outcome', `the simulated calendar timed out (${operation}); the change may have been made`)
    }
    if (fault === 'timeout_before_write') throw new CalendarError('unknown_outcome', `the simulated calendar timed out (${operation}) before acting`)
    throw new CalendarError(fault, `the simulated calendar refused the ${operation} (${fault})`)
  }

  private calendar(calendarId: string): Map<string, SimulatedEvent> {
    const events = this.events.get(calendarId)
    if (events === undefined) throw new CalendarError('not_found', `no simulated calendar ${calendarId}`, 404)
    return events
  }

  private put(calendarId: string, event: Omit<SimulatedEvent, 'etag'>): SimulatedEvent {
    const seq = ++this.seq
    const stored = { ...event, etag: `"sim-${seq}"` }
    this.calendar(calendarId).set(event.uid, stored)
    this.log.push({ seq, uid: event.uid, removed: false })
    return stored
  }

  private remove(calendarId: string, uid: string): boolean {
    if (!this.calendar(calendarId).delete(uid)) return false
    this.log.push({ seq: ++this.seq, uid, removed: true })
    return true
  }

  private busy(calendarId: string, range: Interval): Interval[] {
    const from = Date.parse(range.start)
    const to = Date.parse(range.end)
    const spans = [...this.calendar(calendarId).values()]
      .map((e) => ({ start: Date.parse(e.start), end: Date.parse(e.end) }))
      .filter((e) => e.end > from && e.start < to)
    return mergeSpans(spans).map((s) => ({ start: new Date(s.start).toISOString(), end: new Date(s.end).toISOString() }))
  }

  private changes(calendarId: string, token: string | null): CalendarChanges {
    const events = this.calendar(calendarId)
    const since = token === null ? null : /^sim-(\d+)$/.exec(token)?.[1]
    const next = `sim-${this.seq}`
    if (since === undefined || since === null || Number(since) > this.seq || Number(since) <= this.expiredBelow) {
      return { token: next, full: true, changed: [...events.values()].map(ref), removed: [] }
    }
    const latest = new Map<string, boolean>()
    for (const change of this.log) if (change.seq > Number(since)) latest.set(change.uid, change.removed)
    const changed: CalendarEventRef[] = []
    const removed: string[] = []
    for (const [uid, gone] of latest) {
      const event = events.get(uid)
      if (gone || event === undefined) removed.push(uid)
      else changed.push(ref(event))
    }
    return { token: next, full: false, changed, removed }
  }
}

function ref(event: SimulatedEvent): CalendarEventRef {
  return { uid: event.uid, etag: event.etag }
}

function iso(text: string): string {
  const ms = Date.parse(text)
  if (Number.isNaN(ms)) throw new CalendarError('rejected', `not an instant: ${JSON.stringify(text)}`)
  return new Date(ms).toISOString()
}

function checkDraft(draft: CalendarEventDraft): void {
  if (!isSafeEventUid(draft.uid)) throw new CalendarError('rejected', `an event UID must be letters, digits, '.', '_', '-' or '@': ${JSON.stringify(draft.uid)}`)
  if (!(Date.parse(draft.end) > Date.parse(draft.start))) throw new CalendarError('rejected', 'an event ends after it starts')
}

// One account's calendars are shared by every connection in the process, as a real calendar is.
const spaces = new Map<string, SimulatedCalendars>()

/** The in-memory calendars of `owner` (an account id), made on first use. */
export function simulatedCalendarsOf(owner: string): SimulatedCalendars {
  let space = spaces.get(owner)
  if (space === undefined) spaces.set(owner, (space = new SimulatedCalendars()))
  return space
}

export function createSimulatedCalendar(): CalendarProvider<SimulatedCalendarCredentials> {
  return {
    name: 'simulated',
    async connect(credentials) {
      if (credentials.owner === undefined || credentials.owner === '') throw new CalendarError('rejected', 'a simulated calendar belongs to an account')
      return simulatedCalendarsOf(credentials.owner).connection()
    },
  }
}
