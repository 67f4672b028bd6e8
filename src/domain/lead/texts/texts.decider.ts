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
import type { TextEvent, TextReason } from './texts.events.ts'

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
}

export interface TextsState {
  readonly texts: Readonly<Record<string, TextRecord>>
  /** Text ids in the order they were decided. */
  readonly order: readonly string[]
  /** The lead's last text the owner read in the console (its message id); null before they read any. */
  readonly readThrough: string | null
}

export const INITIAL_TEXTS: TextsState = { texts: {}, order: [], readThrough: null }

/** What the texts slice reads of the lead: who the person is, whether they may be contacted, their calls (a state's cap counts them) and texts. */
export type LeadWithTexts = IntakeState & { readonly dialing: DialingState; readonly texts: TextsState }

export type TextCommand =
  /** `body`: as the caller wrote it; the decision holds it with the opt-out line. `idempotencyKey`: one text per key and lead. */
  | { type: 'DecideText'; settings: AccountSettings; textId: string; reason: TextReason; body: string; idempotencyKey: string | null; step?: number }
  /** With `settings`, the text is checked again as it goes out (do-not-call, the hours). */
  | { type: 'StartTextAttempt'; textId: string; node: string; settings?: AccountSettings }
  | { type: 'RecordTextSent'; textId: string; messageId: string; carrier: string }
  | { type: 'RecordTextFailed'; textId: string; failure: string; message: string; carrierCode: number | null }
  | { type: 'RecordTextUnknown'; textId: string; reason: string }
  /** A text decided (or claimed) before the backup a restore brought back, not known as sent: never sent. */
  | { type: 'ExpireText'; textId: string; reason: string }
  /** The owner opened the lead's conversation: every text received so far is read (nothing when none is new). */
  | { type: 'MarkConversationRead' }

// Every type of the union, once: the compiler refuses a missing or a stray one.
const TEXT_COMMAND_TYPES: { readonly [T in TextCommand['type']]: true } = {
  DecideText: true, StartTextAttempt: true, RecordTextSent: true, RecordTextFailed: true, RecordTextUnknown: true, ExpireText: true, MarkConversationRead: true,
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
    case 'TextDecided': {
      const d = event.data
      const text: TextRecord = {
        textId: d.textId, reason: d.reason, from: d.from, to: d.to, body: d.body, messagingService: d.messagingService, segments: d.segments,
        step: d.step ?? null, idempotencyKey: d.idempotencyKey, decidedAt: d.at, stage: 'decided', startedAt: null, messageId: null, carrier: null,
        failure: null, failureMessage: null, endedAt: null,
      }
      return { ...state, texts: { ...state.texts, [d.textId]: text }, order: [...state.order, d.textId] }
    }
    case 'TextAttemptStarted':
      return update(state, event.data.textId, { stage: 'started', startedAt: event.data.at })
    case 'TextSent':
      return update(state, event.data.textId, { stage: 'sent', messageId: event.data.messageId, carrier: event.data.carrier, endedAt: event.data.at })
    case 'TextFailed':
      return update(state, event.data.textId, { stage: 'failed', failure: event.data.failure, failureMessage: event.data.message, endedAt: event.data.at })
    case 'TextOutcomeUnknown':
      return update(state, event.data.textId, { stage: 'unknown', failure: 'unknown_outcome', failureMessage: event.data.reason, endedAt: event.data.at })
    case 'TextExpired':
      return update(state, event.data.textId, { stage: 'expired', failure: 'expired', failureMessage: event.data.reason, endedAt: event.data.at })
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
    case 'ExpireText': {
      const text = requireText(state, command.textId)
      if (text.stage !== 'decided' && text.stage !== 'started') return []
      return [{ type: 'TextExpired', data: { textId: text.textId, reason: command.reason, at } }]
    }
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
