/** The calls slice's events on the lead's stream: decisions to ring, what the carrier did, follow-ups. */
import type { DomainEvent } from '../../shared/decider.ts'
import { printable, type EventSummaries } from '../../shared/printable.ts'

export type CallPurpose = 'speed_to_lead' | 'follow_up' | 'place_call'

/** Why speed to lead did not call: the troubleshooting answer of spec §4.1.7. */
export interface SpeedToLeadSkip {
  readonly reason: string
  readonly message: string
  readonly nextAllowedAt: string | null
}
/**
 * Speed to lead did not call, recorded apart from the lead (older logs; a new lead now carries it
 * as LeadReceived's `speedToLeadSkipped`).
 */
export type SpeedToLeadSkipped = DomainEvent<'SpeedToLeadSkipped', { leadId: string; skippedAt: string } & SpeedToLeadSkip>
/** The decision to ring this person once. Exactly one exists per decision id, on any number of nodes. */
export type CallDecided = DomainEvent<
  'CallDecided',
  {
    leadId: string
    decisionId: string
    purpose: CallPurpose
    attempt: number
    from: string
    to: string
    decidedAt: string
    idempotencyKey: string | null
  }
>
/** Recorded before the carrier is asked, so a crash leaves "outcome unknown", never a second ring. */
export type CallAttemptStarted = DomainEvent<'CallAttemptStarted', { decisionId: string; node: string; startedAt: string }>
export type CallPlaced = DomainEvent<'CallPlaced', { decisionId: string; callId: string; carrier: string; placedAt: string }>
export type CallFailed = DomainEvent<
  'CallFailed',
  { decisionId: string; failure: string; message: string; carrierCode: number | null; failedAt: string }
>
export type CallOutcomeUnknown = DomainEvent<'CallOutcomeUnknown', { decisionId: string; reason: string; at: string }>
export type CallAnswered = DomainEvent<'CallAnswered', { decisionId: string; callId: string; answeredBy: string | null; at: string }>
export type CallNotAnswered = DomainEvent<'CallNotAnswered', { decisionId: string; callId: string; status: string; at: string }>
export type CallCompleted = DomainEvent<'CallCompleted', { decisionId: string; callId: string; durationSeconds: number | null; at: string }>
/** Stored for the account's own records; never returned by any tool (spec §1.7, recordings-policy.ts). */
export type CallRecordingAvailable = DomainEvent<'CallRecordingAvailable', { decisionId: string; callId: string; recordingUrl: string; at: string }>
/** Stored for the account's own records; never returned by any tool (spec §1.7, recordings-policy.ts). */
export type CallTranscriptAvailable = DomainEvent<'CallTranscriptAvailable', { decisionId: string; callId: string; transcript: string; at: string }>
export type FollowUpScheduled = DomainEvent<
  'FollowUpScheduled',
  { leadId: string; attempt: number; dueAt: string; afterDecisionId: string }
>
export type FollowUpRescheduled = DomainEvent<'FollowUpRescheduled', { attempt: number; dueAt: string; reason: string; message: string }>
export type FollowUpStopped = DomainEvent<'FollowUpStopped', { reason: string; message: string; at: string }>

export type CallEvent =
  | SpeedToLeadSkipped
  | CallDecided
  | CallAttemptStarted
  | CallPlaced
  | CallFailed
  | CallOutcomeUnknown
  | CallAnswered
  | CallNotAnswered
  | CallCompleted
  | CallRecordingAvailable
  | CallTranscriptAvailable
  | FollowUpScheduled
  | FollowUpRescheduled
  | FollowUpStopped

export function isCallEvent(event: { readonly type: string }): event is CallEvent {
  return Object.hasOwn(CALL_SUMMARIES, event.type)
}

const PURPOSE: Readonly<Record<string, string>> = { speed_to_lead: 'speed to lead', follow_up: 'follow-up', place_call: 'place_call tool' }

/** Why speed to lead did not call, in a line (also part of a new lead's LeadReceived line). */
export function speedToLeadSkipLine(skip: SpeedToLeadSkip): string {
  return `speed to lead did not call: ${printable(skip.message)} (${printable(skip.reason)})${skip.nextAllowedAt ? `; next allowed ${printable(skip.nextAllowedAt)}` : ''}`
}

// Every type of the union, once (the compiler refuses a missing or a stray one): also what `is…Event` checks.
export const CALL_SUMMARIES: EventSummaries<CallEvent> = {
  SpeedToLeadSkipped: (d) => speedToLeadSkipLine(d),
  CallDecided: (d) =>
    `call decided: ${PURPOSE[d.purpose] ?? printable(d.purpose)}, attempt ${d.attempt}, ${printable(d.from)} → ${printable(d.to)}${d.idempotencyKey !== null ? ' (idempotency key given)' : ''}`,
  CallAttemptStarted: (d) => `call attempt started on node ${printable(d.node)}`,
  CallPlaced: (d) => `call placed through ${printable(d.carrier)} (call ${printable(d.callId)})`,
  CallFailed: (d) => `call failed: ${printable(d.failure)}: ${printable(d.message)}${d.carrierCode !== null ? ` (carrier code ${d.carrierCode})` : ''}`,
  CallOutcomeUnknown: (d) => `call outcome unknown: ${printable(d.reason)} (never retried)`,
  CallAnswered: (d) => `call answered${d.answeredBy ? ` (by ${printable(d.answeredBy)})` : ''}`,
  CallNotAnswered: (d) => `call not answered: ${printable(d.status)}`,
  CallCompleted: (d) => `call completed${d.durationSeconds !== null ? ` after ${d.durationSeconds} s` : ''}`,
  CallRecordingAvailable: () => 'recording stored (not shown)',
  CallTranscriptAvailable: () => 'transcript stored (not shown)',
  FollowUpScheduled: (d) => `follow-up scheduled: attempt ${d.attempt} due ${printable(d.dueAt)}`,
  FollowUpRescheduled: (d) => `follow-up moved: attempt ${d.attempt} due ${printable(d.dueAt)}: ${printable(d.message)} (${printable(d.reason)})`,
  FollowUpStopped: (d) => `follow-ups stopped: ${printable(d.message)} (${printable(d.reason)})`,
}
