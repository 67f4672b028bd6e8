/** `list_leads` (read): the account's Inbound Leads list, newest first, filtered, a page at a time. */
import { z } from 'zod'
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../../../projections/inbound-leads/inbound-leads.queries.ts'
import { PAGE_BYTES, withinBudget } from '../answer-budget.ts'
import { leadOutput, leadOutputOf } from '../lead-view.ts'
import { defineTool } from '../tool.ts'

export const tool = defineTool({
  name: 'list_leads',
  title: 'List Inbound Leads',
  summary: 'The Inbound Leads list, filtered, a page at a time',
  description:
    "The account's Inbound Leads list, newest first: every lead pushed to the webhook, one per person (matched by the last ten digits of the phone). Filter by source (campaign), vendor, received since a time, or do-not-call. Results come a page at a time, of at most limit leads and about 512 KB (a page of leads with bulky extra fields holds fewer): pass next_cursor back as cursor for the next page (null on the last page).",
  scope: 'read',
  heavy: true,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: {
    source: z.string().min(1).max(200).optional().describe('Only leads from this lead source (campaign); case is ignored'),
    vendor: z.string().min(1).max(200).optional().describe('Only leads from this vendor; case is ignored'),
    since: z
      .union([z.iso.datetime({ offset: true }), z.iso.date()])
      .optional()
      .describe('Only leads received at or after this ISO-8601 time or date (e.g. 2025-06-01T00:00:00Z or 2025-06-01)'),
    do_not_call: z.boolean().optional().describe('true: only do-not-call leads; false: only leads that may be called'),
    limit: z.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE).describe(`Leads per page (1-${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE})`),
    cursor: z.string().min(1).max(200).optional().describe('next_cursor of the previous page'),
  },
  output: z.object({
    list: z.literal('Inbound Leads'),
    leads: z.array(leadOutput),
    next_cursor: z.string().nullable().describe('Pass back as cursor for the next page; null on the last page'),
  }),
  async run(args, context) {
    const page = context.services.inboundLeads.list(context.account.accountId, {
      ...(args.source !== undefined ? { source: args.source } : {}),
      ...(args.vendor !== undefined ? { vendor: args.vendor } : {}),
      ...(args.since !== undefined ? { since: args.since } : {}),
      ...(args.do_not_call !== undefined ? { doNotCall: args.do_not_call } : {}),
      ...(args.cursor !== undefined ? { cursor: args.cursor } : {}),
      limit: args.limit,
      maxBytes: PAGE_BYTES,
    })
    // The rows' size bounds what is read; the leads' JSON bounds what is answered, and may end the page sooner.
    const { kept, cut } = withinBudget(page.leads.map(leadOutputOf), PAGE_BYTES)
    const last = kept[kept.length - 1]
    const nextCursor = cut && last ? context.services.inboundLeads.cursorAfter(context.account.accountId, last.lead_id) : page.nextCursor
    return { list: 'Inbound Leads' as const, leads: kept, next_cursor: nextCursor }
  },
})
