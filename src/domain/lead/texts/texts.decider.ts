/**
 * Texts to one lead: the part of the lead aggregate that decides to text the person (the send_sms
 * tool, a follow-up text step), claims each text before the carrier is asked, and records what the
 * carrier did. Deciding is separate from doing: `TextDecided` is the decision, appended with an
 * expected revision; the texter claims it (`TextAttemptStarted`) and performs it, so a person is
 * texted at most once per decision, on any number of nodes and across crashes.
 *
 * A text obeys the calling rules (may-call.ts, channel `text`): do-not-call, the caller ID, the
 * destination allow-list, the account's calling hours and the lead's hours of every rule that reaches
 * them; a state's daily cap counts texts with calls, the account's call limit does not count texts.
 */
import type { AccountSettings } from '../../account/account-settings.ts'
import { mayContact, type CallTargetFacts, type ContactCheck } from '../../dialing/may-call.ts'
import { DomainError } from '../../shared/decider.ts'
import type { DialingState } from '../calls/calls.decider.ts'
import type { IntakeState } from '../intake/intake.decider.ts'
import { leadAttemptTimes } from '../calls/lead-attempts.ts'
import { MAX_TEXT_CHARACTERS, textSegments, withOptOutLine, type TextSegments } from './text-body.ts'
import type { TextDeliveryStatus, TextEvent, TextReason } from './texts.events.ts'
import { MISSED_CALL_TEXT_EVERY_MS, MISSED_CALL_TEXT_WITHIN_MS, renderMissedCallText } from './missed-call-text.ts'
import { INITIAL_APPOINTMENTS, type AppointmentsState } from '../appointments/appointments.decider.ts'
import {
  INITIAL_APPOINTMENT_TEXTS, decideAppointmentTexts, evolveAppointmentTexts, type AppointmentTextCommand, type AppointmentTextsState, type TextsSlicePorts,
} from './appointment-texts.ts'

export type TextStage = 'decided' | 'started' | 'sent' | 'failed' | 'unknown' | 'expired'

export interface TextRecord {
  readonly textId: string
  readonly reason: TextReason
  readonly from: string
  readonly to: string
  readonly body: string
  readonly messagingService: string | null
  readonly segments: number
  readonly step: number | null
  readonly idempotencyKey: string | null
  readonly decidedAt: string
  readonly stage: TextStage
  readonly startedAt: string | null
  readonly messageId: string | null
  readonly carrier: string | null
  /** Why it was not sent (`rejected`, `do_not_call`, `unknown_outcome`, …) and what was said. */
  readonly failure: string | null
  readonly failureMessage: string | null
  /** When it was sent, failed or its outcome became unknown. */
  readonly endedAt: string | null
  /** The carrier's delivery receipt (its final status and error code); null until one came. */
  readonly delivery: TextDeliveryStatus | null
  readonly deliveryErrorCode: number | null
}

export interface TextsState extends AppointmentTextsState {
  readonly texts: Readonly<Record<string, TextRecord>>
  /** Text ids in the order they were decided. */
  readonly order: readonly string[]
  /** Missed inbound calls whose text-back was decided: the call id → the text's id, or null when none was sent (skipped). */
  readonly textBacks: Readonly<Record<string, string | null>>
  /** The lead's last text the owner read in the console (its message id); null before they read any. */
  readonly readThrough: string | null
}

export const INITIAL_TEXTS: TextsState = { texts: {}, order: [], textBacks: {}, readThrough: null, ...INITIAL_APPOINTMENT_TEXTS }

/** What the texts slice reads of the lead: who the person is, whether they may be contacted, their calls (a state's cap counts them), texts and (for their texts) appointments. */
export type LeadWithTexts = IntakeState & { readonly dialing: DialingState; readonly texts: TextsState; readonly appointments?: AppointmentsState }
type LeadWithAppointmentTexts = LeadWithTexts & { readonly appointments: AppointmentsState }

export type TextCommand =
  /** `body`: as the caller wrote it; the decision holds it with the opt-out line. `idempotencyKey`: one text per key and lead. */
  | { type: 'DecideText'; settings: AccountSettings; textId: string; reason: TextReason; body: string; idempotencyKey: string | null; step?: number }
  /** With `settings`, the text is checked again as it goes out (do-not-call, the hours). */
  | { type: 'StartTextAttempt'; textId: string; node: string; settings?: AccountSettings }
  | { type: 'RecordTextSent'; textId: string; messageId: string; carrier: string }
  | { type: 'RecordTextFailed'; textId: string; failure: string; message: string; carrierCode: number | null }
  | { type: 'RecordTextUnknown'; textId: string; reason: string }
  /** The carrier's receipt for a text it took: only a final status is recorded, once a text. */
  | { type: 'RecordTextDelivery'; textId: string; messageId: string; status: TextDeliveryStatus; errorCode: number | null }
  /** A text decided (or claimed) before the backup a restore brought back, not known as sent: never sent. */
  | { type: 'ExpireText'; textId: string; reason: string }
  /**
   * Text back the caller of missed inbound call `callId` (missed at `missedAt`) once, or record why not.
   * `business`: the account's name for `{business}`; `textId`: the text's id if one is decided.
   */
  | { type: 'DecideMissedCallText'; settings: AccountSettings; business: string; callId: string; missedAt: string; textId: string }
  /** The owner opened the lead's conversation: every text received so far is read (nothing when none is new). */
  | { type: 'MarkConversationRead' }
  /** An appointment's confirmation and reminders (appointment-texts.ts). */
  | AppointmentTextCommand

// Every type of the union, once: the compiler refuses a missing or a stray one.
const TEXT_COMMAND_TYPES: { readonly [T in TextCommand['type']]: true } = {
  DecideText: true, StartTextAttempt: true, RecordTextSent: true, RecordTextFailed: true, RecordTextUnknown: true, RecordTextDelivery: true, ExpireText: true,
  DecideMissedCallText: true, MarkConversationRead: true, ScheduleAppointmentTexts: true, DecideAppointmentText: true,
}

export function isTextCommand(command: { readonly type: string }): command is TextCommand {
  return Object.hasOwn(TEXT_COMMAND_TYPES, command.type)
}

function update(state: TextsState, textId: string, change: Partial<TextRecord>): TextsState {
  const text = state.texts[textId]
  if (!text) return state
  return { ...state, texts: { ...state.texts, [textId]: { ...text, ...change } } }
}

export function evolveTexts(state: TextsState, event: TextEvent): TextsState {
  switch (event.type) {
    case 'AppointmentTextsScheduled':
    case 'AppointmentTextDeferred':
    case 'AppointmentTextSkipped':
      return { ...state, ...evolveAppointmentTexts(state, event) }
    case 'TextDecided': {
      const d = event.data
      const text: TextRecord = {
        textId: d.textId, reason: d.reason, from: d.from, to: d.to, body: d.body, messagingService: d.messagingService, segments: d.segments,
        step: d.step ?? null, idempotencyKey: d.idempotencyKey, decidedAt: d.at, stage: 'decided', startedAt: null, messageId: null, carrier: null,
        failure: null, failureMessage: null, endedAt: null, delivery: null, deliveryErrorCode: null,
      }
      return { ...state, ...evolveAppointmentTexts(state, event), texts: { ...state.texts, [d.textId]: text }, order: [...state.order, d.textId] }
    }
    case 'TextAttemptStarted':
      return update(state, event.data.textId, { stage: 'started', startedAt: event.data.at })
    case 'TextSent':
      return update(state, event.data.textId, { stage: 'sent', messageId: event.data.messageId, carrier: event.data.carrier, endedAt: event.data.at })
    case 'TextDelivered':
      // The stage stays: a receipt can come before TextSent is appended (the carrier is quick), which still records it.
      return update(state, event.data.textId, { delivery: event.data.status, deliveryErrorCode: event.data.errorCode })
    case 'TextFailed':
      return update(state, event.data.textId, { stage: 'failed', failure: event.data.failure, failureMessage: event.data.message, endedAt: event.data.at })
    case 'TextOutcomeUnknown':
      return update(state, event.data.textId, { stage: 'unknown', failure: 'unknown_outcome', failureMessage: event.data.reason, endedAt: event.data.at })
    case 'TextExpired':
      return update(state, event.data.textId, { stage: 'expired', failure: 'expired', failureMessage: event.data.reason, endedAt: event.data.at })
    case 'MissedCallTextSent':
      return { ...state, textBacks: { ...state.textBacks, [event.data.callId]: event.data.textId } }
    case 'MissedCallTextSkipped':
      return { ...state, textBacks: { ...state.textBacks, [event.data.callId]: null } }
    case 'ConversationRead':
      return { ...state, readThrough: event.data.throughMessageId }
    default: {
      const _: never = event
      return state
    }
  }
}

/** The text as it would go out: the final body (opt-out line included), its segments, and the Messaging Service it goes through. */
export interface ComposedText extends TextSegments {
  readonly body: string
  readonly messagingService: string | null
}

/** Composes a caller's body for this account; refuses an empty one or one longer than the carrier takes. */
export function composeText(settings: AccountSettings, body: string): ComposedText {
  if (body.trim() === '') throw new DomainError('body_required', 'the text has no body')
  const final = withOptOutLine(body)
  if (final.length > MAX_TEXT_CHARACTERS) {
    throw new DomainError('text_too_long', `the text is ${final.length} characters with its opt-out line; at most ${MAX_TEXT_CHARACTERS} go in one message`)
  }
  return { body: final, messagingService: settings.messagingService, ...textSegments(final) }
}

function textFacts(state: LeadWithTexts, phone?: string): CallTargetFacts {
  const fields = state.fields
  const to = phone ?? fields?.phone ?? ''
  return { phone: to, ...(fields?.state ? { state: fields.state } : {}), doNotCall: state.doNotCall, suppressed: Object.hasOwn(state.suppressed, to) }
}

/** What the policy weighs for a new text to this lead: calls and texts decided so far count toward a state's cap. */
export function leadTextTarget(state: LeadWithTexts): CallTargetFacts {
  return {
    ...textFacts(state),
    attemptTimes: leadAttemptTimes(state.dialing),
    textTimes: state.texts.order.map((id) => state.texts.texts[id]?.decidedAt ?? ''),
  }
}

/** May this lead be texted now? The one policy, asked for the text channel. */
export function checkText(settings: AccountSettings, state: LeadWithTexts, now: Date): ContactCheck {
  return mayContact('text', settings, leadTextTarget(state), now)
}

/** A refusal as send_sms reports it: the rule's code, the rule, when a text is next allowed. */
export function textRefused(check: ContactCheck): DomainError {
  return new DomainError(check.reason as string, check.message, {
    next_allowed_at: check.nextAllowedAt, daily_limit: check.dailyLimit, ...(check.rule === undefined ? {} : { rule: check.rule }),
  })
}

/** The text a caller's idempotency key decided on this lead, if any. */
export function textByIdempotencyKey(state: LeadWithTexts, idempotencyKey: string): TextRecord | undefined {
  return state.texts.order.map((id) => state.texts.texts[id] as TextRecord).find((t) => t.idempotencyKey === idempotencyKey)
}

function requireText(state: LeadWithTexts, textId: string): TextRecord {
  const text = state.texts.texts[textId]
  if (!text) throw new DomainError('text_not_found', `no text ${textId} on this lead`)
  return text
}

export function decideTexts(command: TextCommand, state: LeadWithTexts, now: Date): TextEvent[] {
  const at = now.toISOString()
  switch (command.type) {
    case 'DecideText': {
      if (!state.exists || !state.fields) throw new DomainError('lead_not_found', 'lead not found')
      // The same key on the same lead is the same text: decided once, whatever the retries.
      if (command.idempotencyKey !== null && textByIdempotencyKey(state, command.idempotencyKey)) return []
      const composed = composeText(command.settings, command.body)
      const check = checkText(command.settings, state, now)
      if (!check.allowed) throw textRefused(check)
      return [
        {
          type: 'TextDecided',
          data: {
            leadId: state.leadId,
            textId: command.textId,
            reason: command.reason,
            from: command.settings.callerId as string,
            to: state.fields.phone,
            body: composed.body,
            messagingService: composed.messagingService,
            segments: composed.segments,
            ...(command.step === undefined ? {} : { step: command.step }),
            idempotencyKey: command.idempotencyKey,
            at,
          },
        },
      ]
    }
    case 'StartTextAttempt': {
      const text = requireText(state, command.textId)
      // Claimed before (here, on another node, or before a crash): never a second text.
      if (text.stage !== 'decided') return []
      // A text can wait its turn (a restart): the lead may have become do-not-call or the hours closed since;
      // it was counted toward a daily cap when decided.
      const check = command.settings ? mayContact('text', command.settings, textFacts(state, text.to), now) : null
      if (check && !check.allowed) {
        return [{ type: 'TextFailed', data: { textId: text.textId, failure: check.reason as string, message: `not sent: ${check.message}`, carrierCode: null, at } }]
      }
      return [{ type: 'TextAttemptStarted', data: { textId: text.textId, node: command.node, at } }]
    }
    case 'RecordTextSent': {
      const text = requireText(state, command.textId)
      if (text.stage !== 'started') return []
      return [{ type: 'TextSent', data: { textId: text.textId, messageId: command.messageId, carrier: command.carrier, at } }]
    }
    case 'RecordTextFailed': {
      const text = requireText(state, command.textId)
      if (text.stage !== 'started') return []
      return [{ type: 'TextFailed', data: { textId: text.textId, failure: command.failure, message: command.message, carrierCode: command.carrierCode, at } }]
    }
    case 'RecordTextUnknown': {
      const text = requireText(state, command.textId)
      if (text.stage !== 'started') return []
      return [{ type: 'TextOutcomeUnknown', data: { textId: text.textId, reason: command.reason, at } }]
    }
    case 'RecordTextDelivery': {
      const text = requireText(state, command.textId)
      // One receipt a text: a repeat, or a later one out of order, changes nothing; a text never handed to the carrier has none.
      if (text.delivery !== null || !(text.stage === 'started' || text.stage === 'sent' || text.stage === 'unknown')) return []
      if (text.messageId !== null && text.messageId !== command.messageId) return []
      return [{ type: 'TextDelivered', data: { textId: text.textId, messageId: command.messageId, status: command.status, errorCode: command.errorCode, at } }]
    }
    case 'ExpireText': {
      const text = requireText(state, command.textId)
      if (text.stage !== 'decided' && text.stage !== 'started') return []
      return [{ type: 'TextExpired', data: { textId: text.textId, reason: command.reason, at } }]
    }
    case 'DecideMissedCallText':
      return decideMissedCallText(command, state, now)
    case 'ScheduleAppointmentTexts':
    case 'DecideAppointmentText':
      return decideAppointmentTexts(command, { ...state, appointments: state.appointments ?? INITIAL_APPOINTMENTS }, now, APPOINTMENT_TEXT_PORTS)
    case 'MarkConversationRead': {
      if (!state.exists) throw new DomainError('lead_not_found', 'lead not found')
      const received = state.textsReceived
      const last = received.at(-1)
      // Nothing received, or read through the latest already: reading again changes nothing.
      if (last === undefined || last === state.texts.readThrough) return []
      const unread = received.length - (state.texts.readThrough === null ? 0 : received.lastIndexOf(state.texts.readThrough) + 1)
      return [{ type: 'ConversationRead', data: { leadId: state.leadId, throughMessageId: last, unread, at } }]
    }
    default: {
      const _: never = command
      throw new DomainError('unknown_command', `the texts slice has no command ${(command as { type: string }).type}`)
    }
  }
}

/** What the appointment texts borrow of this slice: the one contact check, a text's decision, evolve. */
const APPOINTMENT_TEXT_PORTS: TextsSlicePorts<LeadWithAppointmentTexts> = {
  check: checkText,
  decideText: (settings, lead, text, now) =>
    decideTexts({ type: 'DecideText', settings, textId: text.textId, reason: text.reason, body: text.body, idempotencyKey: null }, lead, now).map((event) =>
      event.type === 'TextDecided' ? { ...event, data: { ...event.data, appointmentId: text.appointmentId } } : event),
  evolve: (lead, event) => ({ ...lead, texts: evolveTexts(lead.texts, event) }),
}

/** A caller's first name in the text-back is cut to this many characters, as in a follow-up text. */
const MAX_NAME_IN_TEXT_BACK = 60

/** A text-back decided after `since`: the one a caller gets in any 24 hours (exactly 24 hours later, the next may go). */
function textedBackSince(state: LeadWithTexts, since: number): boolean {
  return state.texts.order.some((id) => {
    const text = state.texts.texts[id]
    return text?.reason === 'missed_call' && Date.parse(text.decidedAt) > since
  })
}

/**
 * The text-back after a missed inbound call: decided once a call (the process reacting to the missed
 * call may run again after a crash), at most one a caller in any 24 hours, and only when the one
 * contact policy allows a text now. Outside the texting window it is skipped, not queued: by the
 * window's opening the owner has the call-back at the top of get_next_actions and an alert.
 */
function decideMissedCallText(command: Extract<TextCommand, { type: 'DecideMissedCallText' }>, state: LeadWithTexts, now: Date): TextEvent[] {
  if (!state.exists || !state.fields) throw new DomainError('lead_not_found', 'lead not found')
  if (Object.hasOwn(state.texts.textBacks, command.callId)) return []
  const at = now.toISOString()
  const { callId, missedAt, settings } = command
  const skipped = (reason: string, message: string): TextEvent[] => [{ type: 'MissedCallTextSkipped', data: { callId, reason, message, missedAt, at } }]
  if (settings.missedCallText === null) return skipped('text_back_off', 'the account turned the missed-call text-back off')
  if (now.getTime() - Date.parse(missedAt) > MISSED_CALL_TEXT_WITHIN_MS) {
    return skipped('too_late', `the missed call reached the text-back more than ${MISSED_CALL_TEXT_WITHIN_MS / 60_000} minutes after it ended`)
  }
  if (textedBackSince(state, now.getTime() - MISSED_CALL_TEXT_EVERY_MS)) return skipped('already_texted_back', 'the caller was texted back after a missed call in the last 24 hours')
  const check = checkText(settings, state, now)
  if (!check.allowed) return skipped(check.reason as string, check.message)
  const fields = state.fields
  const firstName = (fields.firstName ?? fields.fullName?.split(/\s+/)[0] ?? '').slice(0, MAX_NAME_IN_TEXT_BACK).trim()
  const body = renderMissedCallText(settings.missedCallText, { business: command.business, firstName: firstName === '' ? null : firstName })
  let decided: TextEvent[]
  try {
    decided = decideTexts({ type: 'DecideText', settings, textId: command.textId, reason: 'missed_call', body, idempotencyKey: null }, state, now)
  } catch (error) {
    if (!(error instanceof DomainError)) throw error
    return skipped(error.code, error.message)
  }
  return [...decided, { type: 'MissedCallTextSent', data: { callId, textId: command.textId, missedAt, at } }]
}
