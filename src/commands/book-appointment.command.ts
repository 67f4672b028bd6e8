/**
 * Book, move and call off an appointment in the calendar: claim the slot and a place on its day on the
 * log, write the calendar event under the booking's stable UID, record it. Two bookings of one slot:
 * one claim wins, the other is refused `slot_taken` before it touches the calendar; two bookings of the
 * day's last place: one wins, the other is `day_full`. A crash or timeout after the claim is retried
 * with the same booking id: the claims are already ours and the calendar finds the event by its UID, so
 * there is never a second one. An outcome the calendar cannot tell is tried once more, then reported,
 * keeping the claims.
 */
import { bookingEventUid, slotClaimDecider } from '../domain/appointments/slot-claim.decider.ts'
import { slotClaimStream, type SlotReleaseReason } from '../domain/appointments/slot-claim.events.ts'
import { dayClaimDecider } from '../domain/appointments/day-claim.decider.ts'
import { dayClaimStream } from '../domain/appointments/day-claim.events.ts'
import type { AppointmentType } from '../domain/appointments/appointment-type.ts'
import { dayOf, openSlots } from '../domain/appointments/open-slots.ts'
import { mergeSpans } from '../domain/appointments/intervals.ts'
import type { Actor } from '../domain/event.ts'
import { DomainError } from '../domain/shared/decider.ts'
import type { CommandHandler } from '../eventstore/command-handler.ts'
import { CalendarError, type CalendarConnection, type CalendarEventDraft, type CalendarEventRef, type Interval } from '../integrations/calendar/calendar.port.ts'

export interface BookAppointmentInput {
  readonly accountId: string
  /** The account's zone and business hours, which the type's hours default to. */
  readonly accountZone: string
  readonly accountHours: string
  /** Chosen by the caller once per booking (an idempotency key's booking): the same id on every retry. */
  readonly bookingId: string
  readonly type: AppointmentType
  /** The slot's start, an ISO instant (one `list_open_slots` offered). */
  readonly start: string
  /** What the event says about the lead: name, phone, where they came from, the console link. Never a transcript. */
  readonly lead: { readonly name: string; readonly phone: string; readonly source: string | null; readonly link: string | null; readonly zone: string }
  readonly actor: Actor
}

export interface BookedAppointment {
  readonly bookingId: string
  readonly start: string
  readonly end: string
  readonly eventUid: string
  /** True when an earlier attempt of this booking had already written the event. */
  readonly alreadyThere: boolean
}

export interface BookAppointmentDeps {
  readonly handler: CommandHandler
  readonly calendar: CalendarConnection
  readonly clock: () => Date
}

const BOOKING_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/
/** Failures after which the calendar holds nothing: the claims are released for the next booking. */
const NOTHING_WRITTEN = new Set(['unauthorized', 'not_found', 'conflict', 'rejected', 'unreachable'])

export async function bookAppointment(deps: BookAppointmentDeps, input: BookAppointmentInput): Promise<BookedAppointment> {
  const { accountId, bookingId, type } = input
  if (!BOOKING_ID.test(bookingId)) throw new DomainError('invalid_booking_id', 'a booking id is letters, digits, _ and -, up to 64')
  const { start, end } = spanOf(input.start, type)
  const claims = bookingClaims(deps, input, start)

  // Claim first, so a second booking of the slot is refused `slot_taken` whatever the calendar says yet.
  const claimed = await claims.claimSlot(end)
  if (claimed && !(await isOpen(deps, input, start, end, null))) {
    await claims.releaseSlot('unavailable')
    throw new DomainError('slot_unavailable', `${start} is not an open slot of ${type.name}`, { start })
  }
  await claims.claimDay(() => claims.releaseSlot('unavailable'))

  const eventUid = bookingEventUid(bookingId)
  let written
  try {
    written = await once(() => deps.calendar.createEvent(type.calendarId, { uid: eventUid, start, end, ...eventText(input) }))
  } catch (error) {
    if (error instanceof CalendarError && NOTHING_WRITTEN.has(error.kind)) await claims.release('calendar_refused')
    // unknown_outcome keeps the claims: the retry with this booking id finds whatever landed.
    throw error
  }
  const alreadyThere = written.outcome === 'already_exists'
  await claims.recordEvent(written.event, alreadyThere)
  return { bookingId, start, end, eventUid, alreadyThere }
}

export interface MoveAppointmentInput extends BookAppointmentInput {
  /** Where the booking is now: its slot's start and end. */
  readonly from: Interval
}

/**
 * Moves a booking: claims the new slot (and day), updates the event under the same UID (under its
 * ETag, so an edit made in the calendar meanwhile is `conflict`, not overwritten), then releases the
 * old slot (and day). A retry of a move whose claim was already ours updates without the ETag: the
 * first attempt may have landed and changed it.
 */
export async function moveAppointment(deps: BookAppointmentDeps, input: MoveAppointmentInput): Promise<BookedAppointment & { etag: string | null }> {
  const { type } = input
  const { start, end } = spanOf(input.start, type)
  const claims = bookingClaims(deps, input, start)
  const old = bookingClaims(deps, input, input.from.start)
  const retry = !(await claims.claimSlot(end))
  if (!retry && !(await isOpen(deps, input, start, end, input.from))) {
    await claims.releaseSlot('unavailable')
    throw new DomainError('slot_unavailable', `${start} is not an open slot of ${type.name}`, { start })
  }
  const sameDay = claims.day === old.day
  if (!sameDay) await claims.claimDay(() => claims.releaseSlot('unavailable'))

  const eventUid = bookingEventUid(input.bookingId)
  const etag = retry ? undefined : ((await old.etag()) ?? undefined)
  let updated: CalendarEventRef
  try {
    updated = await once(() => deps.calendar.updateEvent(type.calendarId, { uid: eventUid, start, end, ...eventText(input) }, etag))
  } catch (error) {
    if (error instanceof CalendarError && NOTHING_WRITTEN.has(error.kind)) {
      await claims.releaseSlot('calendar_refused')
      if (!sameDay) await claims.releaseDay('calendar_refused')
    }
    throw error
  }
  await claims.recordEvent(updated, false)
  await old.releaseSlot('rescheduled')
  if (!sameDay) await old.releaseDay('rescheduled')
  return { bookingId: input.bookingId, start, end, eventUid, alreadyThere: retry, etag: updated.etag }
}

export interface CancelAppointmentInput {
  readonly accountId: string
  readonly accountZone: string
  readonly bookingId: string
  readonly type: Pick<AppointmentType, 'id' | 'calendarId'>
  readonly start: string
  readonly actor: Actor
}

/**
 * Calls a booking off: deletes its event (one already gone is fine), then gives back its slot and day.
 * `calendar` null: the event is in a calendar the account no longer has connected, nothing to delete there.
 */
export async function cancelAppointment(deps: Omit<BookAppointmentDeps, 'calendar'> & { readonly calendar: CalendarConnection | null }, input: CancelAppointmentInput): Promise<'deleted' | 'already_gone' | 'other_calendar'> {
  const { calendar } = deps
  const outcome = calendar === null ? 'other_calendar' : await once(() => calendar.deleteEvent(input.type.calendarId, bookingEventUid(input.bookingId)))
  await bookingClaims(deps, input, input.start).release('cancelled')
  return outcome
}

/** The claims of one booking at one start: its slot's stream and its day's (the calendar sync follows edits with them too). */
export function bookingClaims(deps: Pick<BookAppointmentDeps, 'handler'>, input: Pick<BookAppointmentInput, 'accountId' | 'accountZone' | 'bookingId' | 'actor'> & { type: Pick<AppointmentType, 'id' | 'calendarId'> & Partial<Pick<AppointmentType, 'maxPerDay'>> }, start: string) {
  const { accountId, bookingId, type } = input
  const slot = slotClaimStream(accountId, start)
  const day = dayOf(Date.parse(start), input.accountZone)
  const dayStream = dayClaimStream(accountId, type.id, day)
  const context = { actor: input.actor, correlationId: `booking-${bookingId}` }
  const releaseSlot = async (reason: SlotReleaseReason) => {
    await deps.handler.handle(slot, slotClaimDecider, { type: 'ReleaseSlot', accountId, start, bookingId, reason }, context)
  }
  const releaseDay = async (reason: SlotReleaseReason) => {
    await deps.handler.handle(dayStream, dayClaimDecider, { type: 'ReleaseDayPlace', accountId, appointmentTypeId: type.id, day, bookingId, reason }, context)
  }
  return {
    day,
    /** True when this call made the claim (false: the booking held it already, a retry). */
    async claimSlot(end: string): Promise<boolean> {
      const claim = await deps.handler.handle(slot, slotClaimDecider, { type: 'ClaimSlot', accountId, start, end, bookingId, appointmentTypeId: type.id, calendarId: type.calendarId }, context)
      return claim.newEvents.length > 0
    },
    /** Takes a place on the day; a full day undoes what came before (`undo`) and is refused `day_full`. */
    async claimDay(undo: () => Promise<void>): Promise<void> {
      try {
        await deps.handler.handle(dayStream, dayClaimDecider, { type: 'ClaimDayPlace', accountId, appointmentTypeId: type.id, day, bookingId, maxPerDay: type.maxPerDay ?? null }, context)
      } catch (error) {
        if (error instanceof DomainError && error.code === 'day_full') await undo()
        throw error
      }
    },
    async recordEvent(event: CalendarEventRef, alreadyThere: boolean): Promise<void> {
      await deps.handler.handle(slot, slotClaimDecider, { type: 'RecordSlotEvent', accountId, start, bookingId, eventUid: event.uid, etag: event.etag, alreadyThere }, context)
    },
    async etag(): Promise<string | null> {
      const { state } = await deps.handler.load(slot, slotClaimDecider)
      return state.bookingId === bookingId ? (state.etag ?? null) : null
    },
    releaseSlot,
    releaseDay,
    async release(reason: SlotReleaseReason): Promise<void> {
      await releaseSlot(reason)
      await releaseDay(reason)
    },
  }
}

function spanOf(text: string, type: Pick<AppointmentType, 'durationMinutes'>): Interval {
  const startMs = Date.parse(text)
  if (Number.isNaN(startMs) || !/(Z|[+-]\d{2}:?\d{2})$/i.test(text)) throw new DomainError('invalid_range', `start must be an ISO 8601 instant with a zone or offset: ${JSON.stringify(text)}`)
  return { start: new Date(startMs).toISOString(), end: new Date(startMs + type.durationMinutes * 60_000).toISOString() }
}

/** The call, and once more if its outcome could not be known (the UID makes a second try safe). */
async function once<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    if (error instanceof CalendarError && error.kind === 'unknown_outcome') return call()
    throw error
  }
}

/**
 * Whether `start` is an open slot now: inside the type's hours, not too soon, not busy in the calendar
 * (buffers included). `own`: the booking's current time when it is being moved, not counted as busy.
 */
async function isOpen(deps: BookAppointmentDeps, input: BookAppointmentInput, start: string, end: string, own: Interval | null): Promise<boolean> {
  const buffer = input.type.bufferMinutes * 60_000
  const around = { start: new Date(Date.parse(start) - buffer).toISOString(), end: new Date(Date.parse(end) + buffer).toISOString() }
  const busy = withoutSpan(await deps.calendar.busy(input.type.calendarId, around, input.accountZone), own)
  const open = openSlots(
    { type: input.type, accountZone: input.accountZone, accountHours: input.accountHours, leadZone: null, from: start, to: new Date(Date.parse(start) + 1).toISOString(), busy },
    deps.clock(),
  )
  return open.some((slot) => slot.start === start)
}

/** Busy intervals less the booking's own time (an owner's event overlapping it exactly there is not told apart). */
export function withoutSpan(busy: readonly Interval[], own: Interval | null): Interval[] {
  if (own === null) return [...busy]
  const cutStart = Date.parse(own.start)
  const cutEnd = Date.parse(own.end)
  const out: { start: number; end: number }[] = []
  for (const b of busy) {
    const start = Date.parse(b.start)
    const end = Date.parse(b.end)
    if (end <= cutStart || start >= cutEnd) out.push({ start, end })
    else {
      if (start < cutStart) out.push({ start, end: cutStart })
      if (end > cutEnd) out.push({ start: cutEnd, end })
    }
  }
  return mergeSpans(out).map((s) => ({ start: new Date(s.start).toISOString(), end: new Date(s.end).toISOString() }))
}

/** What the event says, and who comes (booking platforms such as Cal.com book the lead as the attendee). */
function eventText(input: BookAppointmentInput): Pick<CalendarEventDraft, 'summary' | 'description' | 'attendee'> {
  const { lead } = input
  const description = [`Lead: ${lead.name}`, `Phone: ${lead.phone}`, ...(lead.source === null ? [] : [`Source: ${lead.source}`]), ...(lead.link === null ? [] : [`In Leadline: ${lead.link}`])].join('\n')
  return { summary: `${input.type.name}: ${lead.name}`, description, attendee: { name: lead.name, phone: lead.phone, timeZone: lead.zone } }
}
