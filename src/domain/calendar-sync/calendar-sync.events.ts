/**
 * Events of the `calsync-{accountId}` stream: where the account's calendar sync stands. The token each
 * calendar's last look ended at (so a restart asks only for what changed since), whether the calendar
 * is refusing us (shown to the owner until a sync succeeds again), and a move made in the calendar onto
 * a time another booking already holds (recorded on the lead all the same: the calendar is the owner's
 * truth; flagged here for the owner to sort out).
 */
import type { DomainEvent } from '../shared/decider.ts'
import { printable, type EventSummaries } from '../shared/printable.ts'

/** `connectedAt` names the connection the token belongs to: a calendar connected again starts with no token. */
export type CalendarSyncTokenSaved = DomainEvent<
  'CalendarSyncTokenSaved',
  { accountId: string; connectedAt: string; calendarId: string; token: string; savedAt: string }
>
/** The calendar refused or did not answer a sync: `kind` is the port's failure kind (`unauthorized` when the password changed). */
export type CalendarSyncFailed = DomainEvent<'CalendarSyncFailed', { accountId: string; kind: string; message: string; failedAt: string }>
/** A sync succeeded after failures. */
export type CalendarSyncRecovered = DomainEvent<'CalendarSyncRecovered', { accountId: string; recoveredAt: string }>

export type CalendarEditConflictKind =
  /** Another booking holds the slot the owner moved this appointment to. */
  | 'slot_taken'
  /** The new day already had the appointment type's most bookings a day. */
  | 'day_full'

/** The owner moved an appointment in the calendar onto a time Leadline had given to another booking (or past the day's limit). */
export type CalendarEditConflict = DomainEvent<
  'CalendarEditConflict',
  { accountId: string; appointmentId: string; start: string; kind: CalendarEditConflictKind; otherBookingId: string | null; at: string }
>

export type CalendarSyncEvent = CalendarSyncTokenSaved | CalendarSyncFailed | CalendarSyncRecovered | CalendarEditConflict

/** The account's calendar sync stream. */
export function calendarSyncStream(accountId: string): string {
  return `calsync-${accountId}`
}

export const CALENDAR_SYNC_SUMMARIES: EventSummaries<CalendarSyncEvent> = {
  // The token itself is not shown: it is the server's opaque cursor (Cal.com's is a long snapshot).
  CalendarSyncTokenSaved: (d) => `calendar ${printable(d.calendarId)} read up to a new sync token`,
  CalendarSyncFailed: (d) => `calendar sync failed (${printable(d.kind)}): ${printable(d.message, 120)}`,
  CalendarSyncRecovered: () => 'calendar sync works again',
  CalendarEditConflict: (d) =>
    `appointment ${printable(d.appointmentId)} moved in the calendar to ${printable(d.start)}, ${d.kind === 'slot_taken' ? `a time booking ${printable(d.otherBookingId)} holds` : 'a day already at its limit'}`,
}
