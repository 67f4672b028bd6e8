/** `mark_do_not_call` (write): the account marks a lead do-not-call; it is not dialed again until the operator clears it. */
import { z } from 'zod'
import type { LeadState } from '../../../domain/lead/lead.decider.ts'
import { markDoNotCall } from '../../../commands/mark-do-not-call.command.ts'
import { leadReference, leadStreamOf, requireOneLeadReference } from '../lead-view.ts'
import { defineWriteTool } from '../tool.ts'

function outcome(state: LeadState, changed: boolean, dryRun: boolean) {
  const message = dryRun
    ? changed ? `${state.leadId} would be marked do-not-call` : `${state.leadId} is already do-not-call; nothing would change`
    : changed ? `${state.leadId} is now do-not-call` : `${state.leadId} was already do-not-call`
  return { lead_id: state.leadId, phone: state.fields?.phone ?? null, do_not_call: true as const, changed, dry_run: dryRun, message }
}

export const tool = defineWriteTool({
  name: 'mark_do_not_call',
  title: 'Mark do-not-call',
  summary: 'Never call a lead again (until the operator clears it)',
  description:
    "Marks one lead of this account do-not-call, for example when the person asked not to be called again. From then on no call is placed to them (place_call is refused with do_not_call, and follow-ups stop) until the account's operator clears the flag. Name the lead by phone (any formatting) or lead_id. Marking a lead that is already do-not-call changes nothing.",
  scope: 'write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: leadReference,
  check: requireOneLeadReference,
  output: z.object({
    lead_id: z.string(),
    phone: z.string().nullable(),
    do_not_call: z.literal(true),
    changed: z.boolean().describe('Whether this call changed the lead (for a dry run: whether it would)'),
    dry_run: z.boolean(),
    message: z.string(),
  }),
  async run(args, context) {
    const { lead, changed } = await markDoNotCall(context.services, leadStreamOf(context, args), args.dry_run, context.command)
    return outcome(lead, changed, args.dry_run)
  },
})
