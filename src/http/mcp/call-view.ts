/**
 * A call as list_calls and get_call return it: how it went, never a recording or a transcript (the
 * calls read model does not hold them, and every answer passes withoutRecordings on its way out).
 */
import { z } from 'zod'
import type { CallDetail } from '../../../projections/calls/calls.queries.ts'
import { CALL_RESULTS, callResult, connectedToOwner, type CallOutcomeFacts } from '../../domain/lead/calls/call-outcome.ts'

export const callOutput = z.object({
  decision_id: z.string().describe("Leadline's id of the call (dec_…), as the outbound events name it; get_call takes it"),
  call_id: z.string().nullable().describe("The carrier's call id (Twilio's CA…), as place_call returns it; null until the carrier took the call. get_call takes it too"),
  carrier: z.string().nullable(),
  lead_id: z.string(),
  direction: z.enum(['outbound', 'inbound']).describe("outbound: Leadline called the lead; inbound: the person called the account's number (decision_id inb_…, purpose inbound)"),
  from: z.string().describe("Who called (E.164): the account's caller id, or for an inbound call the person"),
  to: z.string().describe("The number called (E.164): the lead's, or for an inbound call the account's"),
  purpose: z.enum(['speed_to_lead', 'follow_up', 'place_call', 'inbound']).or(z.string()),
  attempt: z.number().int().describe("The lead's call attempt it was, from 1 (0 for an inbound call)"),
  decided_at: z.string(),
  ended_at: z.string().nullable(),
  result: z.enum(CALL_RESULTS).describe('How it went, in one word (the disposition): in_progress while it is not over; an inbound call is answered (an owner or the assistant took it) or missed'),
  status: z.string().nullable().describe("The carrier's last word on it (completed, no-answer, busy, …) or why it failed"),
  answered_by: z.string().nullable().describe("Answering-machine detection's verdict (human, unknown, machine_end_beep, fax, …); for an inbound call who took it (owner, assistant); null when there was none"),
  duration_seconds: z.number().int().nullable().describe('Length of an answered call, as the carrier reported it'),
  voicemail: z.enum(['left', 'failed', 'skipped']).nullable().describe('After a machine answered: whether a message was left; for an inbound call, left when the caller left one (played only in the console)'),
  menu_choice: z.enum(['connect', 'callback', 'opt_out', 'none']).nullable().describe('The key the lead pressed in the menu: 1 connect, 2 callback, 9 opt out'),
  callback_at: z.string().nullable().describe('When the lead asked on this call to be called back (for an inbound call, when they pressed the call-back key)'),
  connected_to_owner: z.boolean().nullable().describe("After a connect to the owner (menu key 1, agent-first's 1, the assistant's transfer): whether the owner and the lead talked; null when none was tried or it still rings"),
  failure_message: z.string().nullable(),
})

/** A row of the calls read model as the facts call-outcome.ts reads, as get_lead's are read from the lead's record. */
function detailFacts(call: CallDetail): CallOutcomeFacts {
  return { answered: call.answered, machine: call.machine, stage: call.stage, ended: call.endedAt !== null, status: call.outcome, ownerConnected: call.ownerConnected }
}

export function callOutputOf(call: CallDetail): z.input<typeof callOutput> {
  const facts = detailFacts(call)
  return {
    decision_id: call.decisionId,
    call_id: call.callId,
    carrier: call.carrier,
    lead_id: call.leadId,
    direction: call.direction,
    from: call.from,
    to: call.to,
    purpose: call.purpose,
    attempt: call.attempt,
    decided_at: call.decidedAt,
    ended_at: call.endedAt,
    result: callResult(facts),
    status: call.outcome,
    answered_by: call.answeredBy,
    duration_seconds: call.durationSeconds,
    voicemail: call.voicemail === 'started' ? null : (call.voicemail as 'left' | 'failed' | 'skipped' | null),
    menu_choice: call.menuChoice as 'connect' | 'callback' | 'opt_out' | 'none' | null,
    callback_at: call.callbackAt,
    connected_to_owner: connectedToOwner(facts),
    failure_message: call.failureMessage,
  }
}
