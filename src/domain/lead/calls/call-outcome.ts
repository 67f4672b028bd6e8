/**
 * How a call went, decided in one place: get_lead's `last_outcome` and the console read it from the
 * lead's own record (CallRecord), list_calls and get_call from the calls read model, and both pass
 * through these functions, so every view says the same of the same call.
 */
import type { CallRecord } from './calls.decider.ts'

/** How a call ended up, in one word (the disposition): its answer, a machine, why nobody answered, or `in_progress` while it is not over. */
export const CALL_RESULTS = ['answered', 'machine', 'no_answer', 'busy', 'failed', 'unknown', 'agent_unavailable', 'missed', 'in_progress'] as const
export type CallResult = (typeof CALL_RESULTS)[number]

/** What the outcome is read from: the same facts in the lead's record and in the calls read model. */
export interface CallOutcomeFacts {
  readonly answered: boolean
  /** A machine or a fax answered. */
  readonly machine: boolean
  /** `decided`, `started`, `placed`, `failed` (never reached the carrier) or `unknown` (the carrier's answer was lost). */
  readonly stage: string
  readonly ended: boolean
  /** The carrier's last word on a call nobody answered (`no-answer`, `busy`, …), or `agent_unavailable` when no owner took an agent-first call. */
  readonly status: string | null
  /** After a connect to the owner (menu key 1, agent-first's 1, the assistant's transfer): whether they talked; null when not asked or still ringing. */
  readonly ownerConnected: boolean | null
}

const NOT_ANSWERED: Readonly<Record<string, CallResult>> = {
  busy: 'busy', 'no-answer': 'no_answer', canceled: 'no_answer', failed: 'failed', machine: 'machine', agent_unavailable: 'agent_unavailable',
  // A person who called in and nobody took it (inbound.decider.ts).
  missed: 'missed',
}

export function callResult(call: CallOutcomeFacts): CallResult {
  if (call.answered) return 'answered'
  if (call.machine) return 'machine'
  if (call.stage === 'failed') return 'failed'
  if (call.stage === 'unknown') return 'unknown'
  if (!call.ended) return 'in_progress'
  return NOT_ANSWERED[call.status ?? ''] ?? 'unknown'
}

/** Whether the lead and the owner talked, whichever way they were connected; null when no connect was tried or it is still ringing. */
export function connectedToOwner(call: CallOutcomeFacts): boolean | null {
  return call.ownerConnected
}

/** The lead's own record of a call, as the facts the outcome is read from. */
export function recordOutcomeFacts(call: CallRecord): CallOutcomeFacts {
  const agentUnavailable = call.ended && call.agent?.phase === 'unavailable'
  return {
    answered: call.answered,
    machine: call.machine,
    stage: call.stage,
    ended: call.ended,
    status: agentUnavailable ? 'agent_unavailable' : call.status,
    ownerConnected: call.ownerConnected,
  }
}
