/**
 * Twilio's agent-first callbacks, at `/api/carrier/twilio/<hook>?decision=…`, signature already
 * checked by `handleTwilioCallback`: `agent-key` (the owner leg's `<Gather>`: `Digits` and the leg's
 * `CallSid`) and `lead-dial` (the `<Dial>` of the lead ended: `DialCallStatus`). Both are safe twice:
 * the calls slice records a key once per leg and claims the dial of the lead once, so a repeated
 * `Digits=1` hears a goodbye and dials no one.
 */
import {
  carrierCallbackUrl,
  type AnsweredCall,
  type CarrierCallback,
  type CarrierCallbackAnswer,
  type CarrierCallbackContext,
} from '../carrier.port.ts'
import { agentKeyTwiml, leadDialTwiml, ownerWhisperTwiml } from './agent-first-twiml.ts'

export const AGENT_FIRST_HOOKS: readonly string[] = ['agent-key', 'lead-dial']

const TWIML = 'text/xml; charset=utf-8'

function twiml(body: string): CarrierCallbackAnswer {
  return { kind: 'answer', status: 200, contentType: TWIML, body }
}

/** The answer hook of an agent-first decision: the owner's leg picked up. */
export function agentFirstAnswer(call: AnsweredCall, publicUrl: string): CarrierCallbackAnswer {
  return twiml(ownerWhisperTwiml(call, carrierCallbackUrl(publicUrl, 'twilio', 'agent-key', { decision: call.decisionId })))
}

/** Answers `agent-key` and `lead-dial` (a signed request); 404 for a decision Leadline does not know. */
export async function handleAgentFirstCallback(callback: CarrierCallback, context: CarrierCallbackContext): Promise<CarrierCallbackAnswer> {
  const decision = callback.query.decision
  if (typeof decision !== 'string') return { kind: 'refused', refusal: 'not_found', detail: 'unknown call decision' }
  if (callback.hook === 'agent-key') {
    const callId = posted(callback, 'CallSid')
    if (callId === '' || callId.length > 128) return { kind: 'refused', refusal: 'invalid_request', detail: 'CallSid is required' }
    const answer = await context.pressAgentKey(decision, callId, posted(callback, 'Digits'))
    if (!answer) return { kind: 'refused', refusal: 'not_found', detail: 'unknown call decision' }
    return twiml(agentKeyTwiml(answer, carrierCallbackUrl(context.publicUrl, 'twilio', 'lead-dial', { decision })))
  }
  const status = posted(callback, 'DialCallStatus')
  if (status === '') return { kind: 'refused', refusal: 'invalid_request', detail: 'DialCallStatus is required' }
  if (!(await context.recordLeadDial(decision, status))) return { kind: 'refused', refusal: 'not_found', detail: 'unknown call decision' }
  return twiml(leadDialTwiml(status))
}

/** A posted form field, trimmed; '' when absent. */
function posted(callback: CarrierCallback, name: string): string {
  const value = callback.params[name]
  const first = Array.isArray(value) ? value[0] : value
  return typeof first === 'string' ? first.trim() : ''
}
