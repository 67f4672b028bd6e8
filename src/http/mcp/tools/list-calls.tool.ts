/** `list_calls` (read): the account's calls, or one lead's, newest first, a page at a time. */
import { z } from 'zod'
import { DEFAULT_CALLS_PAGE, MAX_CALLS_PAGE } from '../../../../projections/calls/calls.queries.ts'
import { callOutput, callOutputOf } from '../call-view.ts'
import { findLead, leadReference, leadStreamOf } from '../lead-view.ts'
import { RPC_CODES, RpcError } from '../json-rpc.ts'
import { defineTool } from '../tool.ts'

export const tool = defineTool({
  name: 'list_calls',
  title: 'List calls',
  summary: "The account's calls, or one lead's, newest first",
  description: `The calls Leadline placed for this account (speed to lead, follow-up, place_call) and the calls people made to the account's number (direction inbound), newest first, or one lead's when you name it by phone (any formatting) or lead_id. Each call says how it went: direction (outbound or inbound), result (answered, machine, no_answer, busy, failed, unknown, agent_unavailable, missed for an inbound call nobody took, or in_progress while it is not over), the carrier's status, who answered (machine detection's verdict), how long an answered call lasted, whether a voicemail was left, the key the lead pressed in the menu, the callback they asked for, and whether they were connected to the owner. Never a recording or a transcript. A page holds at most limit calls: pass next_cursor back as cursor for the next page (null on the last page). A lead that is not in this account is lead_not_found.`,
  scope: 'read',
  heavy: true,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: {
    phone: leadReference.phone.describe("Only this lead's calls: its phone number, in any formatting. Give phone, lead_id or neither (the whole account)."),
    lead_id: leadReference.lead_id.describe("Only this lead's calls: its lead id. Give phone, lead_id or neither (the whole account)."),
    limit: z.number().int().min(1).max(MAX_CALLS_PAGE).default(DEFAULT_CALLS_PAGE).describe(`Calls per page (1-${MAX_CALLS_PAGE}, default ${DEFAULT_CALLS_PAGE})`),
    cursor: z.string().min(1).max(200).optional().describe('next_cursor of the previous page (of the same list: the same lead, or the whole account)'),
  },
  check(args) {
    if (args.phone !== undefined && args.lead_id !== undefined) {
      throw new RpcError(RPC_CODES.invalidParams, 'invalid_arguments', 'give at most one of phone and lead_id', { problems: [{ path: '', message: 'give at most one of phone and lead_id' }] })
    }
  },
  output: z.object({
    calls: z.array(callOutput),
    next_cursor: z.string().nullable().describe('Pass back as cursor for the next page; null on the last page'),
  }),
  async run(args, context) {
    const accountId = context.account.accountId
    const named = args.phone !== undefined || args.lead_id !== undefined
    // A lead named by phone must be one of the account's: an unknown number is lead_not_found, not an empty list.
    if (named) findLead(context, args)
    const stream = named ? leadStreamOf(context, args) : undefined
    const page = context.services.calls.page(accountId, { ...(stream !== undefined ? { stream } : {}), limit: args.limit, ...(args.cursor !== undefined ? { cursor: args.cursor } : {}) })
    return { calls: page.calls.map(callOutputOf), next_cursor: page.nextCursor }
  },
})
