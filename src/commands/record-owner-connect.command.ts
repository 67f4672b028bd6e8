/** How the owner's leg of a connect (the lead pressed 1, or the assistant handed the call over) ended, from the carrier's dial status. */
import { leadDecider } from '../domain/lead/lead.decider.ts'
import { callByDecision, carrierActor, type LiveCallDeps } from './live-call.ts'

/** False when the decision is not Leadline's. */
export async function recordOwnerConnect(deps: LiveCallDeps, decisionId: string, status: string, durationSeconds: number | null): Promise<boolean> {
  const found = await callByDecision(deps, decisionId)
  if (!found) return false
  await deps.commands.handle(found.call.stream, leadDecider, { type: 'RecordOwnerConnect', decisionId, status, durationSeconds, settings: found.account.settings }, carrierActor(deps))
  return true
}
