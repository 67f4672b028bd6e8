/**
 * Events of the `lead-{accountId}-{last10}` stream: one person's whole history, as the union of the
 * lead aggregate's slices (intake, calls, payments, texts, assistant), each of which declares its own.
 */
import { INTAKE_SUMMARIES, type IntakeEvent } from './intake/intake.events.ts'
import { CALL_EFFECTS, CALL_SUMMARIES, type CallEvent } from './calls/calls.events.ts'
import { PAYMENT_EFFECTS, PAYMENT_SUMMARIES, type PaymentEvent } from './payments/payments.events.ts'
import { TEXT_EFFECTS, TEXT_SUMMARIES, type TextEvent } from './texts/texts.events.ts'
import { ASSISTANT_SUMMARIES, type AssistantEvent } from './assistant/assistant.events.ts'
import type { EventSummaries } from '../shared/printable.ts'
import type { Effect } from '../shared/effect.ts'

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

export type LeadEvent = IntakeEvent | CallEvent | PaymentEvent | TextEvent | AssistantEvent

/** Every lead event type's one-line summary, from its slice: also the list of the lead's own event types. */
export const LEAD_SUMMARIES: EventSummaries<LeadEvent> = { ...INTAKE_SUMMARIES, ...CALL_SUMMARIES, ...PAYMENT_SUMMARIES, ...TEXT_SUMMARIES, ...ASSISTANT_SUMMARIES }

/** Every effect a process performs on a lead, as its slice declares it: the claims read model follows them all. */
export const LEAD_EFFECTS: readonly Effect[] = [...CALL_EFFECTS, ...PAYMENT_EFFECTS, ...TEXT_EFFECTS]

export function leadStream(accountId: string, phoneLast10: string): string {
  return `lead-${accountId}-${phoneLast10}`
}

/** Parses `lead-{accountId}-{last10}`; account ids never contain a dash. */
export function parseLeadStream(stream: string): { accountId: string; phoneLast10: string } | null {
  const match = /^lead-([^-]+)-(\d{10})$/.exec(stream)
  return match ? { accountId: match[1] as string, phoneLast10: match[2] as string } : null
}
