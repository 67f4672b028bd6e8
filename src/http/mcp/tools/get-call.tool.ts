/** `get_call` (read): one call of the account, by Leadline's call id or the carrier's. */
import { z } from 'zod'
import { DomainError } from '../../../domain/shared/decider.ts'
import { callOutput, callOutputOf } from '../call-view.ts'
import { defineTool } from '../tool.ts'

export const tool = defineTool({
  name: 'get_call',
  title: 'Get a call',
  summary: 'One call and how it went',
  description:
    "One call of this account, by the carrier's call id (call_id, as place_call and list_calls return it) or Leadline's (decision_id, from list_calls): its direction (outbound, or inbound when the person called the account's number), its result (answered, machine, no_answer, busy, failed, unknown, agent_unavailable, missed, in_progress), the carrier's status, who answered, the duration, voicemail, the key the lead pressed, the callback they asked for, and whether they were connected to the owner. Never a recording or a transcript. A call that is not this account's is call_not_found.",
  scope: 'read',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: {
    call_id: z.string().min(1).max(100).describe("The carrier's call id (Twilio's CA…, from place_call or list_calls) or Leadline's decision_id (dec_…, from list_calls)"),
  },
  output: z.object({ call: callOutput }),
  async run(args, context) {
    const call = context.services.calls.detail(context.account.accountId, args.call_id)
    if (call === null) throw new DomainError('call_not_found', 'no call with that id in this account')
    return { call: callOutputOf(call) }
  },
})
