/**
 * What a text says and what it costs: the opt-out line every marketing text ends with, and how many
 * SMS segments the carrier bills for it. Segments are counted by Twilio's own calculator
 * (sms-segments-calculator): GSM-7 when every character is in the GSM 03.38 alphabet (160 characters
 * in one segment, 153 a segment once split), else UCS-2 (70, then 67), as 3GPP TS 23.038/23.040 say.
 */
import { SegmentedMessage } from 'sms-segments-calculator'

/** The line appended to a text that does not already tell the person how to opt out. */
export const OPT_OUT_LINE = 'Reply STOP to opt out.'

/** Twilio refuses a body longer than this (its Messages API limit, in characters). */
export const MAX_TEXT_CHARACTERS = 1600

// "Reply STOP", "text STOP", "send STOP", "respond with 'stop'": an instruction, not any word "stop".
const STOP_INSTRUCTION = /\b(?:reply|text|txt|send|respond)(?:\s+with)?\s+["'“‘]?stop\b/i

/** Whether the body already tells the person how to opt out. */
export function hasOptOutInstruction(body: string): boolean {
  return STOP_INSTRUCTION.test(body)
}

/** The body as it goes out: trimmed, with the opt-out line on a line of its own when it has no STOP instruction. */
export function withOptOutLine(body: string): string {
  const text = body.trim()
  return hasOptOutInstruction(text) ? text : `${text}\n${OPT_OUT_LINE}`
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
