/** A lead's appointments as get_lead answers them: upcoming and past, times in the account's and the lead's zone. */
import { z } from 'zod'
import { appointmentViews, type AppointmentView } from '../../domain/lead/appointments/appointment-times.ts'
import { leadTimeZone } from '../../domain/dialing/lead-time-zone.ts'
import type { LeadState } from '../../domain/lead/lead.decider.ts'

/** Past appointments shown at most: the answer stays bounded. */
export const PAST_APPOINTMENTS_SHOWN = 50

const times = z.object({ zone: z.string().describe('IANA zone'), start: z.string().describe('ISO 8601 with the offset'), end: z.string() })

const appointment = z.object({
  appointment_id: z.string(),
  type: z.string().describe("The appointment type's name"),
  type_id: z.string(),
  start: z.string().describe('ISO UTC'),
  end: z.string().describe('ISO UTC'),
  status: z.string().describe('booked, cancelled, attended or no_show'),
  markable: z.boolean().describe('Begun and not cancelled: update_lead can mark it attended or no_show'),
  booked_by: z.string().describe('agent, owner, assistant or calendar'),
  booked_at: z.string(),
  changed_at: z.string().nullable().describe('When it was last moved, cancelled or marked'),
  account_time: times.describe("Its times in the account's zone"),
  lead_time: times.nullable().describe("Its times in the lead's zone; null when it is not known"),
})

export const appointmentsOutput = z
  .object({
    upcoming: z.array(appointment).describe('Booked and not ended yet, soonest first'),
    past: z.array(appointment).describe(`Ended, cancelled or marked, latest first: the newest ${PAST_APPOINTMENTS_SHOWN}`),
  })
  .describe("The lead's appointments (book_appointment); mark one attended or no_show with update_lead's appointment")

function output(view: AppointmentView): z.output<typeof appointment> {
  const r = view.record
  return {
    appointment_id: r.appointmentId, type: r.typeName, type_id: r.appointmentTypeId, start: r.start, end: r.end, status: r.status, markable: view.markable,
    booked_by: r.bookedBy, booked_at: r.bookedAt, changed_at: r.changedAt, account_time: view.account, lead_time: view.lead,
  }
}

export function appointmentsOutputOf(state: LeadState, accountZone: string, now: Date): z.output<typeof appointmentsOutput> {
  const fields = state.fields
  const leadZone = fields === null ? null : (leadTimeZone({ phone: fields.phone, ...(fields.state ? { state: fields.state } : {}) })?.zone ?? null)
  const views = appointmentViews(state.appointments, accountZone, leadZone, now)
  return { upcoming: views.upcoming.map(output), past: views.past.slice(0, PAST_APPOINTMENTS_SHOWN).map(output) }
}
