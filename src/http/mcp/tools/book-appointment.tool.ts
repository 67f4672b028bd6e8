/** `book_appointment` (write, issue #45): books a lead into the account's calendar, one event per booking, whatever retries. */
import { z } from 'zod'
import { leadReference, requireOneLeadReference } from '../lead-view.ts'
import { appointmentAnswer, appointmentOutput, leadPhoneOf } from '../appointment-view.ts'
import { defineWriteTool } from '../tool.ts'

export const tool = defineWriteTool({
  name: 'book_appointment',
  title: 'Book an appointment',
  summary: "Book a lead into the account's calendar at an open slot",
  description: `Books one lead of this account (name them by phone or lead_id; lead_not_found otherwise) into the account's calendar: an appointment of appointment_type_id at start, a slot list_open_slots offered. The slot is claimed on Leadline's log before the calendar is written, so two agents booking one slot cannot both have it: the second is refused slot_taken, with error.data.next_slots (the next open slots, each with start, end, account_local and lead_local) to offer instead. A day that already holds the type's most a day is day_full (with next_slots too); a time outside the type's hours, too soon or busy in the calendar is slot_unavailable. The calendar event carries the lead's name, phone, source and a link to the lead in the console, never a transcript, under a UID fixed by idempotency_key: the same key answers the same appointment and never makes a second event. When the calendar does not answer (calendar_unknown_outcome), the slot stays held: repeat the call with the same idempotency_key and it finds what landed. Other refusals: appointment_type_not_found, calendar_not_connected, calendar_not_found, calendar_unauthorized, calendar_unreachable, invalid_range. dry_run: true checks the slot and answers the appointment it would book, claiming and writing nothing.`,
  scope: 'write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input: {
    ...leadReference,
    appointment_type_id: z.string().min(1).max(64).describe("The appointment type's id (list_open_slots without arguments lists them)"),
    start: z.iso.datetime({ offset: true }).describe('The slot\'s start, as list_open_slots gave it (ISO 8601 with a zone or offset)'),
  },
  check: requireOneLeadReference,
  output: appointmentOutput,
  async run(args, context) {
    const view = await context.services.appointments.book({
      accountId: context.account.accountId, phoneLast10: leadPhoneOf(context, args), typeId: args.appointment_type_id, start: args.start,
      by: 'agent', actor: context.command.actor, idempotencyKey: args.idempotency_key, dryRun: args.dry_run,
    })
    return appointmentAnswer(view)
  },
})
