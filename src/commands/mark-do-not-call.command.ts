/** markDoNotCall: the account marks a lead do-not-call; no call is placed to them until the operator clears it. */
import { leadDecider, type LeadState } from '../domain/lead/lead.decider.ts'
import { DomainError } from '../domain/shared/decider.ts'
import type { CommandContext, CommandHandler } from '../eventstore/command-handler.ts'

export interface MarkDoNotCallResult {
  readonly lead: LeadState
  /** Whether the lead changed (for a dry run: whether it would). */
  readonly changed: boolean
}

/** Marks the lead of `stream` do-not-call (a dry run only reads it); lead_not_found when there is none. */
export async function markDoNotCall(
  deps: { readonly commands: CommandHandler },
  stream: string,
  dryRun: boolean,
  context: CommandContext,
): Promise<MarkDoNotCallResult> {
  if (dryRun) {
    const { state } = await deps.commands.load(stream, leadDecider)
    if (!state.exists) throw new DomainError('lead_not_found', 'no lead with that phone number or id in this account')
    return { lead: state, changed: !state.doNotCall }
  }
  const result = await deps.commands.handle(stream, leadDecider, { type: 'MarkDoNotCall' }, context)
  return { lead: result.state, changed: result.newEvents.length > 0 }
}
