/** `get_lead` (read): one lead of the account, by phone or lead id. */
import { z } from 'zod'
import { leadDecider } from '../../../domain/lead/lead.decider.ts'
import { findLead, leadOutput, leadOutputOf, leadReference, leadStreamOf, paymentsOutput, paymentsOutputOf, requireOneLeadReference } from '../lead-view.ts'
import { defineTool } from '../tool.ts'

export const tool = defineTool({
  name: 'get_lead',
  title: 'Get a lead',
  description:
    "One lead of this account with every field Leadline holds for it: name, phone, email, state, age, source, vendor, do-not-call, industry fields and any extra fields the sender pushed, and its pay-links (request_payment) with how each settled. Name the lead by phone (any formatting) or by lead_id. A lead that is not in this account is lead_not_found.",
  scope: 'read',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: leadReference,
  check: requireOneLeadReference,
  output: z.object({ lead: leadOutput, payments: paymentsOutput }),
  async run(args, context) {
    const lead = leadOutputOf(findLead(context, args))
    const { state } = await context.services.commands.load(leadStreamOf(context, args), leadDecider)
    return { lead, payments: paymentsOutputOf(state) }
  },
})
