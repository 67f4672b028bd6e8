/**
 * Appointments recorded on a lead's stream through the command handler, as the booking command does
 * once the slot is claimed and the calendar written (tests of what follows a booking need no calendar).
 */
import type { CommandHandler } from '../../src/eventstore/command-handler.ts'
import { leadDecider } from '../../src/domain/lead/lead.decider.ts'
import type { AppointmentActor } from '../../src/domain/lead/appointments/appointments.events.ts'

export const BOOKING_CONTEXT = { actor: { kind: 'process', id: 'booking-test' } } as const

export interface Booking {
  readonly appointmentId: string
  readonly start: string
  /** Minutes long (30 unless given). */
  readonly minutes?: number
  readonly typeName?: string
  readonly leadZone?: string | null
  readonly by?: AppointmentActor
}

export async function recordBooking(commands: CommandHandler, stream: string, booking: Booking): Promise<void> {
  const end = new Date(Date.parse(booking.start) + (booking.minutes ?? 30) * 60_000).toISOString()
  await commands.handle(stream, leadDecider, {
    type: 'RecordAppointmentBooked', appointmentId: booking.appointmentId, appointmentTypeId: 'type_inspection', typeName: booking.typeName ?? 'Roof inspection',
    start: new Date(booking.start).toISOString(), end, provider: 'simulated', calendarId: 'cal_main', eventUid: `leadline-${booking.appointmentId}`,
    leadZone: booking.leadZone ?? null, by: booking.by ?? 'agent', idempotencyKey: null,
  }, BOOKING_CONTEXT)
}
