import type { AccountSettings } from '../../account/account-settings.ts'
import { mayCall } from '../../dialing/may-call.ts'
import { callSettings } from './agent-first.ts'
import type * as agentFirst from './agent-first.ts'
import { leadCallTarget } from './call-target.ts'
import type { CallRecord, LeadWithCalls } from './dialing-state.ts'
import { nextFollowUp } from './follow-up.ts'

/** What the agent-first rules (agent-first.ts) need to know around a call, at `now`. */
export function agentContext(state: LeadWithCalls, call: CallRecord, accountSettings: AccountSettings, node: string, now: Date): agentFirst.AgentFirstContext {
  const settings = callSettings(accountSettings, call)
  return {
    call, settings, node, now,
    pendingFollowUp: state.dialing.pendingFollowUp !== null,
    // The owner legs did not count toward the lead's cap: it is checked as the lead is about to ring.
    mayCallLead: () => mayCall(settings, leadCallTarget(state, call.purpose, call.to, call.decisionId), now),
    followUp: () => (state.dialing.answeredAt === null && !call.followedUp ? nextFollowUp(state, settings, call.decisionId, now) : []),
  }
}
