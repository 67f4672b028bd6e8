/**
 * Book an appointment: claim the slot on the log, write the calendar event under the booking's stable
 * UID, record it. Two bookings of one slot: one claim wins, the other is refused `slot_taken` before it
 * touches the calendar. A crash or timeout after the claim is retried with the same booking id: the
 * claim is already ours and the calendar finds the event by its UID, so there is never a second one.
 */
import { bookingEventUid, slotClaimDecider } from '../domain/appointments/slot-claim.decider.ts'
import { slotClaimStream } from '../domain/appointments/slot-claim.events.ts'
import type { AppointmentType } from '../domain/appointments/appointment-type.ts'
import { openSlots } from '../domain/appointments/open-slots.ts'
import type { Actor } from '../domain/event.ts'
import { DomainError } from '../domain/shared/decider.ts'
import type { CommandHandler } from '../eventstore/command-handler.ts'
import { CalendarError, type CalendarConnection } from '../integrations/calendar/calendar.port.ts'

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
  readonly lead: { readonly name: string; readonly phone: string; readonly source: string | null; readonly link: string | null }
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
/** Failures after which the calendar holds nothing: the slot is released for the next booking. */
const NOTHING_WRITTEN = new Set(['unauthorized', 'not_found', 'conflict', 'rejected', 'unreachable'])

export async function bookAppointment(deps: BookAppointmentDeps, input: BookAppointmentInput): Promise<BookedAppointment> {
  const { accountId, bookingId, type } = input
  if (!BOOKING_ID.test(bookingId)) throw new DomainError('invalid_booking_id', 'a booking id is letters, digits, _ and -, up to 64')
  const startMs = Date.parse(input.start)
  if (Number.isNaN(startMs)) throw new DomainError('invalid_range', `start must be an ISO 8601 instant: ${JSON.stringify(input.start)}`)
  const start = new Date(startMs).toISOString()
  const end = new Date(startMs + type.durationMinutes * 60_000).toISOString()
  const stream = slotClaimStream(accountId, start)
  const context = { actor: input.actor, correlationId: `booking-${bookingId}` }

  // Claim first, so a second booking of the slot is refused `slot_taken` whatever the calendar says yet.
  const claim = await deps.handler.handle(stream, slotClaimDecider, { type: 'ClaimSlot', accountId, start, end, bookingId, appointmentTypeId: type.id, calendarId: type.calendarId }, context)
  if (claim.newEvents.length > 0 && !(await isOpen(deps, input, start, end))) {
    await deps.handler.handle(stream, slotClaimDecider, { type: 'ReleaseSlot', accountId, start, bookingId, reason: 'unavailable' }, context)
    throw new DomainError('slot_unavailable', `${start} is not an open slot of ${type.name}`, { start })
  }

  const eventUid = bookingEventUid(bookingId)
  let written
  try {
    written = await deps.calendar.createEvent(type.calendarId, { uid: eventUid, start, end, summary: `${type.name}: ${input.lead.name}`, description: description(input.lead) })
  } catch (error) {
    if (error instanceof CalendarError && NOTHING_WRITTEN.has(error.kind)) {
      await deps.handler.handle(stream, slotClaimDecider, { type: 'ReleaseSlot', accountId, start, bookingId, reason: 'calendar_refused' }, context)
    }
    // unknown_outcome keeps the claim: the retry with this booking id finds whatever landed.
    throw error
  }
  const alreadyThere = written.outcome === 'already_exists'
  await deps.handler.handle(stream, slotClaimDecider, { type: 'RecordSlotEvent', accountId, start, bookingId, eventUid, etag: written.event.etag, alreadyThere }, context)
  return { bookingId, start, end, eventUid, alreadyThere }
}

/** Whether `start` is an open slot now: inside the type's hours, not too soon, not busy in the calendar (buffers included). */
async function isOpen(deps: BookAppointmentDeps, input: BookAppointmentInput, start: string, end: string): Promise<boolean> {
  const buffer = input.type.bufferMinutes * 60_000
  const around = { start: new Date(Date.parse(start) - buffer).toISOString(), end: new Date(Date.parse(end) + buffer).toISOString() }
  const busy = await deps.calendar.busy(input.type.calendarId, around, input.accountZone)
  const open = openSlots(
    { type: input.type, accountZone: input.accountZone, accountHours: input.accountHours, leadZone: null, from: start, to: new Date(Date.parse(start) + 1).toISOString(), busy },
    deps.clock(),
  )
  return open.some((slot) => slot.start === start)
}

function description(lead: BookAppointmentInput['lead']): string {
  return [`Lead: ${lead.name}`, `Phone: ${lead.phone}`, ...(lead.source === null ? [] : [`Source: ${lead.source}`]), ...(lead.link === null ? [] : [`In Leadline: ${lead.link}`])].join('\n')
}
