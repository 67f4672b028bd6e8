/**
 * A call as list_calls and get_call return it: how it went, never a recording or a transcript (the
 * calls read model does not hold them, and every answer passes withoutRecordings on its way out).
 */
import { z } from 'zod'
import type { CallDetail } from '../../../projections/calls/calls.queries.ts'

const RESULTS = ['answered', 'machine', 'no_answer', 'busy', 'failed', 'unknown', 'agent_unavailable', 'in_progress'] as const
type Result = (typeof RESULTS)[number]

const NOT_ANSWERED: Readonly<Record<string, Result>> = { busy: 'busy', 'no-answer': 'no_answer', canceled: 'no_answer', failed: 'failed', machine: 'machine', agent_unavailable: 'agent_unavailable' }

export const callOutput = z.object({
  decision_id: z.string().describe("Leadline's id of the call (dec_…), as the outbound events name it; get_call takes it"),
  call_id: z.string().nullable().describe("The carrier's call id (Twilio's CA…), as place_call returns it; null until the carrier took the call. get_call takes it too"),
  carrier: z.string().nullable(),
  lead_id: z.string(),
  from: z.string().describe("The account's caller id (E.164)"),
  to: z.string().describe('The number called (E.164)'),
  purpose: z.enum(['speed_to_lead', 'follow_up', 'place_call']).or(z.string()),
  attempt: z.number().int().describe("The lead's call attempt it was, from 1"),
  decided_at: z.string(),
  ended_at: z.string().nullable(),
  result: z.enum(RESULTS).describe('How it went, in one word (the disposition): in_progress while it is not over'),
  status: z.string().nullable().describe("The carrier's last word on it (completed, no-answer, busy, …) or why it failed"),
  answered_by: z.string().nullable().describe("Answering-machine detection's verdict (human, unknown, machine_end_beep, fax, …); null when there was none"),
  duration_seconds: z.number().int().nullable().describe('Length of an answered call, as the carrier reported it'),
  voicemail: z.enum(['left', 'failed', 'skipped']).nullable().describe('After a machine answered: whether a message was left'),
  menu_choice: z.enum(['connect', 'callback', 'opt_out', 'none']).nullable().describe('The key the lead pressed in the menu: 1 connect, 2 callback, 9 opt out'),
  callback_at: z.string().nullable().describe('When the lead asked on this call to be called back'),
  connected_to_owner: z.boolean().nullable().describe('After the lead pressed 1: whether the owner and the lead talked'),
  failure_message: z.string().nullable(),
})

function resultOf(call: CallDetail): Result {
  if (call.answered) return 'answered'
  if (call.machine) return 'machine'
  if (call.stage === 'failed') return 'failed'
  if (call.stage === 'unknown') return 'unknown'
  if (call.endedAt === null) return 'in_progress'
  return NOT_ANSWERED[call.outcome ?? ''] ?? 'unknown'
}

export function callOutputOf(call: CallDetail): z.input<typeof callOutput> {
  return {
    decision_id: call.decisionId,
    call_id: call.callId,
    carrier: call.carrier,
    lead_id: call.leadId,
    from: call.from,
    to: call.to,
    purpose: call.purpose,
    attempt: call.attempt,
    decided_at: call.decidedAt,
    ended_at: call.endedAt,
    result: resultOf(call),
    status: call.outcome,
    answered_by: call.answeredBy,
    duration_seconds: call.durationSeconds,
    voicemail: call.voicemail === 'started' ? null : (call.voicemail as 'left' | 'failed' | 'skipped' | null),
    menu_choice: call.menuChoice as 'connect' | 'callback' | 'opt_out' | 'none' | null,
    callback_at: call.callbackAt,
    connected_to_owner: call.ownerConnected,
    failure_message: call.failureMessage,
  }
}
