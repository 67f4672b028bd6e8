/**
 * What a text says and what it costs: the opt-out line every marketing text ends with, and how many
 * SMS segments the carrier bills for it. Segments are counted by Twilio's own calculator
 * (sms-segments-calculator): GSM-7 when every character is in the GSM 03.38 alphabet (160 characters
 * in one segment, 153 a segment once split), else UCS-2 (70, then 67), as 3GPP TS 23.038/23.040 say.
 */
import { SegmentedMessage } from 'sms-segments-calculator'
import { visibleText, words } from '../../consent/message-text.ts'

/** The line appended to a text whose last line is not already an opt-out line. */
export const OPT_OUT_LINE = 'Reply STOP to opt out.'

/** Twilio refuses a body longer than this (its Messages API limit, in characters). */
export const MAX_TEXT_CHARACTERS = 1600

/**
 * What counts as an opt-out line: the whole last sentence of the last line, read as the consent
 * classifier reads a message (NFKC, invisible characters removed, case and punctuation ignored).
 * "Reply STOP to opt out", "Text STOP to unsubscribe", "Opt out: reply STOP", "Reply HELP for help,
 * STOP to cancel"; never "Please don't reply STOP" nor a STOP instruction with more after it.
 * Bounded repetition only: linear in the line's length.
 */
const PURPOSE = '(?:opt out|optout|unsubscribe|stop|end|cancel|quit)'
const REPLY_STOP = '(?:please )?(?:reply|text|txt|send|respond|respond with|reply with) stop'
const OPT_OUT_LINES: readonly RegExp[] = [
  new RegExp(`^${REPLY_STOP}(?: or [a-z]{1,12})? to ${PURPOSE}(?: [a-z]{1,15}){0,5}(?: (?:reply |text )?help for (?:help|info))?$`),
  new RegExp(`^(?:to )?${PURPOSE}(?: [a-z]{1,15}){0,4} ${REPLY_STOP}$`),
  new RegExp(`^(?:reply |text )?help for (?:help|info) (?:and |or )?(?:reply |text )?stop to ${PURPOSE}(?: [a-z]{1,15}){0,5}$`),
  new RegExp(`^stop to ${PURPOSE}(?: [a-z]{1,15}){0,5}$`),
]
const LINE_BREAK = /\r\n|\r|\n|\u2028|\u2029/
/** A full stop, question or exclamation mark and the space after it: "Rates may apply. Reply STOP to opt out". */
const SENTENCE_END = /[.!?\u3002]+\s/

/** Whether the body's last line already is an opt-out line (a STOP mentioned elsewhere does not count). */
export function endsWithOptOutLine(body: string): boolean {
  const lastLine = body.split(LINE_BREAK).map((line) => line.trim()).filter((line) => line !== '').at(-1) ?? ''
  const lastSentence = words(visibleText(lastLine).split(SENTENCE_END).filter((part) => words(part) !== '').at(-1) ?? '')
  return OPT_OUT_LINES.some((line) => line.test(lastSentence))
}

/** The body as it goes out: trimmed, ending with the opt-out line on a line of its own unless its last line is one. */
export function withOptOutLine(body: string): string {
  const text = body.trim()
  return endsWithOptOutLine(text) ? text : `${text}\n${OPT_OUT_LINE}`
}

export interface TextSegments {
  readonly segments: number
  readonly encoding: 'GSM-7' | 'UCS-2'
  readonly characters: number
}

/** How the carrier splits this body into SMS segments, and in which encoding. */
export function textSegments(body: string): TextSegments {
  const message = new SegmentedMessage(body)
  return { segments: message.segmentsCount, encoding: message.encodingName, characters: message.numberOfCharacters }
}

/** How the account's texts leave: through its Messaging Service, or from the bare caller ID. */
export interface TextSender {
  readonly kind: 'messaging_service' | 'caller_id'
  readonly messagingService: string | null
  /** A sentence for dry runs, the console and the start-up log. */
  readonly message: string
}

/**
 * US carriers filter application-to-person texts from a long code that is not registered for A2P
 * 10DLC; Twilio attaches that registration to a Messaging Service, so without one texts may be filtered.
 */
export function textSender(settings: { readonly messagingService: string | null; readonly callerId: string | null }): TextSender {
  if (settings.messagingService !== null) {
    return { kind: 'messaging_service', messagingService: settings.messagingService, message: `texts go through Messaging Service ${settings.messagingService}` }
  }
  const filtered = 'may be filtered by carriers (no A2P 10DLC registration without a Messaging Service: leadline account set --messaging-service MG…)'
  return {
    kind: 'caller_id',
    messagingService: null,
    message: settings.callerId === null
      ? `no text can go yet: the account has no caller ID (no_caller_id: leadline account set --caller-id +1…); from a bare caller ID, texts ${filtered}`
      : `texts go from the bare caller ID ${settings.callerId} and ${filtered}`,
  }
}
