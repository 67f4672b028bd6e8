/**
 * Which calls count toward a lead's daily cap: those that ring the lead. A call that rings the lead
 * first counts from its decision; an agent-first call counts only from the moment the lead is dialed
 * (the owner pressed 1, or the `then=assistant` fallback called the lead), never for its owner legs
 * alone: an owner who does not pick up does not use up the lead's day. A decision not yet known to
 * ring the owner first counts, so two calls decided at once cannot both slip past the cap.
 */
import type { AgentFirstCall } from './agent-first.ts'

/** What this module reads of a call (the calls decider's CallRecord). */
export interface AttemptView {
  readonly decisionId: string
  readonly decidedAt: string
  readonly agent: AgentFirstCall | null
}

/** When the call counts toward the lead's cap; null when it never rang the lead (agent-first owner legs only). */
export function leadAttemptAt(call: AttemptView): string | null {
  if (call.agent === null) return call.decidedAt
  return call.agent.leadDialAt ?? null
}

/** The times every call that rang the lead counts from, in decision order; `except` leaves one call out. */
export function leadAttemptTimes(dialing: { readonly order: readonly string[]; readonly calls: Readonly<Record<string, AttemptView>> }, except?: string): string[] {
  const times: string[] = []
  for (const id of dialing.order) {
    const call = dialing.calls[id]
    if (call === undefined || id === except) continue
    const at = leadAttemptAt(call)
    if (at !== null) times.push(at)
  }
  return times
}
