/** Events of the `lead-{accountId}-{last10}` stream: one person's whole history. */
import type { DomainEvent } from '../shared/decider.ts'
import type { IntakeWarning, LeadFields } from './intake/normalize-lead-input.ts'
import type { PaymentEvent } from './payments/payments.decider.ts'

export const INBOUND_LEADS = { listId: 'inbound-leads', listName: 'Inbound Leads' } as const

/** The core fields a later submission may change (identity fields excepted). */
export type LeadFieldChanges = Partial<Omit<LeadFields, 'phoneLast10' | 'phoneRaw' | 'industryFields' | 'extraFields'>>

export type LeadReceived = DomainEvent<
  'LeadReceived',
  {
    leadId: string
    accountId: string
    fields: LeadFields
    receivedAt: string
    /** What intake told the sender about this submission (absent when it had nothing to say). */
    warnings?: readonly IntakeWarning[]
    /**
     * The list the lead joined as it arrived (Inbound Leads, for the webhook); absent for a person
     * first met by place_call. Older logs record the grouping as a LeadAddedToList right after.
     */
    list?: LeadList
    /**
     * Speed to lead's answer when it did not call, decided with the lead (absent when it called: a
     * CallDecided follows in the same append, or when none was decided). Older logs record it as a
     * SpeedToLeadSkipped right after.
     */
    speedToLeadSkipped?: SpeedToLeadSkip
  }
>
/** A later submission for the same person: only what changed (empty values never erase data). */
export type LeadUpdated = DomainEvent<
  'LeadUpdated',
  {
    leadId: string
    changes: LeadFieldChanges
    industryFields: Record<string, string>
    extraFields: Array<{ name: string; value: unknown }>
    updatedAt: string
    /** What intake told the sender about this submission (absent when it had nothing to say). */
    warnings?: readonly IntakeWarning[]
  }
>
export interface LeadList {
  readonly listId: string
  readonly listName: string
}
/** A lead grouped into a list after it arrived (a new lead's own list is on its LeadReceived). */
export type LeadAddedToList = DomainEvent<'LeadAddedToList', { leadId: string } & LeadList>
export type LeadDoNotCallCleared = DomainEvent<'LeadDoNotCallCleared', { leadId: string; clearedAt: string }>
/** Marked do-not-call by the account (a tool or the operator), as opposed to by the sender's own flag. */
export type LeadMarkedDoNotCall = DomainEvent<'LeadMarkedDoNotCall', { leadId: string; markedAt: string }>

/**
 * A number for this person (same last ten digits) that is not the one on record: another country
 * code, say. Recorded so it is never silent. A webhook submission's number does not replace a valid
 * number on record (`kept`: true); it replaces one that was not valid (`kept`: false, and its
 * LeadUpdated carries the change). place_call rings the number it was asked to and keeps the record.
 */
export type LeadPhoneConflict = DomainEvent<
  'LeadPhoneConflict',
  { leadId: string; storedPhone: string; receivedPhone: string; receivedRaw: string; source: 'webhook' | 'place_call'; kept: boolean; message: string; at: string }
>

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
/** Stored for the account's own records; never returned by any tool (spec §1.7). */
export type CallRecordingAvailable = DomainEvent<'CallRecordingAvailable', { decisionId: string; callId: string; recordingUrl: string; at: string }>
/** Stored for the account's own records; never returned by any tool (spec §1.7). */
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

export type LeadEvent = LeadReceived | LeadUpdated | LeadAddedToList | LeadDoNotCallCleared | LeadMarkedDoNotCall | LeadPhoneConflict | CallEvent | PaymentEvent

export function leadStream(accountId: string, phoneLast10: string): string {
  return `lead-${accountId}-${phoneLast10}`
}

/** Parses `lead-{accountId}-{last10}`; account ids never contain a dash. */
export function parseLeadStream(stream: string): { accountId: string; phoneLast10: string } | null {
  const match = /^lead-([^-]+)-(\d{10})$/.exec(stream)
  return match ? { accountId: match[1] as string, phoneLast10: match[2] as string } : null
}
