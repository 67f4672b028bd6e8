/** `update_lead` (write): the account corrects a lead's name, email, state or custom fields; never its phone. */
import { z } from 'zod'
import { changeLead, type ChangeLeadResult } from '../../../commands/change-lead.command.ts'
import { leadDecider, type LeadState } from '../../../domain/lead/lead.decider.ts'
import { DomainError } from '../../../domain/shared/decider.ts'
import { RPC_CODES, RpcError } from '../json-rpc.ts'
import { leadReference, leadStreamOf, requireOneLeadReference, type LeadReference } from '../lead-view.ts'
import { defineWriteTool, type ToolContext } from '../tool.ts'

const MAX_CUSTOM_FIELDS = 50
const name = (what: string) => z.string().trim().min(1).max(200).describe(what)

type Edits = LeadReference & {
  readonly name?: string | undefined
  readonly first_name?: string | undefined
  readonly last_name?: string | undefined
  readonly email?: string | null | undefined
  readonly state?: string | null | undefined
  readonly custom_fields?: Readonly<Record<string, string | null>> | undefined
  readonly new_phone?: unknown
  readonly appointment?: { readonly id: string; readonly outcome: 'attended' | 'no_show' } | undefined
}

/** Exactly one lead, something to change, and no new phone: refused before anything runs. */
function check(args: Edits): void {
  requireOneLeadReference(args)
  if (args.new_phone !== undefined) throw new DomainError('phone_not_updatable', "the phone is the lead's identity and cannot be changed; receive the new number as a new lead")
  const edits = [args.name, args.first_name, args.last_name, args.email, args.state, args.custom_fields, args.appointment]
  if (edits.every((edit) => edit === undefined)) {
    throw new RpcError(RPC_CODES.invalidParams, 'invalid_arguments', 'give at least one of name, first_name, last_name, email, state, custom_fields, appointment', {
      problems: [{ path: '', message: 'nothing to change' }],
    })
  }
}

export const tool = defineWriteTool({
  name: 'update_lead',
  title: 'Update a lead',
  summary: "Correct a lead's name, email, state or custom fields; mark an appointment attended or no-show",
  description:
    "Corrects one lead of this account by hand: its name (name splits into first and last name unless you give them too; first_name or last_name alone re-form the full name), email, state (a US state name or code becomes the 2-letter code; anything else is kept as given) and custom fields (the lead's extra fields: a value sets one, null removes it). email and state take null to clear them. Only what differs is recorded, as one event on the lead's history (get_lead_history) that says what changed; the same edit again changes nothing (changed: []). The phone is the lead's identity and cannot be changed (phone_not_updatable): receive the new number as a new lead. appointment marks one of the lead's appointments (get_lead's appointments) attended or no_show once it has begun (appointment_not_started before; appointment_not_booked when cancelled; appointment_not_found when the lead has no such appointment); the same mark again changes nothing, the other one corrects it; a no-show puts the lead back on follow-up (a call now, inside calling hours). Name the lead by phone (any formatting) or lead_id.",
  scope: 'write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: {
    ...leadReference,
    name: name('The full name').optional(),
    first_name: name('The first name').optional(),
    last_name: name('The last name').optional(),
    email: z.email().max(254).nullable().optional().describe('The email address; null clears it'),
    state: z.string().trim().min(1).max(100).nullable().optional().describe('A US state name or code (becomes the 2-letter code); null clears it'),
    custom_fields: z
      .record(z.string().trim().min(1).max(100), z.string().max(1_000).nullable())
      .refine((fields) => Object.keys(fields).length <= MAX_CUSTOM_FIELDS, `at most ${MAX_CUSTOM_FIELDS} custom fields at once`)
      .optional()
      .describe('Custom (extra) fields by name: a string sets one, null removes it'),
    new_phone: z.unknown().optional().describe("Not accepted: the phone is the lead's identity (phone_not_updatable)"),
    appointment: z
      .object({
        id: z.string().trim().min(1).max(200).describe("The appointment's id (get_lead's appointments)"),
        outcome: z.enum(['attended', 'no_show']).describe('attended: the lead came; no_show: they did not (follow-up calls them again)'),
      })
      .strict()
      .optional()
      .describe('Marks one of the lead\'s appointments once it has begun'),
  },
  check,
  output: z.object({
    lead_id: z.string(),
    phone: z.string().describe('E.164: the identity, unchanged'),
    full_name: z.string().nullable(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    email: z.string().nullable(),
    state: z.string().nullable(),
    custom_fields: z.record(z.string(), z.unknown()).describe('The extra fields after the edit'),
    changed: z.array(z.string()).describe('The fields this call changed (for a dry run: would change); custom fields as custom_fields.NAME; appointment when the mark changed'),
    appointment: z
      .object({ appointment_id: z.string(), status: z.string().describe('booked, attended or no_show after the call'), follow_up_next_at: z.string().nullable().describe("The lead's next follow-up after it (a no-show schedules one)") })
      .optional()
      .describe('When appointment was given: where it stands'),
    dry_run: z.boolean(),
    message: z.string(),
  }),
  async run(args, context) {
    const stream = leadStreamOf(context, args)
    const command = {
      type: 'EditLead' as const,
      ...(args.name !== undefined ? { name: args.name } : {}),
      ...(args.first_name !== undefined ? { firstName: args.first_name } : {}),
      ...(args.last_name !== undefined ? { lastName: args.last_name } : {}),
      ...(args.email !== undefined ? { email: args.email } : {}),
      ...(args.state !== undefined ? { state: args.state } : {}),
      ...(args.custom_fields !== undefined ? { customFields: args.custom_fields } : {}),
    }
    const editing = Object.keys(command).length > 1
    // An edit with a mark: the mark is checked first, so a refused one leaves the edit unmade too.
    if (editing && args.appointment !== undefined && !args.dry_run) {
      await markAppointment(context, stream, args.appointment, true, (await changeLead(context.services, stream, command, true, context.command)).lead)
    }
    const edited = editing ? await changeLead(context.services, stream, command, args.dry_run, context.command) : null
    const edit = edited?.events.find((event) => event.type === 'LeadEdited')
    const changed = edit?.type === 'LeadEdited' ? [...Object.keys(edit.data.changes).map(snakeCase), ...edit.data.customFields.map((field) => `custom_fields.${field.name}`)] : []
    const marked = args.appointment === undefined ? null : await markAppointment(context, stream, args.appointment, args.dry_run, edited?.lead)
    if (marked !== null && marked.events.length > 0) changed.push('appointment')
    const lead = marked?.lead ?? (edited as ChangeLeadResult).lead
    const fields = lead.fields
    const verb = args.dry_run ? 'would change' : 'changed'
    return {
      lead_id: lead.leadId,
      phone: fields?.phone ?? '',
      full_name: fields?.fullName ?? null,
      first_name: fields?.firstName ?? null,
      last_name: fields?.lastName ?? null,
      email: fields?.email ?? null,
      state: fields?.state ?? null,
      custom_fields: Object.fromEntries((fields?.extraFields ?? []).map((field) => [field.name, field.value])),
      changed,
      ...(args.appointment === undefined ? {} : {
        appointment: {
          appointment_id: args.appointment.id, status: lead.appointments.appointments[args.appointment.id]?.status ?? 'booked', follow_up_next_at: lead.dialing.pendingFollowUp?.dueAt ?? null,
        },
      }),
      dry_run: args.dry_run,
      message: changed.length === 0 ? `nothing ${verb}: ${lead.leadId} already reads so` : `${lead.leadId}: ${verb} ${changed.join(', ')}`,
    }
  },
})

function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)
}

/**
 * The appointment's mark through MarkAppointmentOutcome, with the account's settings so a no-show can
 * put the lead back on follow-up. A dry run after an edit's dry run decides on the edited lead.
 */
async function markAppointment(context: ToolContext, stream: string, appointment: NonNullable<Edits['appointment']>, dryRun: boolean, edited: LeadState | undefined): Promise<ChangeLeadResult> {
  const command = { type: 'MarkAppointmentOutcome' as const, appointmentId: appointment.id, outcome: appointment.outcome, by: 'agent' as const, settings: context.account.settings }
  if (dryRun && edited !== undefined) {
    const events = leadDecider.decide(command, edited, context.services.clock())
    return { lead: events.reduce(leadDecider.evolve, edited), events }
  }
  return changeLead(context.services, stream, command, dryRun, context.command)
}
