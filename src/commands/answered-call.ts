/** The call behind a decision, as a carrier needs it to say what the person hears when they pick up. */
import { parseOnAnswer } from '../domain/dialing/on-answer.ts'
import { callSettings, isAssistantFallback, leadFieldsLine } from '../domain/lead/calls/agent-first.ts'
import { leadDecider } from '../domain/lead/lead.decider.ts'
import type { AnsweredCall } from '../integrations/carrier/carrier.port.ts'
import type { InboundLeadsQueries } from '../../projections/inbound-leads/inbound-leads.queries.ts'
import { callByDecision, type LiveCallDeps } from './live-call.ts'

export async function answeredCall(deps: LiveCallDeps & { readonly inboundLeads: Pick<InboundLeadsQueries, 'get'> }, decisionId: string): Promise<AnsweredCall | null> {
  const found = await callByDecision(deps, decisionId)
  if (!found) return null
  const { call, account } = found
  const lead = deps.inboundLeads.get(call.accountId, { leadId: call.leadId })
  const { state } = await deps.commands.load(call.stream, leadDecider)
  const record = state.dialing.calls[decisionId]
  // A click-to-call is agent-first to the owner's numbers it was decided with, whatever the account's other calls do.
  const onAnswer = parseOnAnswer((record ? callSettings(account.settings, record) : account.settings).onAnswer)
  // Agent-first's direct call to the lead after no owner accepted (`then=assistant`): the assistant answers it.
  const fallback = onAnswer.kind === 'agent-first' && onAnswer.fallback === 'assistant' && record !== undefined && isAssistantFallback(record)
  return {
    decisionId: call.decisionId,
    businessName: account.name,
    leadName: lead?.fullName ?? lead?.firstName ?? null,
    onAnswer: fallback ? { kind: 'assistant' } : onAnswer,
    // A person who called in: the account's number is the one they called (`to`).
    callerId: call.direction === 'inbound' ? call.to : call.from,
    leadSource: lead?.source ?? null,
    leadLine: lead ? leadFieldsLine(lead) : null,
  }
}
