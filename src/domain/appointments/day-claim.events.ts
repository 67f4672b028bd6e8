/**
 * Events of the `apptday-{accountId}-{typeId}-{day}` stream: the places one appointment type has on one
 * day of the account's calendar (`day`: YYYY-MM-DD in the account's zone). Every booking takes a place
 * before the calendar is written, so `maxPerDay` holds exactly: two bookings racing for the last place
 * race on one append, and one wins.
 */
import type { DomainEvent } from '../shared/decider.ts'
import { printable, type EventSummaries } from '../shared/printable.ts'

export type DayPlaceReleaseReason = 'unavailable' | 'calendar_refused' | 'cancelled' | 'rescheduled'

export type DayPlaceClaimed = DomainEvent<
  'DayPlaceClaimed',
  { accountId: string; appointmentTypeId: string; day: string; bookingId: string; maxPerDay: number | null; claimedAt: string }
>
export type DayPlaceReleased = DomainEvent<
  'DayPlaceReleased',
  { accountId: string; appointmentTypeId: string; day: string; bookingId: string; reason: DayPlaceReleaseReason; releasedAt: string }
>

export type DayClaimEvent = DayPlaceClaimed | DayPlaceReleased

/** The day's stream for one appointment type of an account. */
export function dayClaimStream(accountId: string, appointmentTypeId: string, day: string): string {
  return `apptday-${accountId}-${appointmentTypeId}-${day}`
}

export const DAY_CLAIM_SUMMARIES: EventSummaries<DayClaimEvent> = {
  DayPlaceClaimed: (d) => `a place on ${printable(d.day)} for ${printable(d.appointmentTypeId)} taken by booking ${printable(d.bookingId)}${d.maxPerDay === null ? '' : ` (at most ${d.maxPerDay} a day)`}`,
  DayPlaceReleased: (d) => `the place on ${printable(d.day)} for ${printable(d.appointmentTypeId)} given back by booking ${printable(d.bookingId)} (${printable(d.reason)})`,
}
