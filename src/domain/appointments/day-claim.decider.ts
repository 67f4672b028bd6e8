/**
 * At most N of one appointment type on one day: a booking takes a place on the day's stream before it
 * writes to the calendar, refused `day_full` when the type's limit is reached, and gives it back when
 * it is cancelled, moved to another day, or never written. The holder's claim again is no change (a retry).
 */
import { DomainError, type Decider } from '../shared/decider.ts'
import type { DayClaimEvent, DayPlaceReleaseReason } from './day-claim.events.ts'

export type DayClaimCommand =
  | { type: 'ClaimDayPlace'; accountId: string; appointmentTypeId: string; day: string; bookingId: string; maxPerDay: number | null }
  | { type: 'ReleaseDayPlace'; accountId: string; appointmentTypeId: string; day: string; bookingId: string; reason: DayPlaceReleaseReason }

export interface DayClaimState {
  /** The bookings holding a place on the day. */
  readonly held: readonly string[]
}

export const dayClaimDecider: Decider<DayClaimCommand, DayClaimEvent, DayClaimState> = {
  initialState: () => ({ held: [] }),

  evolve(state, event) {
    switch (event.type) {
      case 'DayPlaceClaimed':
        return state.held.includes(event.data.bookingId) ? state : { held: [...state.held, event.data.bookingId] }
      case 'DayPlaceReleased':
        return { held: state.held.filter((id) => id !== event.data.bookingId) }
    }
  },

  decide(command, state, now) {
    const at = now.toISOString()
    const { accountId, appointmentTypeId, day, bookingId } = command
    switch (command.type) {
      case 'ClaimDayPlace': {
        if (state.held.includes(bookingId)) return []
        if (command.maxPerDay !== null && state.held.length >= command.maxPerDay) {
          throw new DomainError('day_full', `${day} already has ${state.held.length} of ${appointmentTypeId} (at most ${command.maxPerDay} a day): offer another day`, { day, maxPerDay: command.maxPerDay })
        }
        return [{ type: 'DayPlaceClaimed', data: { accountId, appointmentTypeId, day, bookingId, maxPerDay: command.maxPerDay, claimedAt: at } }]
      }
      case 'ReleaseDayPlace':
        if (!state.held.includes(bookingId)) return []
        return [{ type: 'DayPlaceReleased', data: { accountId, appointmentTypeId, day, bookingId, reason: command.reason, releasedAt: at } }]
    }
  },
}
