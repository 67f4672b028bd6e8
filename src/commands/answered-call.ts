/** The call behind a decision, as a carrier needs it to say what the person hears when they pick up. */
import { parseOnAnswer } from '../domain/dialing/on-answer.ts'
import { leadFieldsLine } from '../domain/lead/calls/agent-first.ts'
import type { AnsweredCall } from '../integrations/carrier/carrier.port.ts'
import type { InboundLeadsQueries } from '../../projections/inbound-leads/inbound-leads.queries.ts'
import { callByDecision, type LiveCallDeps } from './live-call.ts'

export async function answeredCall(deps: LiveCallDeps & { readonly inboundLeads: Pick<InboundLeadsQueries, 'get'> }, decisionId: string): Promise<AnsweredCall | null> {
  const found = await callByDecision(deps, decisionId)
  if (!found) return null
  const { call, account } = found
  const lead = deps.inboundLeads.get(call.accountId, { leadId: call.leadId })
  return {
    decisionId: call.decisionId,
    businessName: account.name,
    leadName: lead?.fullName ?? lead?.firstName ?? null,
    onAnswer: parseOnAnswer(account.settings.onAnswer),
    callerId: call.from,
    leadSource: lead?.source ?? null,
    leadLine: lead ? leadFieldsLine(lead) : null,
  }
}
