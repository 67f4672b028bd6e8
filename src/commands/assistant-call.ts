/**
 * The assistant on an answered call (`--on-answer assistant`), as the carrier asks for it: at answer
 * time the greeting (or the goodbye when the call must end now), and when the relay connects the live
 * conversation. The call's account comes from the calls index, never from what the carrier sent.
 */
import type { AssistantGreeting, AssistantRefusal, RelayConversation } from '../integrations/carrier/carrier.port.ts'
import type { Assistant, ConversationStart } from '../processes/assistant/conversation.ts'
import { callByDecision, type LiveCallDeps } from './live-call.ts'

export interface AssistantCallDeps extends Pick<LiveCallDeps, 'accounts' | 'calls' | 'runner'> {
  readonly assistant: () => Assistant
}

async function startOf(deps: AssistantCallDeps, decisionId: string, callSid: string): Promise<ConversationStart | null> {
  const found = await callByDecision(deps, decisionId)
  return found ? { accountId: found.call.accountId, decisionId, callSid } : null
}

/** The greeting for the TwiML on answer, or the goodbye; null when the decision is not Leadline's. */
export async function prepareAssistantCall(deps: AssistantCallDeps, decisionId: string, callSid: string): Promise<AssistantGreeting | AssistantRefusal | null> {
  const start = await startOf(deps, decisionId, callSid)
  return start && deps.assistant().prepare(start)
}

/** The relay's setup: the live conversation, or the goodbye; null when the decision is not Leadline's. */
export async function openAssistantCall(
  deps: AssistantCallDeps,
  decisionId: string,
  callSid: string,
): Promise<{ readonly conversation: RelayConversation } | AssistantRefusal | null> {
  const start = await startOf(deps, decisionId, callSid)
  return start && deps.assistant().open(start)
}
