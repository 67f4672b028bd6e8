/** The calls slice's events on the lead's stream: decisions to ring, what the carrier did, follow-ups. */
import type { DomainEvent } from '../../shared/decider.ts'
import { effectOf, type Effect } from '../../shared/effect.ts'

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

// Every type of the union, once: the compiler refuses a missing or a stray one.
const CALL_EVENT_TYPES: { readonly [T in CallEvent['type']]: true } = {
  SpeedToLeadSkipped: true, CallDecided: true, CallAttemptStarted: true, CallPlaced: true, CallFailed: true, CallOutcomeUnknown: true,
  CallAnswered: true, CallNotAnswered: true, CallCompleted: true, CallRecordingAvailable: true, CallTranscriptAvailable: true,
  FollowUpScheduled: true, FollowUpRescheduled: true, FollowUpStopped: true,
}

export function isCallEvent(event: { readonly type: string }): event is CallEvent {
  return Object.hasOwn(CALL_EVENT_TYPES, event.type)
}

/**
 * The dialer's effect: a call decision, claimed once before the carrier is asked, ended by what the
 * carrier did, or refused as it went out (CallFailed with no claim: calling hours had closed, do-not-call).
 */
export const CALL_EFFECT = effectOf<CallEvent>()({
  name: 'dialer',
  decision: 'CallDecided',
  decidedAt: 'decidedAt',
  id: 'decisionId',
  claims: { CallAttemptStarted: 'startedAt' },
  outcomes: ['CallPlaced', 'CallFailed', 'CallOutcomeUnknown'],
})

/** The slice's effects: the claims read model follows each (lead.events.ts gathers every slice's). */
export const CALL_EFFECTS: readonly Effect[] = [CALL_EFFECT]
