/**
 * The inbound slice's events on the lead's stream (issue #43): a person calling the account's number.
 * Keyed by the carrier's call id (`callId`, Twilio's CallSid), one call a person. Never a recording or
 * its URL: a voicemail stays with the carrier and is fetched by call id for a signed-in owner only.
 */
import type { DomainEvent } from '../../shared/decider.ts'
import { printable, type EventSummaries } from '../../shared/printable.ts'

/** What answers the call first: the owner numbers, the voice assistant, or the voicemail/callback menu. */
export type InboundRoute = 'owners' | 'assistant' | 'voicemail'

/**
 * A call came in to the account's number `to` from `from` (the lead's full number). `newLead`: the
 * caller was not on record and became a lead (source `inbound call`) in the same append.
 * `withinBusinessHours`: as the account's business hours read at `at`.
 */
export type InboundCallReceived = DomainEvent<
  'InboundCallReceived',
  { leadId: string; callId: string; from: string; to: string; newLead: boolean; withinBusinessHours: boolean; route: InboundRoute; at: string }
>
/**
 * The caller is talking to someone: an owner who pressed 1 on the whisper (`by: owner`, `leg` the
 * owner number's index, from 0) or the voice assistant (`by: assistant`). Claimed once a call: a
 * second press finds it taken and connects no one.
 */
export type InboundCallConnected = DomainEvent<
  'InboundCallConnected',
  { callId: string; by: 'owner' | 'assistant'; leg: number | null; ownerNumber: string | null; at: string }
>
/**
 * Nobody took the call. `reason`: outside_business_hours, no_owner_answered, no_owner_numbers,
 * caller_hung_up. `callbackRequested`: the caller pressed the key that asks for a call back.
 */
export type InboundCallMissed = DomainEvent<'InboundCallMissed', { callId: string; reason: string; callbackRequested: boolean; at: string }>
/** The caller left a voicemail of `durationSeconds`; the recording stays with the carrier (no URL here, ever). */
export type InboundVoicemailLeft = DomainEvent<'InboundVoicemailLeft', { callId: string; durationSeconds: number | null; at: string }>

/** After a missed call, the caller pressed the key that asks for a call back (get_next_actions lists them). */
export type InboundCallbackRequested = DomainEvent<'InboundCallbackRequested', { callId: string; at: string }>
/** The carrier's final word on the call (`completed`, `busy`, `no-answer`, `failed`, `canceled`) and its length. */
export type InboundCallEnded = DomainEvent<'InboundCallEnded', { callId: string; status: string; durationSeconds: number | null; at: string }>

export type InboundEvent = InboundCallReceived | InboundCallConnected | InboundCallMissed | InboundVoicemailLeft | InboundCallbackRequested | InboundCallEnded

export function isInboundEvent(event: { readonly type: string }): event is InboundEvent {
  return Object.hasOwn(INBOUND_SUMMARIES, event.type)
}

const ROUTE: Readonly<Record<InboundRoute, string>> = { owners: 'ringing the owner numbers', assistant: 'the assistant answers', voicemail: 'voicemail' }
const MISSED: Readonly<Record<string, string>> = {
  outside_business_hours: 'outside business hours',
  no_owner_answered: 'no owner took it',
  no_owner_numbers: 'no owner numbers set',
  caller_hung_up: 'the caller hung up',
}

export const INBOUND_SUMMARIES: EventSummaries<InboundEvent> = {
  InboundCallReceived: (d) =>
    `inbound call from ${printable(d.from)} to ${printable(d.to)}${d.newLead ? ' (a new lead)' : ''}: ${ROUTE[d.route] ?? printable(d.route)}${d.withinBusinessHours ? '' : ', outside business hours'}`,
  InboundCallConnected: (d) =>
    d.by === 'assistant' ? 'inbound call answered by the assistant' : `inbound call taken by owner number ${(d.leg ?? 0) + 1}${d.ownerNumber !== null ? ` (${printable(d.ownerNumber)})` : ''}`,
  InboundCallMissed: (d) => `inbound call missed: ${MISSED[d.reason] ?? printable(d.reason)}${d.callbackRequested ? '; the caller asked for a call back' : ''}`,
  InboundVoicemailLeft: (d) => `the caller left a voicemail${d.durationSeconds !== null ? ` of ${d.durationSeconds} s` : ''} (kept with the carrier)`,
  InboundCallbackRequested: () => 'the caller asked for a call back',
  InboundCallEnded: (d) => `inbound call ended: ${printable(d.status)}${d.durationSeconds !== null ? `, ${d.durationSeconds} s` : ''}`,
}
