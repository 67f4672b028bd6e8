/**
 * Events of the `slot-{accountId}-{start}` stream: which booking holds one start time of an account's
 * calendar. One stream per slot start, so two bookings of one slot race on one append and one wins, on
 * any node, before either writes to the calendar.
 */
import type { DomainEvent } from '../shared/decider.ts'
import { printable, type EventSummaries } from '../shared/printable.ts'

export type SlotClaimed = DomainEvent<
  'SlotClaimed',
  { accountId: string; start: string; end: string; bookingId: string; appointmentTypeId: string; calendarId: string; claimedAt: string }
>
/** The booking's event is in the calendar under `eventUid` (written now, or found from an earlier attempt). */
export type SlotEventWritten = DomainEvent<
  'SlotEventWritten',
  { accountId: string; start: string; bookingId: string; eventUid: string; etag: string | null; alreadyThere: boolean; writtenAt: string }
>
/** The slot is free again: it was not open after all, the calendar refused the write, or the booking was cancelled or moved. */
export type SlotReleased = DomainEvent<'SlotReleased', { accountId: string; start: string; bookingId: string; reason: SlotReleaseReason; releasedAt: string }>

export type SlotReleaseReason = 'unavailable' | 'calendar_refused' | 'cancelled' | 'rescheduled'

export type SlotClaimEvent = SlotClaimed | SlotEventWritten | SlotReleased

/** The slot's stream: the account and the slot's start as a UTC instant, so one start is one stream whatever offset it came in. */
export function slotClaimStream(accountId: string, start: string): string {
  return `slot-${accountId}-${new Date(start).toISOString()}`
}

export const SLOT_CLAIM_SUMMARIES: EventSummaries<SlotClaimEvent> = {
  SlotClaimed: (d) => `slot ${printable(d.start)} claimed by booking ${printable(d.bookingId)}`,
  SlotEventWritten: (d) => `booking ${printable(d.bookingId)} ${d.alreadyThere ? 'found in' : 'written to'} the calendar as ${printable(d.eventUid)}`,
  SlotReleased: (d) => `slot ${printable(d.start)} released by booking ${printable(d.bookingId)} (${printable(d.reason)})`,
}
