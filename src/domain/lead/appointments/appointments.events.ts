/**
 * The appointments slice's events on the lead's stream (issue #45): a time this person booked with the
 * business, in the calendar the account connected, and how it went. Keyed by `appointmentId` (the
 * booking id, which also names the slot claim and the calendar event's UID). Never a transcript: the
 * calendar event carries the lead's name, phone, source and console link, and that is all.
 */
import type { DomainEvent } from '../../shared/decider.ts'
import { printable, quoted, type EventSummaries } from '../../shared/printable.ts'

/** Who made the change: an agent's tool call, the owner in the console or CLI, the voice assistant on a call, or the calendar itself (an edit noticed by polling). */
export type AppointmentActor = 'agent' | 'owner' | 'assistant' | 'calendar'

/**
 * The appointment is in the calendar (the slot was claimed and the event written, or found from an
 * earlier attempt). `start`/`end`: UTC instants. `leadZone`: the lead's zone when known, so texts and
 * tool answers can give the time in it. `provider`: the calendar's kind (`caldav`, `google`, `calcom`).
 */
export type AppointmentBooked = DomainEvent<
  'AppointmentBooked',
  {
    leadId: string
    appointmentId: string
    appointmentTypeId: string
    typeName: string
    start: string
    end: string
    provider: string
    calendarId: string
    eventUid: string
    leadZone: string | null
    by: AppointmentActor
    idempotencyKey: string | null
    at: string
  }
>
/** Moved to a new time (by a tool, the owner, or an edit made in the calendar and noticed). */
export type AppointmentRescheduled = DomainEvent<
  'AppointmentRescheduled',
  { appointmentId: string; previousStart: string; start: string; end: string; by: AppointmentActor; at: string }
>
/** Called off: by a tool or the owner (the calendar event deleted), or deleted in the calendar and noticed (`by: calendar`). */
export type AppointmentCancelled = DomainEvent<
  'AppointmentCancelled',
  { appointmentId: string; by: AppointmentActor; reason: string | null; at: string }
>
/** The owner (console or `update_lead`) says the lead came. */
export type AppointmentAttended = DomainEvent<'AppointmentAttended', { appointmentId: string; by: AppointmentActor; at: string }>
/** The owner says the lead did not come: follow-up resumes. */
export type AppointmentNoShow = DomainEvent<'AppointmentNoShow', { appointmentId: string; by: AppointmentActor; at: string }>

export type AppointmentEvent = AppointmentBooked | AppointmentRescheduled | AppointmentCancelled | AppointmentAttended | AppointmentNoShow

export function isAppointmentEvent(event: { readonly type: string }): event is AppointmentEvent {
  return Object.hasOwn(APPOINTMENT_SUMMARIES, event.type)
}

const BY: Readonly<Record<AppointmentActor, string>> = { agent: 'by an agent', owner: 'by the owner', assistant: 'by the assistant', calendar: 'in the calendar' }

function by(actor: AppointmentActor): string {
  return BY[actor] ?? printable(actor)
}

export const APPOINTMENT_SUMMARIES: EventSummaries<AppointmentEvent> = {
  AppointmentBooked: (d) => `appointment ${printable(d.appointmentId)} booked ${by(d.by)}: ${quoted(d.typeName)} at ${printable(d.start)} (${printable(d.provider)} calendar)`,
  AppointmentRescheduled: (d) => `appointment ${printable(d.appointmentId)} moved ${by(d.by)} from ${printable(d.previousStart)} to ${printable(d.start)}`,
  AppointmentCancelled: (d) => `appointment ${printable(d.appointmentId)} cancelled ${by(d.by)}${d.reason === null ? '' : ` (${printable(d.reason)})`}`,
  AppointmentAttended: (d) => `appointment ${printable(d.appointmentId)} attended (marked ${by(d.by)})`,
  AppointmentNoShow: (d) => `appointment ${printable(d.appointmentId)}: no-show (marked ${by(d.by)})`,
}
