/** pause_follow_up and resume_follow_up: one shape, two commands on the lead; each tool's file names its own. */
import { z } from 'zod'
import { changeLead, type ChangeLeadResult } from '../../commands/change-lead.command.ts'
import type { LeadCommand } from '../../domain/lead/lead.decider.ts'
import type { AccountSettings } from '../../domain/account/account-settings.ts'
import { leadReference, leadStreamOf, requireOneLeadReference } from './lead-view.ts'
import { defineWriteTool, type Tool } from './tool.ts'

const output = z.object({
  lead_id: z.string(),
  paused: z.boolean().describe("Whether the lead's follow-up is paused now (for a dry run: would be)"),
  changed: z.boolean().describe('Whether this call changed it (false: it already was)'),
  next_follow_up_at: z.string().nullable().describe('When follow-up calls or texts next once it runs: the pending step (ISO UTC); null when none is pending'),
  dry_run: z.boolean(),
  message: z.string(),
})

function outputOf({ lead, events }: ChangeLeadResult, dryRun: boolean, said: { readonly changed: string; readonly unchanged: string }): z.input<typeof output> {
  const paused = lead.dialing.followUpPaused !== null
  const next = lead.dialing.pendingFollowUp?.dueAt ?? null
  const changed = events.length > 0
  const pending = next === null ? '; no follow-up is pending' : paused ? `; the pending follow-up (due ${next}) waits` : `; follow-up next at ${next}`
  return { lead_id: lead.leadId, paused, changed, next_follow_up_at: next, dry_run: dryRun, message: `${lead.leadId}: ${changed ? (dryRun ? `would be ${said.changed}` : said.changed) : said.unchanged}${pending}` }
}

interface PauseToolSpec {
  readonly name: string
  readonly title: string
  readonly summary: string
  readonly description: string
  readonly command: (settings: AccountSettings) => LeadCommand
  readonly said: { readonly changed: string; readonly unchanged: string }
}

export function followUpPauseTool(spec: PauseToolSpec): Tool {
  return defineWriteTool({
    name: spec.name,
    title: spec.title,
    summary: spec.summary,
    description: spec.description,
    scope: 'write',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: leadReference,
    check: requireOneLeadReference,
    output,
    async run(args, context) {
      const result = await changeLead(context.services, leadStreamOf(context, args), spec.command(context.account.settings), args.dry_run, context.command)
      return outputOf(result, args.dry_run, spec.said)
    },
  })
}
