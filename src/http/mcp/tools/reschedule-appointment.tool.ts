/** `reschedule_appointment` (write, issue #45): moves a lead's appointment to another open slot, the same calendar event moved. */
import { z } from 'zod'
import { leadReference, requireOneLeadReference } from '../lead-view.ts'
import { appointmentAnswer, appointmentOutput, leadPhoneOf } from '../appointment-view.ts'
import { defineWriteTool } from '../tool.ts'

export const tool = defineWriteTool({
  name: 'reschedule_appointment',
  title: 'Reschedule an appointment',
  summary: "Move a lead's appointment to another open slot",
  description: `Moves one of the lead's booked appointments (appointment_id, as book_appointment or get_lead gave it) to start, another open slot of its type (list_open_slots). The new slot (and a place on its day) is claimed before the calendar is touched; the same calendar event is then moved, under its UID, only if nobody edited it in the calendar since (calendar_conflict otherwise: look again before moving it); the old slot is given back after. Refused with error.data.code: slot_taken or day_full or slot_unavailable (each with error.data.next_slots to offer instead), appointment_not_found, appointment_not_booked (cancelled, attended or no-show), calendar_changed (the account connected another calendar since: cancel and book again), calendar_not_found (the event is gone from the calendar), calendar_unknown_outcome (repeat with the same idempotency_key). Moving it to the time it already has changes nothing (already_done: true). dry_run: true checks the new slot and changes nothing.`,
  scope: 'write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input: {
    ...leadReference,
    appointment_id: z.string().min(1).max(64).describe('The appointment (apt_…)'),
    start: z.iso.datetime({ offset: true }).describe('The new start, an open slot list_open_slots gave (ISO 8601 with a zone or offset)'),
  },
  check: requireOneLeadReference,
  output: appointmentOutput.extend({ previous_start: z.string().nullable().describe('Where it was (UTC); null when nothing moved') }),
  async run(args, context) {
    const view = await context.services.appointments.reschedule({
      accountId: context.account.accountId, phoneLast10: leadPhoneOf(context, args), appointmentId: args.appointment_id, start: args.start,
      by: 'agent', actor: context.command.actor, idempotencyKey: args.idempotency_key, dryRun: args.dry_run,
    })
    return { ...appointmentAnswer(view), previous_start: view.previousStart }
  },
})
