/**
 * The calendar sync's record for one account: each calendar's token, the failure the owner should see,
 * and the conflicts edits in the calendar made. Every command is a no-op when it would repeat what is
 * recorded, so two nodes syncing at once, or one syncing again after a crash, record each thing once.
 */
import type { Decider } from '../shared/decider.ts'
import type { CalendarEditConflictKind, CalendarSyncEvent } from './calendar-sync.events.ts'

export type CalendarSyncCommand =
  | { type: 'SaveSyncToken'; accountId: string; connectedAt: string; calendarId: string; token: string }
  | { type: 'RecordSyncFailure'; accountId: string; kind: string; message: string }
  | { type: 'RecordSyncSuccess'; accountId: string }
  | { type: 'FlagEditConflict'; accountId: string; appointmentId: string; start: string; kind: CalendarEditConflictKind; otherBookingId: string | null }

export interface SavedToken {
  readonly connectedAt: string
  readonly token: string
  readonly savedAt: string
}

export interface CalendarSyncConflict {
  readonly appointmentId: string
  readonly start: string
  readonly kind: CalendarEditConflictKind
  readonly otherBookingId: string | null
  readonly at: string
}

export interface CalendarSyncState {
  readonly tokens: Readonly<Record<string, SavedToken>>
  /** The last failure while no sync has succeeded since; null when the last sync worked. */
  readonly failing: { readonly kind: string; readonly message: string; readonly at: string } | null
  /** When a sync last succeeded as far as the log tells (a token saved, a recovery). */
  readonly lastSyncAt: string | null
  readonly conflicts: readonly CalendarSyncConflict[]
}

export const calendarSyncDecider: Decider<CalendarSyncCommand, CalendarSyncEvent, CalendarSyncState> = {
  initialState: () => ({ tokens: {}, failing: null, lastSyncAt: null, conflicts: [] }),

  evolve(state, event) {
    switch (event.type) {
      case 'CalendarSyncTokenSaved':
        return { ...state, tokens: { ...state.tokens, [event.data.calendarId]: { connectedAt: event.data.connectedAt, token: event.data.token, savedAt: event.data.savedAt } }, lastSyncAt: event.data.savedAt }
      case 'CalendarSyncFailed':
        return { ...state, failing: { kind: event.data.kind, message: event.data.message, at: event.data.failedAt } }
      case 'CalendarSyncRecovered':
        return { ...state, failing: null, lastSyncAt: event.data.recoveredAt }
      case 'CalendarEditConflict': {
        const { appointmentId, start, kind, otherBookingId, at } = event.data
        return { ...state, conflicts: [...state.conflicts, { appointmentId, start, kind, otherBookingId, at }] }
      }
    }
  },

  decide(command, state, now) {
    const at = now.toISOString()
    const { accountId } = command
    switch (command.type) {
      case 'SaveSyncToken': {
        const saved = state.tokens[command.calendarId]
        if (saved?.token === command.token && saved.connectedAt === command.connectedAt) return []
        const { connectedAt, calendarId, token } = command
        return [{ type: 'CalendarSyncTokenSaved', data: { accountId, connectedAt, calendarId, token, savedAt: at } }]
      }
      case 'RecordSyncFailure':
        if (state.failing?.kind === command.kind && state.failing.message === command.message) return []
        return [{ type: 'CalendarSyncFailed', data: { accountId, kind: command.kind, message: command.message, failedAt: at } }]
      case 'RecordSyncSuccess':
        return state.failing === null ? [] : [{ type: 'CalendarSyncRecovered', data: { accountId, recoveredAt: at } }]
      case 'FlagEditConflict': {
        const { appointmentId, start, kind, otherBookingId } = command
        if (state.conflicts.some((c) => c.appointmentId === appointmentId && c.start === start && c.kind === kind)) return []
        return [{ type: 'CalendarEditConflict', data: { accountId, appointmentId, start, kind, otherBookingId, at } }]
      }
    }
  },
}
