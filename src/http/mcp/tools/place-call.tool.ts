/** `place_call` (dial, spec §4.2): a real outbound call from the account's own number, or a dry run of one. */
import { z } from 'zod'
import { placeCall } from '../../../commands/place-call.command.ts'
import { contactCheckOf, contactCheckOutput } from '../contact-check.ts'
import { phoneArgument } from '../lead-view.ts'
import { defineWriteTool } from '../tool.ts'

export const tool = defineWriteTool({
  name: 'place_call',
  title: 'Place a call',
  summary: "A real call from the account's own number",
  description:
    "Places a real phone call to exactly the number given, from the account's own number (caller id), and adds the person as a lead when they are not one yet. Refused, with error.data.code, when the lead is do-not-call (do_not_call), when the number itself opted out by text (suppressed: it may be another person than the lead with the same last ten digits), or a lead form's test lead (test_lead), when the number is not valid (phone_not_valid), is premium-rate, toll-free, satellite or otherwise non-geographic (number_type_not_allowed) or in a country the account does not call (country_not_allowed), when the person already had the account's daily limit of calls in the last 24 hours (daily_limit, with error.data.daily_limit and error.data.next_allowed_at), outside the account's calling hours or the lead's own local hours (outside_calling_hours / outside_lead_hours, with error.data.next_allowed_at); a refusal by a calling rule (the federal hours, or a state's such as Florida's 08:00-20:00 and 3 calls a day) names it in error.data.rule, when the account has no calling hours or no caller id, or when the carrier refuses (carrier_error). Use dry_run: true first to see whether a call would go out now and, if not, why and when it next may.",
  scope: 'dial',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input: {
    phone: phoneArgument.describe("The number to call, in any formatting; read in the account's default country when it has no country code"),
    name: z.string().min(1).max(200).describe("The person's name, used for a new lead and announced to the account owner"),
  },
  output: z.object({
    status: z.enum(['placed', 'would_call', 'would_not_call']).describe('placed: the carrier accepted the call; would_call / would_not_call: a dry run'),
    call_id: z.string().nullable(),
    lead_id: z.string().nullable(),
    from: z.string().nullable().describe("The account's caller id (E.164)"),
    to: z.string().describe('The number called (E.164)'),
    carrier: z.string(),
    check: contactCheckOutput(
      z.number().int().describe("At most this many calls to one person in any 24 hours, speed to lead, follow-ups and place_call together: the account's limit, or the lead's state's when smaller"),
    ),
    dry_run: z.boolean(),
  }),
  async run(args, context) {
    const result = await placeCall(
      context.services,
      context.account,
      { phone: args.phone, name: args.name, idempotencyKey: args.idempotency_key, dryRun: args.dry_run },
      context.command,
    )
    return {
      status: result.status,
      call_id: result.callId,
      lead_id: result.leadId,
      from: result.from,
      to: result.to,
      carrier: result.carrier,
      check: contactCheckOf(result.check),
      dry_run: result.dryRun,
    }
  },
})
