/** `schedule_callback` (dial): follow-up calls the lead at a time the account chose, inside calling hours. */
import { z } from 'zod'
import { changeLead } from '../../../commands/change-lead.command.ts'
import { MAX_CALLBACK_AHEAD_MS } from '../../../domain/lead/calls/calls.decider.ts'
import { leadReference, leadStreamOf, requireOneLeadReference } from '../lead-view.ts'
import { defineWriteTool } from '../tool.ts'

const DAYS = MAX_CALLBACK_AHEAD_MS / 86_400_000

export const tool = defineWriteTool({
  name: 'schedule_callback',
  title: 'Schedule a callback',
  summary: 'Have follow-up call a lead back at a set time',
  description: `Schedules a call back to one lead of this account at callback_at: Leadline's follow-up places the call then, from the account's number, as it does when a lead presses 2 for a callback; if the call goes unanswered, the account's follow-up cadence goes on from it. The time must be one the one contact policy allows for a call to this lead: inside the account's calling hours and the lead's own local hours, within the daily limit and the calling rules of the lead's state. Refused, with error.data.code, when it is not (outside_calling_hours, outside_lead_hours, daily_limit, with error.data.next_allowed_at: the first allowed moment after it, and error.data.rule naming a calling rule; do_not_call, test_lead, no_caller_id, no_calling_hours), in the past (callback_in_past), more than ${DAYS} days ahead (callback_too_far), or while the lead's follow-up is paused (follow_up_paused: resume_follow_up first). A callback takes the place of the lead's pending follow-up, if any (replaced_follow_up_at says which). When the callback comes due, the policy is asked again (the lead may have become do-not-call meanwhile). Name the lead by phone (any formatting) or lead_id.`,
  scope: 'dial',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input: {
    ...leadReference,
    callback_at: z.iso.datetime({ offset: true }).describe('When to call, ISO 8601 with a zone or offset, e.g. 2026-03-11T09:30:00-05:00'),
  },
  check: requireOneLeadReference,
  output: z.object({
    lead_id: z.string(),
    callback_at: z.string().describe('ISO UTC'),
    replaced_follow_up_at: z.string().nullable().describe('The pending follow-up this callback took the place of; null when none was pending'),
    next_follow_up_at: z.string().nullable().describe('When follow-up calls next: the callback'),
    dry_run: z.boolean(),
    message: z.string(),
  }),
  async run(args, context) {
    const command = { type: 'ScheduleCallback' as const, settings: context.account.settings, callbackAt: args.callback_at }
    const { lead, events } = await changeLead(context.services, leadStreamOf(context, args), command, args.dry_run, context.command)
    const scheduled = events.find((event) => event.type === 'CallbackScheduled')
    if (scheduled?.type !== 'CallbackScheduled') throw new Error('schedule_callback decided no callback')
    const { callbackAt, replacedDueAt } = scheduled.data
    return {
      lead_id: lead.leadId,
      callback_at: callbackAt,
      replaced_follow_up_at: replacedDueAt,
      next_follow_up_at: lead.dialing.pendingFollowUp?.dueAt ?? null,
      dry_run: args.dry_run,
      message: args.dry_run ? `follow-up would call ${lead.leadId} back at ${callbackAt}` : `follow-up will call ${lead.leadId} back at ${callbackAt}`,
    }
  },
})
