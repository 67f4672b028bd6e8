/**
 * A person calling an account's number, at `/api/carrier/twilio/<hook>` (signature already checked
 * by `handleTwilioCallback`): `voice` (the number's voice URL: the call comes in), `voice-status`
 * (its status callback: the call's end), and the call's own steps, each carrying the caller's call id
 * in its signed query: `voice-whisper` (the TwiML an owner leg hears before it may take the call),
 * `voice-key` (that leg's key), `voice-dial` (the `<Dial>` of the owner legs ended), `voice-menu` (the
 * caller's key when nobody took it) and `voice-record` (the voicemail ended: only its length is read;
 * the recording and its URL stay with Twilio and are never read here).
 *
 * The caller hears the greeting, then ringback (`ringTone`) while the owners hear their whisper, so
 * there is no silence; an owner leg that takes the call gets an empty response, which bridges it.
 */
import twilio from 'twilio'
import { carrierCallbackUrl, type CarrierCallback, type CarrierCallbackAnswer, type CarrierCallbackContext } from '../carrier.port.ts'
import type { InboundAnswer, InboundCallReports, WhisperKeyAnswer } from '../inbound-call.port.ts'
import { MAX_SPOKEN_BUSINESS, MAX_SPOKEN_NAME, sayAndHangUp, spokenText } from './answer-twiml.ts'
import { ASSISTANT_END_HOOK, assistantTwiml, relayUrl } from './conversation-relay.ts'

export const INBOUND_HOOKS: readonly string[] = ['voice', 'voice-status', 'voice-whisper', 'voice-key', 'voice-dial', 'voice-menu', 'voice-record']

/** How long each owner leg rings before it is passed over, and how long an owner has to press 1. */
export const RING_SECONDS = 20
export const WHISPER_KEY_SECONDS = 8
/** How long the caller's menu waits for a key before the voicemail. */
const MENU_KEY_SECONDS = 5
const FINAL_STATUSES = new Set(['completed', 'busy', 'no-answer', 'failed', 'canceled'])
const TWIML = 'text/xml; charset=utf-8'
const E164 = /^\+[1-9]\d{6,14}$/
const CALL_SID = /^[A-Za-z0-9]{1,64}$/

type Response = InstanceType<typeof twilio.twiml.VoiceResponse>

function twiml(body: string): CarrierCallbackAnswer {
  return { kind: 'answer', status: 200, contentType: TWIML, body }
}

function posted(callback: CarrierCallback, name: string): string {
  const value = callback.params[name]
  const first = Array.isArray(value) ? value[0] : value
  return typeof first === 'string' ? first.trim() : ''
}

function queried(callback: CarrierCallback, name: string): string {
  const value = callback.query[name]
  const first = Array.isArray(value) ? value[0] : value
  return typeof first === 'string' ? first : ''
}

function seconds(text: string): number | null {
  return /^\d{1,9}$/.test(text) ? Number(text) : null
}

const invalid = (detail: string): CarrierCallbackAnswer => ({ kind: 'refused', refusal: 'invalid_request', detail })
const unknown: CarrierCallbackAnswer = { kind: 'refused', refusal: 'not_found', detail: 'not a call Leadline answered' }

/** The TwiML of what the caller hears next. */
export function inboundTwiml(answer: InboundAnswer, callId: string, publicUrl: string): string {
  const url = (hook: string, query: Record<string, string> = {}) => carrierCallbackUrl(publicUrl, 'twilio', hook, { call: callId, ...query })
  const response = new twilio.twiml.VoiceResponse()
  switch (answer.kind) {
    case 'hang_up':
      return sayAndHangUp(answer.say)
    case 'ring': {
      if (answer.greeting !== null) response.say(spokenText(answer.greeting, MAX_SPOKEN_BUSINESS + 60) ?? 'Please hold.')
      // The first leg's index names the Dial: sequential rings one, and its action moves to the next.
      const first = answer.legs[0]?.leg ?? 0
      const dial = response.dial({ action: url('voice-dial', { leg: String(first) }), method: 'POST', timeout: RING_SECONDS, ringTone: 'us' })
      for (const leg of answer.legs) {
        if (!E164.test(leg.number)) continue
        dial.number({ url: url('voice-whisper', { leg: String(leg.leg) }), method: 'POST' }, leg.number)
      }
      return response.toString()
    }
    case 'assistant':
      return assistantTwiml(answer.greeting, {
        relayUrl: relayUrl(publicUrl, answer.decisionId, callId),
        actionUrl: carrierCallbackUrl(publicUrl, 'twilio', ASSISTANT_END_HOOK, { decision: answer.decisionId }),
      })
    case 'menu': {
      const menu = response.gather({ numDigits: 1, timeout: MENU_KEY_SECONDS, action: url('voice-menu'), method: 'POST' })
      menu.say(spokenText(answer.say, MAX_SPOKEN_BUSINESS + 160) ?? 'Press 1 and we will call you back.')
      // No key: Twilio goes on past the <Gather>, to the voicemail when there is one.
      if (answer.voicemailSeconds === null) return sayThenHangUp(response, 'Goodbye.')
      record(response, answer.voicemailSeconds, url('voice-record'))
      return response.toString()
    }
    case 'record':
      response.say(answer.say)
      record(response, answer.seconds, url('voice-record'))
      return response.toString()
  }
}

function record(response: Response, maxLength: number, action: string): void {
  // Only the action is told; Twilio keeps the recording (no recordingStatusCallback carries its URL to Leadline).
  response.record({ maxLength, playBeep: true, timeout: 5, action, method: 'POST' })
  response.say('Goodbye.')
  response.hangup()
}

function sayThenHangUp(response: Response, text: string): string {
  response.say(text)
  response.hangup()
  return response.toString()
}

/** What an owner leg hears: who calls and about what, in a `<Gather>` of one key; no key is a pass. */
export function inboundWhisperTwiml(whisper: string, keyUrl: string): string {
  const response = new twilio.twiml.VoiceResponse()
  const gather = response.gather({ numDigits: 1, timeout: WHISPER_KEY_SECONDS, action: keyUrl, method: 'POST' })
  gather.say(spokenText(whisper, MAX_SPOKEN_NAME * 3) ?? 'A call for you. Press 1 to take it.')
  return sayThenHangUp(response, 'Passing the call on. Goodbye.')
}

/** The owner leg's key: an empty response bridges it; a late press hears that the call is taken. */
export function inboundKeyTwiml(answer: WhisperKeyAnswer): string {
  if (answer === 'connect') return new twilio.twiml.VoiceResponse().toString()
  return sayAndHangUp(answer === 'taken' ? 'Someone else has taken this call. Goodbye.' : 'Passing the call on. Goodbye.')
}

/** Answers the inbound hooks; 404 when Leadline does not answer calls on this server or the call is not one it answered. */
export async function handleInboundCallback(callback: CarrierCallback, context: CarrierCallbackContext): Promise<CarrierCallbackAnswer> {
  const inbound: InboundCallReports | undefined = context.inbound
  if (inbound === undefined) return { kind: 'refused', refusal: 'not_found', detail: 'this server answers no calls' }
  if (callback.hook === 'voice') {
    const callId = posted(callback, 'CallSid')
    const from = posted(callback, 'From')
    const to = posted(callback, 'To')
    if (!CALL_SID.test(callId) || to === '' || to.length > 40 || from.length > 40) return invalid('not an incoming call (CallSid, From and To are required)')
    const answer = await inbound.receive({ callId, from, to })
    if (answer.kind === 'hang_up' && answer.say !== null) context.warn({ callId, to }, 'a call to a number no account holds (or from a withheld number): answered, recorded on no lead')
    return twiml(inboundTwiml(answer, callId, context.publicUrl))
  }
  if (callback.hook === 'voice-status') {
    const callId = posted(callback, 'CallSid')
    const status = posted(callback, 'CallStatus')
    if (!CALL_SID.test(callId) || !/^[a-z-]{1,32}$/.test(status)) return invalid('not a call status callback (CallSid and CallStatus are required)')
    if (FINAL_STATUSES.has(status)) await inbound.ended(callId, status, seconds(posted(callback, 'CallDuration')))
    return { kind: 'answer', status: 204 }
  }
  // The steps of a call: the caller's call id rides in the signed query.
  const callId = queried(callback, 'call')
  if (!CALL_SID.test(callId)) return unknown
  const leg = seconds(queried(callback, 'leg'))
  switch (callback.hook) {
    case 'voice-whisper': {
      if (leg === null) return unknown
      const whisper = await inbound.whisper(callId, leg)
      return whisper === null ? unknown : twiml(inboundWhisperTwiml(whisper, carrierCallbackUrl(context.publicUrl, 'twilio', 'voice-key', { call: callId, leg: String(leg) })))
    }
    case 'voice-key': {
      if (leg === null) return unknown
      const answer = await inbound.whisperKey(callId, leg, posted(callback, 'Digits'))
      return answer === null ? unknown : twiml(inboundKeyTwiml(answer))
    }
    case 'voice-dial': {
      if (leg === null) return unknown
      const answer = await inbound.dialEnded(callId, leg)
      return answer === null ? unknown : twiml(inboundTwiml(answer, callId, context.publicUrl))
    }
    case 'voice-menu': {
      const answer = await inbound.menuKey(callId, posted(callback, 'Digits'))
      return answer === null ? unknown : twiml(inboundTwiml(answer, callId, context.publicUrl))
    }
    default: {
      // voice-record: RecordingDuration only; RecordingUrl and RecordingSid are left unread.
      const answer = await inbound.voicemail(callId, seconds(posted(callback, 'RecordingDuration')))
      return answer === null ? unknown : twiml(inboundTwiml(answer, callId, context.publicUrl))
    }
  }
}
