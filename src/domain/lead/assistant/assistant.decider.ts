/**
 * The assistant slice: what the voice assistant's tools do to the lead, decided here and never by
 * trust in the model. `RecordAssistantAnswer` keeps an answer to one of the brief's questions
 * (length-bounded); `BookAssistantCallback` books a callback the one policy (`mayContact`) allows at
 * that moment, in the lead's zone, inside the brief's callback windows; `EndAssistantCall` records
 * the outcome and the transcript once per call. A refusal is a DomainError whose message is said back
 * to the model.
 */
import { DateTime } from 'luxon'
import type { AccountSettings } from '../../account/account-settings.ts'
import { MAX_ANSWER, type BriefQuestion } from '../../account/assistant-brief.ts'
import { mayContact } from '../../dialing/may-call.ts'
import { DomainError } from '../../shared/decider.ts'
import { callbackTime, leadCallTarget, type LeadWithCalls, type WithTexts } from '../calls/calls.decider.ts'
import type { CallbackRequested, FollowUpScheduled } from '../calls/calls.events.ts'
import { inboundCallOfDecision, type InboundState } from '../inbound/inbound.decider.ts'
import type { AppointmentsState } from '../appointments/appointments.decider.ts'
import type { AssistantAnswer, AssistantDisposition, AssistantEvent, TranscriptTurn } from './assistant.events.ts'

/** A callback further out than this is refused: the lead's interest does not keep that long. */
export const MAX_CALLBACK_DAYS = 14
/** A callback sooner than this is refused: the call is still going. */
export const MIN_CALLBACK_MS = 5 * 60 * 1000

export interface AssistantCall {
  /** The relay connected and the session began (AssistantSessionOpened): no second one for this call. */
  readonly sessionOpened: boolean
  readonly answers: readonly AssistantAnswer[]
  readonly ended: boolean
  readonly disposition: AssistantDisposition | null
  readonly callbackAt: string | null
  /** The appointment booked in the call (book_appointment); null when none. */
  readonly appointmentId: string | null
  readonly endedAt: string | null
  readonly why: string | null
}

export interface AssistantState {
  readonly calls: Readonly<Record<string, AssistantCall>>
  /** The last assistant call that ended (decision id), for get_lead and the next actions. */
  readonly lastEnded: string | null
}

export const INITIAL_ASSISTANT: AssistantState = { calls: {}, lastEnded: null }

const NEW_CALL: AssistantCall = { sessionOpened: false, answers: [], ended: false, disposition: null, callbackAt: null, appointmentId: null, endedAt: null, why: null }

export type AssistantCommand =
  /** The relay's setup for the carrier call `callId`: a session opens only for that live call of the decision, once. */
  | { type: 'OpenAssistantSession'; decisionId: string; callId: string; node: string }
  | { type: 'RecordAssistantAnswer'; decisionId: string; questions: readonly BriefQuestion[]; question: string; answer: string }
  | { type: 'BookAssistantCallback'; decisionId: string; settings: AccountSettings; at: string }
  | {
    type: 'EndAssistantCall'
    decisionId: string
    callId: string
    disposition: AssistantDisposition
    why: string | null
    provider: string
    transcript: readonly TranscriptTurn[]
    /** Schedule a callback when the call had no conversation (the lead goes back to follow-up). */
    settings: AccountSettings
    /** The appointment book_appointment booked in this call, if any: the call then ends `appointment_booked` (see below). */
    appointmentId?: string | null
  }

const COMMANDS: Readonly<Record<AssistantCommand['type'], true>> = { OpenAssistantSession: true, RecordAssistantAnswer: true, BookAssistantCallback: true, EndAssistantCall: true }

export function isAssistantCommand(command: { readonly type: string }): command is AssistantCommand {
  return Object.hasOwn(COMMANDS, command.type)
}

export function evolveAssistant(state: AssistantState, event: AssistantEvent): AssistantState {
  const id = event.data.decisionId
  const call = state.calls[id] ?? NEW_CALL
  switch (event.type) {
    case 'AssistantSessionOpened':
      return { ...state, calls: { ...state.calls, [id]: { ...call, sessionOpened: true } } }
    case 'AssistantAnswerRecorded': {
      const answers = [...call.answers.filter((a) => a.question !== event.data.question), { question: event.data.question, answer: event.data.answer }]
      return { ...state, calls: { ...state.calls, [id]: { ...call, answers } } }
    }
    case 'AssistantCallEnded': {
      const { disposition, callbackAt, endedAt, why, answers } = event.data
      const appointmentId = event.data.appointmentId ?? null
      return { calls: { ...state.calls, [id]: { ...call, answers, ended: true, disposition, callbackAt, appointmentId, endedAt, why } }, lastEnded: id }
    }
    case 'AssistantTranscriptRecorded':
      return state
  }
}

export type AssistantDecision = AssistantEvent | CallbackRequested | FollowUpScheduled

type Lead = LeadWithCalls & WithTexts & { readonly assistant: AssistantState; readonly inbound: InboundState; readonly appointments: AppointmentsState }

/**
 * Why a relay's session may not open for the carrier call `callId` of `decisionId`, or null when it
 * may: only the call Leadline placed for that decision, while it is in progress, and only once.
 */
export function sessionRefusal(state: Lead, decisionId: string, callId: string): DomainError | null {
  const call = state.dialing.calls[decisionId]
  // A person who called in: their call, while nobody else took it and it goes on (inbound.decider.ts).
  const inbound = inboundCallOfDecision(state.inbound, decisionId)
  const live = inbound !== null
    ? inbound.callId === callId && inbound.ended === null && inbound.missed === null && inbound.connected === null
    : call !== undefined && call.callId === callId && call.stage === 'placed' && !call.ended
  if (!state.exists || !live) return new DomainError('call_not_live', 'the call is not in progress')
  const mine = state.assistant.calls[decisionId]
  if (mine?.sessionOpened || mine?.ended) return new DomainError('assistant_session_exists', 'the call has had its assistant session')
  return null
}

export function decideAssistant(command: AssistantCommand, state: Lead, now: Date): AssistantDecision[] {
  const at = now.toISOString()
  const call = state.dialing.calls[command.decisionId] ?? inboundCallOfDecision(state.inbound, command.decisionId)
  if (!state.exists || !call) throw new DomainError('call_not_found', `no call decision ${command.decisionId} on this lead`)
  const mine = state.assistant.calls[command.decisionId] ?? NEW_CALL
  switch (command.type) {
    case 'OpenAssistantSession': {
      // Only the carrier call Leadline placed for this decision, while it is in progress: not an ended call's replayed handshake.
      const refused = sessionRefusal(state, command.decisionId, command.callId)
      if (refused !== null) throw refused
      return [{ type: 'AssistantSessionOpened', data: { decisionId: command.decisionId, callId: command.callId, node: command.node, at } }]
    }
    case 'RecordAssistantAnswer': {
      if (mine.ended) throw new DomainError('call_ended', 'the call has ended')
      const question = briefQuestion(command.questions, command.question)
      const answer = command.answer.replace(/\s+/g, ' ').trim()
      if (answer === '') throw new DomainError('invalid_answer', 'the answer is empty: record what the lead said, briefly')
      if (answer.length > MAX_ANSWER) throw new DomainError('invalid_answer', `the answer is longer than ${MAX_ANSWER} characters: record what the lead said, briefly`)
      return [{ type: 'AssistantAnswerRecorded', data: { decisionId: command.decisionId, question: question.question, answer, at } }]
    }
    case 'BookAssistantCallback': {
      if (mine.ended) throw new DomainError('call_ended', 'the call has ended')
      const when = Date.parse(command.at)
      if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(command.at) || Number.isNaN(when)) {
        throw new DomainError('invalid_callback_time', 'give the time as ISO 8601 with its offset, e.g. 2026-03-02T15:30:00-05:00')
      }
      const refused = callbackRefusal(state, command.settings, new Date(when), now)
      if (refused !== null) throw new DomainError('callback_refused', refused)
      return booked(state, command.decisionId, new Date(when).toISOString(), at)
    }
    case 'EndAssistantCall': {
      if (mine.ended) return []
      let callbackAt = state.dialing.calls[command.decisionId]?.callbackAt ?? null
      const events: AssistantDecision[] = []
      const appointmentId = bookedInCall(state, command.appointmentId ?? null)
      const disposition = callDisposition(command.disposition, appointmentId)
      // No conversation (a dropped socket, a failed model, no one spoke): the lead goes back to follow-up, an hour on inside the hours.
      if (disposition === 'no_conversation' && callbackAt === null && !state.doNotCall) {
        const retry = callbackTime(state, command.settings, now)
        if (retry !== null) {
          events.push(...booked(state, command.decisionId, retry, at))
          callbackAt = retry
        }
      }
      events.unshift(
        {
          type: 'AssistantCallEnded',
          data: {
            decisionId: command.decisionId, callId: command.callId, disposition, answers: [...mine.answers], callbackAt, ...(appointmentId !== null ? { appointmentId } : {}), why: command.why, provider: command.provider,
            turns: command.transcript.filter((t) => t.speaker === 'lead').length, endedAt: at,
          },
        },
        { type: 'AssistantTranscriptRecorded', data: { decisionId: command.decisionId, callId: command.callId, transcript: [...command.transcript], at } },
      )
      return events
    }
  }
}

/**
 * How the call ended: `appointment_booked` when the assistant booked an appointment in it, whatever
 * end_call said (the appointment is the outcome that matters, and a dropped socket after it is not "no
 * conversation"); except `transferred` and `opted_out`, which carry their own effects (the handoff, the
 * do-not-call mark). The appointment id is on the event either way.
 */
export function callDisposition(said: AssistantDisposition, appointmentId: string | null): AssistantDisposition {
  return appointmentId !== null && said !== 'transferred' && said !== 'opted_out' ? 'appointment_booked' : said
}

/** The appointment the engine says it booked, when the lead holds it as the assistant's booking; else null. */
function bookedInCall(state: Lead, appointmentId: string | null): string | null {
  const record = appointmentId === null ? undefined : state.appointments.appointments[appointmentId]
  return record !== undefined && record.bookedBy === 'assistant' ? record.appointmentId : null
}

function booked(state: Lead, decisionId: string, callbackAt: string, at: string): AssistantDecision[] {
  return [
    { type: 'CallbackRequested', data: { decisionId, callbackAt, at } },
    { type: 'FollowUpScheduled', data: { leadId: state.leadId, attempt: state.dialing.order.length + 1, dueAt: callbackAt, afterDecisionId: decisionId } },
  ]
}

/** The brief's question the model named: by its words (any case) or its number from 1; refused otherwise. */
export function briefQuestion(questions: readonly BriefQuestion[], named: string): BriefQuestion {
  const text = named.replace(/\s+/g, ' ').trim()
  const byNumber = /^\d{1,2}$/.test(text) ? questions[Number(text) - 1] : undefined
  const found = byNumber ?? questions.find((q) => q.question.toLowerCase() === text.toLowerCase())
  if (found) return found
  const list = questions.map((q, i) => `${i + 1}. ${q.question}`).join(' ')
  throw new DomainError('unknown_question', questions.length === 0 ? 'the brief has no questions to record answers to' : `not one of the brief's questions; use its number or its words: ${list}`)
}

/** Why a callback at `when` may not be booked, in words for the model; null when it may. */
export function callbackRefusal(state: LeadWithCalls & WithTexts, settings: AccountSettings, when: Date, now: Date): string | null {
  if (when.getTime() < now.getTime() + MIN_CALLBACK_MS) return 'that time is too soon: book a callback at least five minutes from now'
  if (when.getTime() > now.getTime() + MAX_CALLBACK_DAYS * 24 * 60 * 60 * 1000) return `that is too far ahead: book a callback within ${MAX_CALLBACK_DAYS} days`
  const target = leadCallTarget(state, 'follow_up')
  const windows = settings.assistantBrief.callbackWindows
  for (const hours of windows === null ? [settings] : [settings, { ...settings, callingHours: windows }]) {
    const check = mayContact('call', hours, target, when)
    if (!check.allowed) {
      const zone = check.leadZone ?? check.accountZone
      const next = check.nextAllowedAt === null ? '' : ` The first time allowed after it is ${DateTime.fromISO(check.nextAllowedAt).setZone(zone).toISO({ suppressMilliseconds: true })} (${zone}); offer that or another time inside the hours.`
      return `we may not call then: ${check.message}.${next}`
    }
  }
  return null
}
