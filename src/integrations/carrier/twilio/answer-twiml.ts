/**
 * TwiML Leadline serves when a lead picks up, built with the SDK's `VoiceResponse` (which escapes
 * text and attributes). The lead's name comes from the public webhook, so it is cleaned and capped
 * before anyone hears it.
 *
 * The greeting is a menu: who calls and why in its first sentence, then a `<Gather>` of one key
 * (1 connect, 2 call me later, 9 stop calling) posted to the menu URL; `menuAnswerTwiml` answers it.
 *
 * Bridging follows Twilio's whisper pattern: `<Dial><Number url=WHISPER>owner</Number></Dial>`.
 * Twilio fetches WHISPER when the owner answers and plays it to the owner only; the lead keeps
 * hearing ringback until the whisper ends and the two are connected. `whisperTwiml` is that TwiML.
 */
import twilio from 'twilio'
import { dialConnected, type LiveCallInstructions, type MenuAnswer } from '../carrier.port.ts'

export type AnswerMode =
  /** Connect the owner's number, whispering the lead's name to the owner first. */
  | { kind: 'bridge'; ownerNumber: string }
  /** Hand the call to the account's own voice assistant. */
  | { kind: 'twiml'; url: string }
  /** Who calls and why, then a menu of keys (1 reaches the owner number, when one is set). */
  | { kind: 'greeting'; ownerNumber: string | null }

export interface AnswerTwimlOptions {
  mode: AnswerMode
  /** As the lead gave it (untrusted). */
  leadName: string | null | undefined
  businessName: string
  /** Where Twilio fetches `whisperTwiml(leadName)` for the owner; required whenever the call is bridged. */
  whisperUrl?: string
  /** Where the greeting's `<Gather>` posts the key the lead pressed; required for the greeting. */
  menuUrl?: string
}

/** How long the menu waits for a key after the greeting ends, in seconds. */
export const MENU_TIMEOUT_SECONDS = 6

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
    case 'greeting': {
      if (options.menuUrl === undefined) throw new TypeError("menuUrl is required for the greeting: the lead's key is posted there")
      // Keys work while the greeting speaks: the <Say>s are inside the <Gather>.
      const menu = response.gather({ numDigits: 1, timeout: MENU_TIMEOUT_SECONDS, action: webUrl(options.menuUrl, 'menuUrl'), method: 'POST' })
      menu.say(`${hello}, this is ${business} calling about the request you sent us.`)
      const connect = mode.ownerNumber === null ? '' : 'Press 1 to speak with someone now. '
      menu.say(`${connect}Press 2 to have us call you back later. Press 9 to stop these calls.`)
      // No key: Twilio goes on past the <Gather>.
      response.say('Thank you for your time. Goodbye.')
      response.hangup()
      break
    }
  }
  return response.toString()
}

/** The TwiML played to the owner alone, before the bridge: who is on the line, and where the lead came from. */
export function whisperTwiml(leadName: string | null | undefined, leadSource?: string | null): string {
  const response = new twilio.twiml.VoiceResponse()
  const lead = spokenText(leadName, MAX_SPOKEN_NAME)
  const source = spokenText(leadSource, MAX_SPOKEN_NAME)
  const from = source === null ? '' : `, from ${source}`
  response.say(lead === null ? `New lead${from}. Connecting you now.` : `New lead: ${lead}${from}. Connecting you now.`)
  return response.toString()
}

/** Where the menu's answers send Twilio next: the owner's whisper, and how the owner's leg ended. */
export interface MenuUrls {
  whisperUrl: string
  ownerDialUrl: string
}

/**
 * The answer to a key the lead pressed: `connect` dials the owner from the account's number (the
 * owner hears the whisper first; the leg's end is posted to `ownerDialUrl`), the others thank the
 * lead, say what happens next, and hang up.
 */
export function menuAnswerTwiml(answer: MenuAnswer, urls: MenuUrls): string {
  const response = new twilio.twiml.VoiceResponse()
  switch (answer.choice) {
    case 'connect':
      response.say('Connecting you now.')
      dialOwner(response, answer.ownerNumber, urls.whisperUrl, { callerId: e164(answer.callerId, 'caller id'), action: webUrl(urls.ownerDialUrl, 'ownerDialUrl'), method: 'POST' })
      return response.toString()
    case 'callback': {
      const when = spokenText(answer.spokenTime, MAX_SPOKEN_NAME)
      response.say(when === null ? 'Thank you. We will be in touch. Goodbye.' : `Thank you. We will call you back ${when}. Goodbye.`)
      break
    }
    case 'opt_out':
      response.say('You will not be called again. Goodbye.')
      break
    case 'none':
      response.say('Thank you for your time. Goodbye.')
      break
  }
  response.hangup()
  return response.toString()
}

/** The lead's leg after the owner's leg ended (Twilio's `DialCallStatus`): thanks after a talk, an apology otherwise. */
export function ownerDialTwiml(dialCallStatus: string): string {
  return sayAndHangUp(dialConnected(dialCallStatus) ? 'Thank you for talking with us. Goodbye.' : 'Sorry, no one could take your call just now. We have your request. Goodbye.')
}

/** Says `text` (when there is one), then hangs up. */
export function sayAndHangUp(text: string | null): string {
  const response = new twilio.twiml.VoiceResponse()
  if (text !== null) response.say(text)
  response.hangup()
  return response.toString()
}

type DialAttributes = Parameters<InstanceType<typeof twilio.twiml.VoiceResponse>['dial']>[0]

function dialOwner(response: InstanceType<typeof twilio.twiml.VoiceResponse>, ownerNumber: string, whisperUrl: string | undefined, dial: DialAttributes = {}): void {
  const owner = e164(ownerNumber, 'owner number')
  if (whisperUrl === undefined) throw new TypeError('whisperUrl is required to bridge: the owner hears the lead name from it')
  response.dial(dial).number({ url: webUrl(whisperUrl, 'whisperUrl'), method: 'POST' }, owner)
}

function e164(number: string, what: string): string {
  if (!E164.test(number)) throw new TypeError(`${what} must be E.164 (+15551234567), got "${number}"`)
  return number
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
