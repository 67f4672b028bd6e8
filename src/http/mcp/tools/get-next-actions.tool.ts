/** `get_next_actions` (read, spec §4.2): which leads need a call now, from the stale-leads view. */
import { z } from 'zod'
import { DEFAULT_NEXT_ACTIONS, MAX_NEXT_ACTIONS } from '../../../../projections/stale-leads/next-actions.queries.ts'
import { defineTool } from '../tool.ts'

const staleLead = z.object({
  lead_id: z.string(),
  name: z.string().nullable().optional(),
  phone: z.string(),
  source: z.string().nullable().optional(),
  last_touch: z.string().describe('ISO time of the last touch: a call or text out, an answer, a reply, an update'),
  attempts: z.number().int(),
  why: z.string().describe('call_back (the lead called the account\'s number and nobody took the call; called_at says when), replied (the lead texted back and was not called since), callback_due (a callback the lead asked for, pressing 2 or through the voice assistant, or one scheduled with schedule_callback, is due), assistant_qualified (the voice assistant qualified the lead and no call followed), connect_missed (the lead pressed 1 and reached nobody), appointment_no_show (the lead did not come to an appointment, or one ended with no mark: mark it with update_lead), appointment_today (an appointment booked for today, in the account\'s zone), never_contacted or contacted_untouched; most urgent first'),
  called_at: z.string().optional().describe('call_back only: ISO time the missed call came in'),
  appointment: z
    .object({
      appointment_id: z.string(),
      type: z.string().describe("The appointment type's name"),
      start: z.string().describe('ISO UTC'),
      end: z.string().describe('ISO UTC'),
      status: z.string().describe('booked, or no_show'),
      marked: z.boolean().describe('appointment_no_show: true when marked no-show, false when it ended with no mark yet (mark attended or no-show)'),
    })
    .optional()
    .describe('appointment_no_show and appointment_today only: the appointment'),
  suggested_action: z.string(),
  next_allowed_at: z.string().nullable().describe('ISO UTC time the suggested call is next allowed; null when never'),
  lead_zones: z
    .array(z.string())
    .describe("Every zone the lead may be in (its state's and its number's when they disagree): the call waits until each is inside the lead's hours; empty when neither is known (the account's zone is used)"),
})

export const tool = defineTool({
  name: 'get_next_actions',
  title: 'Next actions',
  summary: 'What to do next: a summary and the leads that need a call',
  description:
    'What to do next in this account: a one-line summary (for example how many leads were contacted but never touched again) and the leads that need a call, most urgent first: leads that called and reached nobody (call_back, with the time they called), leads that replied by text and were not called since, leads whose callback (asked for by pressing 2, or scheduled) is due, leads that pressed 1 to talk to someone and were not connected, leads that missed an appointment or whose appointment ended with no mark (appointment_no_show), leads with an appointment today (appointment_today), then the stale ones. Each comes with why it is listed, how many attempts so far, the suggested action and when a call is next allowed inside calling hours. Call this first when asked what to work on; follow up with get_lead or place_call.',
  scope: 'read',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: {
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_NEXT_ACTIONS)
      .default(DEFAULT_NEXT_ACTIONS)
      .describe(`Most leads to return (1-${MAX_NEXT_ACTIONS}, default ${DEFAULT_NEXT_ACTIONS})`),
  },
  output: z.object({
    summary: z.string(),
    stale_leads: z.array(staleLead),
  }),
  async run({ limit }, context) {
    const next = await context.services.nextActions.getNextActions(context.account, { limit })
    return { summary: next.summary, stale_leads: next.stale_leads }
  },
})
