/** What the appointment tools share: the lead's phone key, and an appointment and a slot as they answer them (snake_case). */
import { z } from 'zod'
import type { AppointmentView } from '../../commands/appointments.ts'
import { leadStreamOf, type LeadReference } from './lead-view.ts'
import type { ToolContext } from './tool.ts'

export const slotOutput = z.object({
  start: z.string().describe('UTC ISO 8601: pass it as start to book_appointment or reschedule_appointment'),
  end: z.string().describe('UTC ISO 8601'),
  account_local: z.string().describe("The start on the account's clock, with its offset"),
  lead_local: z.string().nullable().describe("The start on the lead's clock (their state's zone, else their number's); null when unknown"),
})

export const appointmentOutput = z.object({
  appointment_id: z.string().describe('apt_…: name it to reschedule_appointment or cancel_appointment'),
  lead_id: z.string(),
  appointment_type_id: z.string(),
  type_name: z.string(),
  status: z.enum(['booked', 'cancelled', 'attended', 'no_show']),
  start: z.string().describe('UTC ISO 8601'),
  end: z.string().describe('UTC ISO 8601'),
  account_zone: z.string(),
  account_local: z.string().describe("The start on the account's clock"),
  lead_zone: z.string().nullable(),
  lead_local: z.string().nullable().describe("The start on the lead's clock; null when the lead's zone is unknown"),
  provider: z.string().describe('The calendar: caldav, google, calcom, or simulated (in memory: no real calendar)'),
  calendar_id: z.string(),
  event_uid: z.string().describe("The calendar event's UID: the same on every retry, so there is only ever one event"),
  already_done: z.boolean().describe('True when this answers an earlier call for the same appointment: nothing was done now'),
  dry_run: z.boolean(),
})

export function appointmentAnswer(view: AppointmentView) {
  return {
    appointment_id: view.appointmentId, lead_id: view.leadId, appointment_type_id: view.appointmentTypeId, type_name: view.typeName, status: view.status,
    start: view.start, end: view.end, account_zone: view.accountZone, account_local: view.accountTime, lead_zone: view.leadZone, lead_local: view.leadTime,
    provider: view.provider, calendar_id: view.calendarId, event_uid: view.eventUid, already_done: view.alreadyDone, dry_run: view.dryRun,
  }
}

/** The last ten digits of the lead a reference names in the key's account (`lead_not_found` for an unknown lead id). */
export function leadPhoneOf(context: ToolContext, reference: LeadReference): string {
  const stream = leadStreamOf(context, reference)
  return stream.slice(stream.lastIndexOf('-') + 1)
}
