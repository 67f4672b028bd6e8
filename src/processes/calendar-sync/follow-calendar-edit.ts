/**
 * One booked appointment against its calendar event: moved there → the lead's appointment moves `by:
 * calendar` (the new slot and day claimed, the old ones given back); deleted there → cancelled `by:
 * calendar`, slot and day given back. The claims change first and the lead's record last, each step a
 * no-op when repeated, so a crash anywhere is mended by the next look, and two nodes record it once.
 */
import type { AccountState } from '../../domain/account/account.decider.ts'
import { slotClaimDecider } from '../../domain/appointments/slot-claim.decider.ts'
import { slotClaimStream } from '../../domain/appointments/slot-claim.events.ts'
import { calendarSyncDecider } from '../../domain/calendar-sync/calendar-sync.decider.ts'
import { calendarSyncStream, type CalendarEditConflictKind } from '../../domain/calendar-sync/calendar-sync.events.ts'
import type { Actor, RecordedEvent } from '../../domain/event.ts'
import { leadDecider } from '../../domain/lead/lead.decider.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import type { CommandHandler } from '../../eventstore/command-handler.ts'
import type { CalendarConnection, CalendarEventTimes } from '../../integrations/calendar/calendar.port.ts'
import { bookingClaims } from '../../commands/book-appointment.command.ts'
import type { WatchedAppointment } from '../../../projections/calendar-sync/calendar-sync.queries.ts'

/** Why an appointment deleted in the calendar was cancelled (on the lead's `AppointmentCancelled`). */
export const DELETED_IN_CALENDAR = 'deleted in the calendar'

export const CALENDAR_SYNC_ACTOR: Actor = { kind: 'process', id: 'calendar-sync' }

export type FollowOutcome =
  /** The event is where the lead's appointment says: nothing to do. */
  | 'unchanged'
  | 'moved'
  | 'cancelled'
  /** Leadline itself is moving or cancelling it right now (its claims say so): look again later. */
  | 'in_flight'

export interface FollowDeps {
  readonly commands: CommandHandler
  readonly calendar: CalendarConnection
  readonly clock: () => Date
}

/**
 * How long a claim made by Leadline's own move or cancel is taken for that work still under way; older,
 * the work died half-way (a crash, a timeout never retried) and the calendar's version is followed.
 */
export const SETTLE_MS = 5 * 60_000

/**
 * Follows `appointment`'s event. `etag`: the version the calendar listed for it, when it did; equal to
 * the one Leadline last wrote, the event is as Leadline left it and is not read again.
 */
export async function followCalendarEdit(deps: FollowDeps, account: AccountState, appointment: WatchedAppointment, etag: string | null): Promise<FollowOutcome> {
  const { commands } = deps
  const lead = (await commands.load(appointment.stream, leadDecider)).state
  const record = lead.appointments.appointments[appointment.appointmentId]
  if (record === undefined || record.status !== 'booked') return 'unchanged'
  const zone = account.settings.timeZone
  const type = account.appointmentTypes.get(record.appointmentTypeId)
  const input = {
    accountId: account.accountId, accountZone: zone, bookingId: record.appointmentId, actor: CALENDAR_SYNC_ACTOR,
    type: { id: record.appointmentTypeId, calendarId: record.calendarId, maxPerDay: type?.maxPerDay ?? null },
  }
  const held = await slotHistory(commands, account.accountId, record.start, record.appointmentId)
  if (etag !== null && held.bookingId === record.appointmentId && held.etag === etag) return 'unchanged'

  const event = await deps.calendar.getEvent(record.calendarId, record.eventUid, zone)
  const old = bookingClaims({ handler: commands }, input, record.start)
  if (event === null) {
    // Leadline's own cancel deletes the event, gives the slot back, then records: a slot just given back is that cancel at work.
    if (held.bookingId !== record.appointmentId && held.lastOwn?.type === 'SlotReleased' && byLeadline(held.lastOwn, deps.clock())) return 'in_flight'
    await old.release('cancelled')
    // The account's settings, as cancel_appointment gives them: a lead whose appointment is off goes back on follow-up.
    await commands.handle(appointment.stream, leadDecider, { type: 'RecordAppointmentCancelled', appointmentId: record.appointmentId, by: 'calendar', reason: DELETED_IN_CALENDAR, settings: account.settings }, context(record.appointmentId))
    return 'cancelled'
  }
  if (sameInstant(event.start, record.start) && sameInstant(event.end, record.end)) {
    // Remember the version now in the calendar, so the next look at an unchanged event reads nothing.
    if (held.bookingId === record.appointmentId && event.etag !== null && held.etag !== event.etag) await old.recordEvent({ uid: record.eventUid, etag: event.etag }, false)
    return 'unchanged'
  }
  return move(deps, appointment, record.start, input, event)
}

async function move(
  deps: FollowDeps,
  appointment: WatchedAppointment,
  from: string,
  input: Parameters<typeof bookingClaims>[1],
  event: CalendarEventTimes,
): Promise<FollowOutcome> {
  const { commands } = deps
  const start = new Date(event.start).toISOString()
  const end = new Date(event.end).toISOString()
  const fresh = bookingClaims({ handler: commands }, input, start)
  const old = bookingClaims({ handler: commands }, input, from)
  // Leadline's own move claims the new slot, writes the calendar, then records the lead: a slot it just claimed is that move at work.
  const heldNew = await slotHistory(commands, input.accountId, start, input.bookingId)
  if (heldNew.bookingId === input.bookingId && heldNew.lastOwn?.type === 'SlotClaimed' && byLeadline(heldNew.lastOwn, deps.clock())) return 'in_flight'

  let holdsNew = true
  try {
    await fresh.claimSlot(end)
  } catch (error) {
    if (!(error instanceof DomainError && error.code === 'slot_taken')) throw error
    // The calendar is the owner's truth: the move stands, and the double booking is flagged for the owner.
    holdsNew = false
    await flag(commands, input.accountId, input.bookingId, start, 'slot_taken', (await slotHistory(commands, input.accountId, start, input.bookingId)).bookingId)
  }
  if (fresh.day !== old.day) {
    try {
      await fresh.claimDay(async () => {})
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'day_full')) throw error
      // Counted on the day all the same (so the day's limit stays true), and flagged.
      await bookingClaims({ handler: commands }, { ...input, type: { ...input.type, maxPerDay: null } }, start).claimDay(async () => {})
      await flag(commands, input.accountId, input.bookingId, start, 'day_full', null)
    }
  }
  if (holdsNew) await fresh.recordEvent({ uid: appointment.eventUid, etag: event.etag }, false)
  await old.releaseSlot('rescheduled')
  if (fresh.day !== old.day) await old.releaseDay('rescheduled')
  await commands.handle(appointment.stream, leadDecider, { type: 'RecordAppointmentRescheduled', appointmentId: input.bookingId, start, end, by: 'calendar' }, context(input.bookingId))
  return 'moved'
}

interface SlotHistory {
  /** Who holds the slot now, with the event version it recorded. */
  readonly bookingId: string | null
  readonly etag: string | null
  /** The last claim or release `bookingId` made of this slot. */
  readonly lastOwn: RecordedEvent | null
}

async function slotHistory(commands: CommandHandler, accountId: string, start: string, bookingId: string): Promise<SlotHistory> {
  const { state, events } = await commands.load(slotClaimStream(accountId, start), slotClaimDecider)
  const own = events.filter((e) => (e.type === 'SlotClaimed' || e.type === 'SlotReleased') && (e.data as { bookingId?: unknown }).bookingId === bookingId)
  return { bookingId: state.bookingId, etag: state.etag ?? null, lastOwn: own.at(-1) ?? null }
}

/** Made by Leadline's own booking commands (not this sync) and recently enough to be still under way. */
function byLeadline(event: RecordedEvent, now: Date): boolean {
  const actor = event.metadata.actor
  const bySync = actor.kind === CALENDAR_SYNC_ACTOR.kind && actor.id === CALENDAR_SYNC_ACTOR.id
  return !bySync && now.getTime() - Date.parse(event.recordedAt) < SETTLE_MS
}

async function flag(commands: CommandHandler, accountId: string, appointmentId: string, start: string, kind: CalendarEditConflictKind, otherBookingId: string | null): Promise<void> {
  await commands.handle(calendarSyncStream(accountId), calendarSyncDecider, { type: 'FlagEditConflict', accountId, appointmentId, start, kind, otherBookingId }, context(appointmentId))
}

function context(appointmentId: string) {
  return { actor: CALENDAR_SYNC_ACTOR, correlationId: `booking-${appointmentId}` }
}

function sameInstant(a: string, b: string): boolean {
  return Date.parse(a) === Date.parse(b)
}
