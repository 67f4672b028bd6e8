/**
 * One slot, one booking: a claim by another booking while the slot is held is refused with `slot_taken`
 * and changes nothing; the holder's own claim again is no change (a retry after a crash goes on to the
 * calendar write with the same event UID). A release frees the slot for the next booking.
 */
import { DomainError, type Decider } from '../shared/decider.ts'
import type { SlotClaimEvent, SlotReleaseReason } from './slot-claim.events.ts'

export type SlotClaimCommand =
  | { type: 'ClaimSlot'; accountId: string; start: string; end: string; bookingId: string; appointmentTypeId: string; calendarId: string }
  | { type: 'RecordSlotEvent'; accountId: string; start: string; bookingId: string; eventUid: string; etag: string | null; alreadyThere: boolean }
  | { type: 'ReleaseSlot'; accountId: string; start: string; bookingId: string; reason: SlotReleaseReason }

export interface SlotClaimState {
  /** The booking holding the slot; null when it is free. */
  readonly bookingId: string | null
  /** The calendar event's UID once written; null before. */
  readonly eventUid: string | null
  /** The calendar's version of the event as last written (its ETag), for a later update under it. */
  readonly etag?: string | null
}

/** The event UID a booking's calendar event carries: the same on every attempt, so a retry finds it. */
export function bookingEventUid(bookingId: string): string {
  return `leadline-${bookingId}`
}

export const slotClaimDecider: Decider<SlotClaimCommand, SlotClaimEvent, SlotClaimState> = {
  initialState: () => ({ bookingId: null, eventUid: null }),

  evolve(state, event) {
    switch (event.type) {
      case 'SlotClaimed':
        return { bookingId: event.data.bookingId, eventUid: null }
      case 'SlotEventWritten':
        return event.data.bookingId === state.bookingId ? { ...state, eventUid: event.data.eventUid, etag: event.data.etag } : state
      case 'SlotReleased':
        return event.data.bookingId === state.bookingId ? { bookingId: null, eventUid: null } : state
    }
  },

  decide(command, state, now) {
    const at = now.toISOString()
    switch (command.type) {
      case 'ClaimSlot': {
        if (state.bookingId === command.bookingId) return []
        if (state.bookingId !== null) throw new DomainError('slot_taken', `the slot at ${command.start} was just booked by someone else: offer the next one`, { start: command.start })
        const { accountId, start, end, bookingId, appointmentTypeId, calendarId } = command
        return [{ type: 'SlotClaimed', data: { accountId, start, end, bookingId, appointmentTypeId, calendarId, claimedAt: at } }]
      }
      case 'RecordSlotEvent': {
        if (state.bookingId !== command.bookingId) throw new DomainError('slot_not_held', `booking ${command.bookingId} does not hold the slot at ${command.start}`)
        // Found again by a retry: already recorded. Written anew (a move): its new ETag is recorded.
        if (state.eventUid === command.eventUid && (command.alreadyThere || (state.etag ?? null) === command.etag)) return []
        const { accountId, start, bookingId, eventUid, etag, alreadyThere } = command
        return [{ type: 'SlotEventWritten', data: { accountId, start, bookingId, eventUid, etag, alreadyThere, writtenAt: at } }]
      }
      case 'ReleaseSlot': {
        if (state.bookingId !== command.bookingId) return []
        const { accountId, start, bookingId, reason } = command
        return [{ type: 'SlotReleased', data: { accountId, start, bookingId, reason, releasedAt: at } }]
      }
    }
  },
}
