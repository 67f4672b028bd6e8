/**
 * TwiML Leadline serves when a lead picks up, built with the SDK's `VoiceResponse` (which escapes
 * text and attributes). The lead's name comes from the public webhook, so it is cleaned and capped
 * before anyone hears it.
 *
 * Bridging follows Twilio's whisper pattern: `<Dial><Number url=WHISPER>owner</Number></Dial>`.
 * Twilio fetches WHISPER when the owner answers and plays it to the owner only; the lead keeps
 * hearing ringback until the whisper ends and the two are connected. `whisperTwiml` is that TwiML.
 */
import twilio from 'twilio'
import type { LiveCallInstructions } from '../carrier.port.ts'

export type AnswerMode =
  /** Connect the owner's number, whispering the lead's name to the owner first. */
  | { kind: 'bridge'; ownerNumber: string }
  /** Hand the call to the account's own voice assistant. */
  | { kind: 'twiml'; url: string }
  /** A short greeting to the lead, then the bridge when an owner number is set, else a polite goodbye. */
  | { kind: 'greeting'; ownerNumber: string | null }

export interface AnswerTwimlOptions {
  mode: AnswerMode
  /** As the lead gave it (untrusted). */
  leadName: string | null | undefined
  businessName: string
  /** Where Twilio fetches `whisperTwiml(leadName)` for the owner; required whenever the call is bridged. */
  whisperUrl?: string
}

export const MAX_SPOKEN_NAME = 60
export const MAX_SPOKEN_BUSINESS = 80
/** A voicemail: the account's template, filled in (MAX_VOICEMAIL) with a name and a business. */
export const MAX_SPOKEN_MESSAGE = 800

const E164 = /^\+[1-9]\d{6,14}$/

/** The TwiML answering an outbound speed-to-lead call. */
export function answerTwiml(options: AnswerTwimlOptions): string {
  const { mode } = options
  const response = new twilio.twiml.VoiceResponse()
  const business = spokenText(options.businessName, MAX_SPOKEN_BUSINESS) ?? 'our team'
  const lead = spokenText(options.leadName, MAX_SPOKEN_NAME)
  const hello = lead === null ? 'Hi' : `Hi ${lead}`

  switch (mode.kind) {
    case 'twiml':
      response.redirect({ method: 'POST' }, webUrl(mode.url, 'the voice assistant url'))
      break
    case 'bridge':
      dialOwner(response, mode.ownerNumber, options.whisperUrl)
      break
    case 'greeting':
      if (mode.ownerNumber === null) {
        response.say(`${hello}, thanks for reaching out to ${business}. We have your request and will be in touch shortly. Goodbye.`)
        response.hangup()
      } else {
        response.say(`${hello}, this is ${business} following up on your request. Please hold while we connect you.`)
        dialOwner(response, mode.ownerNumber, options.whisperUrl)
      }
      break
  }
  return response.toString()
}

/** The TwiML played to the owner alone, before the bridge: who is on the line. */
export function whisperTwiml(leadName: string | null | undefined): string {
  const response = new twilio.twiml.VoiceResponse()
  const lead = spokenText(leadName, MAX_SPOKEN_NAME)
  response.say(lead === null ? 'New lead. Connecting you now.' : `New lead: ${lead}. Connecting you now.`)
  return response.toString()
}

function dialOwner(response: InstanceType<typeof twilio.twiml.VoiceResponse>, ownerNumber: string, whisperUrl: string | undefined): void {
  if (!E164.test(ownerNumber)) throw new TypeError(`owner number must be E.164 (+15551234567), got "${ownerNumber}"`)
  if (whisperUrl === undefined) throw new TypeError('whisperUrl is required to bridge: the owner hears the lead name from it')
  response.dial().number({ url: webUrl(whisperUrl, 'whisperUrl'), method: 'POST' }, ownerNumber)
}

function webUrl(url: string, what: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new TypeError(`${what} is not a URL: "${url}"`)
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new TypeError(`${what} must be http(s): "${url}"`)
  return parsed.href
}

/**
 * Untrusted text made fit to speak: control and format characters (invalid in XML or invisible)
 * and markup-ish symbols removed, whitespace collapsed, capped at `max` characters. Null when nothing is left.
 */
export function spokenText(raw: string | null | undefined, max: number): string | null {
  if (typeof raw !== 'string') return null
  const cleaned = raw
    .normalize('NFKC')
    .replace(/[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}]/gu, ' ')
    .replace(/[<>{}[\]\\|`^~@#$%*_=+"]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  const capped = Array.from(cleaned).slice(0, max).join('').trim()
  return /[\p{L}\p{N}]/u.test(capped) ? capped : null
}

/** A voicemail spoken or played into a live call (or a plain hang-up), then the call ends. */
export function liveCallTwiml(instructions: LiveCallInstructions): string {
  const response = new twilio.twiml.VoiceResponse()
  if (instructions.kind === 'say') response.say(spokenText(instructions.text, MAX_SPOKEN_MESSAGE) ?? 'Goodbye.')
  if (instructions.kind === 'play') response.play(webUrl(instructions.url, 'the voicemail recording'))
  response.hangup()
  return response.toString()
}
