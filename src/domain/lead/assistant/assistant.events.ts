/**
 * The assistant slice's events on the lead's stream (issue #29): what Leadline's voice assistant
 * recorded in a call through its tools, and how the call ended. Outcomes, not transcripts: the
 * transcript is its own event, kept in the log and removed from every answer by the recordings
 * policy (its member is `transcript`).
 */
import type { DomainEvent } from '../../shared/decider.ts'
import { plural, printable, quoted, type EventSummaries } from '../../shared/printable.ts'

export const DISPOSITIONS = ['qualified', 'not_interested', 'callback_booked', 'appointment_booked', 'transferred', 'opted_out', 'wrong_number', 'no_conversation'] as const
export type AssistantDisposition = (typeof DISPOSITIONS)[number]

export interface AssistantAnswer {
  /** The brief's question, as the brief words it. */
  readonly question: string
  /** What record_answer stored (length-bounded): never the transcript. */
  readonly answer: string
}

export interface TranscriptTurn {
  readonly speaker: 'lead' | 'assistant'
  readonly text: string
  readonly at: string
}

/** record_answer, executed: an answer to one of the brief's questions (a later answer to the same question replaces it). */
export type AssistantAnswerRecorded = DomainEvent<'AssistantAnswerRecorded', { decisionId: string; question: string; answer: string; at: string }>
/**
 * How an assistant call ended: the disposition, the answers, the callback booked (ISO UTC), and
 * `why` in Leadline's own words (a model that failed, the socket that dropped, the key pressed), never the model's.
 */
export type AssistantCallEnded = DomainEvent<
  'AssistantCallEnded',
  {
    decisionId: string
    callId: string
    disposition: AssistantDisposition
    answers: AssistantAnswer[]
    callbackAt: string | null
    /** The appointment `book_appointment` booked in the call (issue #45); absent on calls ended before it existed. */
    appointmentId?: string | null
    why: string | null
    /** `openai`, `anthropic` or `scripted`. */
    provider: string
    turns: number
    endedAt: string
  }
>
/**
 * The relay of the call's live carrier call `callId` connected and the assistant's session began,
 * claimed before a word is said: one session per call, on any node; a replayed handshake finds it taken.
 */
export type AssistantSessionOpened = DomainEvent<'AssistantSessionOpened', { decisionId: string; callId: string; node: string; at: string }>
/** Every prompt and reply of the call, in order: kept in the log, never leaves it (recordings-policy.ts). */
export type AssistantTranscriptRecorded = DomainEvent<'AssistantTranscriptRecorded', { decisionId: string; callId: string; transcript: TranscriptTurn[]; at: string }>

export type AssistantEvent = AssistantSessionOpened | AssistantAnswerRecorded | AssistantCallEnded | AssistantTranscriptRecorded

export function isAssistantEvent(event: { readonly type: string }): event is AssistantEvent {
  return Object.hasOwn(ASSISTANT_SUMMARIES, event.type)
}

export const ASSISTANT_SUMMARIES: EventSummaries<AssistantEvent> = {
  AssistantSessionOpened: (d) => `assistant session opened for call ${printable(d.callId)} on node ${printable(d.node)}`,
  AssistantAnswerRecorded: (d) => `assistant recorded an answer to ${quoted(d.question)}`,
  AssistantCallEnded: (d) =>
    `assistant call ended (${printable(d.provider)}): ${printable(d.disposition)}, ${plural(d.answers.length, 'answer')}${d.callbackAt !== null ? `, callback at ${printable(d.callbackAt)}` : ''}${d.appointmentId ? `, appointment ${printable(d.appointmentId)}` : ''}${d.why !== null ? ` (${printable(d.why)})` : ''}`,
  AssistantTranscriptRecorded: (d) => `assistant call transcript stored, ${plural(d.transcript.length, 'turn')} (not shown)`,
}
