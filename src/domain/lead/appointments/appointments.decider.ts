/**
 * The appointments slice of the lead aggregate: what this person booked and how it went. The slot is
 * claimed and the calendar written by the booking command before these are recorded (the slot claim's
 * stream holds the race, the calendar the event); the lead's stream records the outcome once, keyed by
 * the appointment id, so a retry of a booking records nothing new.
 */
import type { AccountSettings } from '../../account/account-settings.ts'
import { DomainError } from '../../shared/decider.ts'
import type { AppointmentActor, AppointmentEvent } from './appointments.events.ts'

export type AppointmentStatus = 'booked' | 'cancelled' | 'attended' | 'no_show'

export interface AppointmentRecord {
  readonly appointmentId: string
  readonly appointmentTypeId: string
  readonly typeName: string
  readonly start: string
  readonly end: string
  readonly provider: string
  readonly calendarId: string
  readonly eventUid: string
  readonly leadZone: string | null
  readonly status: AppointmentStatus
  readonly bookedAt: string
  readonly bookedBy: AppointmentActor
  /** When it was last moved, cancelled or marked. */
  readonly changedAt: string | null
}

export interface AppointmentsState {
  readonly appointments: Readonly<Record<string, AppointmentRecord>>
  /** Appointment ids in the order they were booked. */
  readonly order: readonly string[]
}

export const INITIAL_APPOINTMENTS: AppointmentsState = { appointments: {}, order: [] }

type Booked = Extract<AppointmentEvent, { type: 'AppointmentBooked' }>['data']

export type AppointmentCommand =
  | ({ type: 'RecordAppointmentBooked' } & Omit<Booked, 'leadId' | 'at'>)
  | { type: 'RecordAppointmentRescheduled'; appointmentId: string; start: string; end: string; by: AppointmentActor }
  // `settings`: the account's, so a cancellation or a no-show can put the lead back on follow-up (appointment-follow-up.ts).
  | { type: 'RecordAppointmentCancelled'; appointmentId: string; by: AppointmentActor; reason: string | null; settings?: AccountSettings }
  | { type: 'MarkAppointmentOutcome'; appointmentId: string; outcome: 'attended' | 'no_show'; by: AppointmentActor; settings?: AccountSettings }

const COMMANDS: ReadonlySet<string> = new Set(['RecordAppointmentBooked', 'RecordAppointmentRescheduled', 'RecordAppointmentCancelled', 'MarkAppointmentOutcome'])

export function isAppointmentCommand(command: { readonly type: string }): command is AppointmentCommand {
  return COMMANDS.has(command.type)
}

export function evolveAppointments(state: AppointmentsState, event: AppointmentEvent): AppointmentsState {
  if (event.type === 'AppointmentBooked') {
    const d = event.data
    if (state.appointments[d.appointmentId] !== undefined) return state
    const record: AppointmentRecord = {
      appointmentId: d.appointmentId, appointmentTypeId: d.appointmentTypeId, typeName: d.typeName, start: d.start, end: d.end, provider: d.provider,
      calendarId: d.calendarId, eventUid: d.eventUid, leadZone: d.leadZone, status: 'booked', bookedAt: d.at, bookedBy: d.by, changedAt: null,
    }
    return { appointments: { ...state.appointments, [d.appointmentId]: record }, order: [...state.order, d.appointmentId] }
  }
  const current = state.appointments[event.data.appointmentId]
  if (current === undefined) return state
  const next: AppointmentRecord =
    event.type === 'AppointmentRescheduled' ? { ...current, start: event.data.start, end: event.data.end, changedAt: event.data.at }
    : event.type === 'AppointmentCancelled' ? { ...current, status: 'cancelled', changedAt: event.data.at }
    : event.type === 'AppointmentAttended' ? { ...current, status: 'attended', changedAt: event.data.at }
    : { ...current, status: 'no_show', changedAt: event.data.at }
  return { ...state, appointments: { ...state.appointments, [current.appointmentId]: next } }
}

/** What the slice reads of the lead: its id and its appointments. */
export interface LeadWithAppointments {
  readonly exists: boolean
  readonly leadId: string
  readonly appointments: AppointmentsState
}

export function decideAppointments(command: AppointmentCommand, state: LeadWithAppointments, now: Date): AppointmentEvent[] {
  const at = now.toISOString()
  if (command.type === 'RecordAppointmentBooked') {
    if (!state.exists) throw new DomainError('lead_not_found', 'no lead with this phone number')
    // The same booking recorded again (a retry after a crash): it is there already.
    if (state.appointments.appointments[command.appointmentId] !== undefined) return []
    const { type: _type, ...data } = command
    return [{ type: 'AppointmentBooked', data: { leadId: state.leadId, ...data, at } }]
  }
  const current = state.appointments.appointments[command.appointmentId]
  if (current === undefined) throw new DomainError('appointment_not_found', `this lead has no appointment ${command.appointmentId}`, { appointmentId: command.appointmentId })
  if (command.type === 'RecordAppointmentRescheduled') {
    if (current.status !== 'booked') throw notBooked(current)
    if (current.start === command.start && current.end === command.end) return []
    return [{ type: 'AppointmentRescheduled', data: { appointmentId: current.appointmentId, previousStart: current.start, start: command.start, end: command.end, by: command.by, at } }]
  }
  if (command.type === 'RecordAppointmentCancelled') {
    if (current.status === 'cancelled') return []
    if (current.status !== 'booked') throw notBooked(current)
    return [{ type: 'AppointmentCancelled', data: { appointmentId: current.appointmentId, by: command.by, reason: command.reason, at } }]
  }
  // Marked once it has started; marking it the same way again changes nothing, the other way corrects it.
  if (current.status === 'cancelled') throw notBooked(current)
  if (Date.parse(current.start) > now.getTime()) {
    throw new DomainError('appointment_not_started', `appointment ${current.appointmentId} starts at ${current.start}: mark it once it has begun`, { appointmentId: current.appointmentId })
  }
  if (current.status === command.outcome) return []
  const data = { appointmentId: current.appointmentId, by: command.by, at }
  return [command.outcome === 'attended' ? { type: 'AppointmentAttended', data } : { type: 'AppointmentNoShow', data }]
}

function notBooked(current: AppointmentRecord): DomainError {
  return new DomainError('appointment_not_booked', `appointment ${current.appointmentId} is ${current.status.replace('_', '-')}`, { appointmentId: current.appointmentId, status: current.status })
}
