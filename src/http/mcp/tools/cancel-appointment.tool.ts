/** `cancel_appointment` (write, issue #45): calls off a lead's appointment and deletes its calendar event. */
import { z } from 'zod'
import { leadReference, requireOneLeadReference } from '../lead-view.ts'
import { appointmentAnswer, appointmentOutput, leadPhoneOf } from '../appointment-view.ts'
import { defineWriteTool } from '../tool.ts'

export const tool = defineWriteTool({
  name: 'cancel_appointment',
  title: 'Cancel an appointment',
  summary: "Call off a lead's appointment and delete its calendar event",
  description: `Cancels one of the lead's booked appointments (appointment_id, as book_appointment or get_lead gave it): deletes its event from the account's calendar (an event someone already deleted there is fine: calendar_event already_gone), records the cancellation on the lead with reason, and frees the slot for other bookings. An appointment in a calendar the account no longer has connected is cancelled on the lead all the same (calendar_event other_calendar: delete it there by hand). Cancelling a cancelled appointment changes nothing (already_done: true). Refused with error.data.code: appointment_not_found, appointment_not_booked (attended or a no-show), calendar_unknown_outcome (repeat with the same idempotency_key), calendar_unauthorized, calendar_unreachable. dry_run: true says what would happen and changes nothing.`,
  scope: 'write',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  input: {
    ...leadReference,
    appointment_id: z.string().min(1).max(64).describe('The appointment (apt_…)'),
    reason: z.string().trim().min(1).max(200).optional().describe('Why, in a few words (kept on the lead\'s history)'),
  },
  check: requireOneLeadReference,
  output: appointmentOutput.extend({
    calendar_event: z.enum(['deleted', 'already_gone', 'other_calendar', 'would_delete']).nullable().describe('What became of the calendar event; null when nothing was done now'),
  }),
  async run(args, context) {
    const view = await context.services.appointments.cancel({
      accountId: context.account.accountId, phoneLast10: leadPhoneOf(context, args), appointmentId: args.appointment_id, reason: args.reason ?? null,
      by: 'agent', actor: context.command.actor, idempotencyKey: args.idempotency_key, dryRun: args.dry_run,
    })
    return { ...appointmentAnswer(view), calendar_event: view.calendarEvent }
  },
})
