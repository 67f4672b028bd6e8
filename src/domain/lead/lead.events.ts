/**
 * Events of the `lead-{accountId}-{last10}` stream: one person's whole history, as the union of the
 * lead aggregate's slices (intake, calls, payments, texts, assistant), each of which declares its own,
 * and the stream's name.
 */
// The union, the summaries and the effects are composed with the slices themselves, in lead.decider.ts.
export { LEAD_EFFECTS, LEAD_SUMMARIES } from './lead.decider.ts'
export type { LeadEvent } from './lead.decider.ts'
export { INBOUND_LEADS } from './intake/intake.events.ts'
export type {
  IntakeEvent, LeadAddedToList, LeadDoNotCallCleared, LeadFieldChanges, LeadList, LeadMarkedDoNotCall, LeadPhoneConflict, LeadReceived, LeadUpdated,
  LeadReplied, TextReceived, TextReplyClaimed, TextReplyFailed, TextReplyKind, TextReplySent,
} from './intake/intake.events.ts'
export type {
  CallAnswered, CallAttemptStarted, CallCompleted, CallDecided, CallEvent, CallFailed, CallNotAnswered, CallOutcomeUnknown, CallPlaced, CallPurpose,
  CallRecordingAvailable, CallTranscriptAvailable, FollowUpRescheduled, FollowUpScheduled, FollowUpStopped, SpeedToLeadSkip, SpeedToLeadSkipped,
} from './calls/calls.events.ts'
export type { PaymentEvent } from './payments/payments.events.ts'
export type { TextAttemptStarted, TextDecided, TextEvent, TextFailed, TextOutcomeUnknown, TextReason, TextSent } from './texts/texts.events.ts'

export type { AssistantAnswerRecorded, AssistantCallEnded, AssistantDisposition, AssistantEvent, AssistantTranscriptRecorded } from './assistant/assistant.events.ts'

export function leadStream(accountId: string, phoneLast10: string): string {
  return `lead-${accountId}-${phoneLast10}`
}

/** Parses `lead-{accountId}-{last10}`; account ids never contain a dash. */
export function parseLeadStream(stream: string): { accountId: string; phoneLast10: string } | null {
  const match = /^lead-([^-]+)-(\d{10})$/.exec(stream)
  return match ? { accountId: match[1] as string, phoneLast10: match[2] as string } : null
}
