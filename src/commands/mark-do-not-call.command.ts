/** markDoNotCall: the account marks a lead do-not-call; no call is placed to them until the operator clears it. */
import type { LeadState } from '../domain/lead/lead.decider.ts'
import type { CommandContext, CommandHandler } from '../eventstore/command-handler.ts'
import { changeLead } from './change-lead.command.ts'

export interface MarkDoNotCallResult {
  readonly lead: LeadState
  /** Whether the lead changed (for a dry run: whether it would). */
  readonly changed: boolean
}

/** Marks the lead of `stream` do-not-call (a dry run only decides it); lead_not_found when there is none. */
export async function markDoNotCall(
  deps: { readonly commands: CommandHandler; readonly clock: () => Date },
  stream: string,
  dryRun: boolean,
  context: CommandContext,
): Promise<MarkDoNotCallResult> {
  const { lead, events } = await changeLead(deps, stream, { type: 'MarkDoNotCall' }, dryRun, context)
  return { lead, changed: events.length > 0 }
}
