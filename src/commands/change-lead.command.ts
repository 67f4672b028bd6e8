/**
 * changeLead: the account's own changes to a lead that send nothing (update_lead, add_note,
 * schedule_callback, pause_follow_up, resume_follow_up). A dry run asks the same decider on the
 * lead as it stands and appends nothing, so it refuses exactly what the real call would.
 */
import { leadDecider, type LeadCommand, type LeadState } from '../domain/lead/lead.decider.ts'
import type { LeadEvent } from '../domain/lead/lead.events.ts'
import { DomainError } from '../domain/shared/decider.ts'
import type { CommandContext, CommandHandler } from '../eventstore/command-handler.ts'

export interface ChangeLeadResult {
  /** The lead after the change (for a dry run: as it would be). */
  readonly lead: LeadState
  /** The events appended (for a dry run: that would be); none when nothing would change. */
  readonly events: readonly LeadEvent[]
}

/** Runs `command` on the lead of `stream`, or only decides it for a dry run; lead_not_found when there is none. */
export async function changeLead(
  deps: { readonly commands: CommandHandler; readonly clock: () => Date },
  stream: string,
  command: LeadCommand,
  dryRun: boolean,
  context: CommandContext,
): Promise<ChangeLeadResult> {
  if (dryRun) {
    const { state } = await deps.commands.load(stream, leadDecider)
    if (!state.exists) throw new DomainError('lead_not_found', 'no lead with that phone number or id in this account')
    const events = leadDecider.decide(command, state, deps.clock())
    return { lead: events.reduce(leadDecider.evolve, state), events }
  }
  const result = await deps.commands.handle(stream, leadDecider, command, context)
  if (!result.state.exists) throw new DomainError('lead_not_found', 'no lead with that phone number or id in this account')
  return { lead: result.state, events: result.newEvents }
}
