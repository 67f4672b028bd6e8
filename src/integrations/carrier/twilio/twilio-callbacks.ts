/**
 * Twilio's callbacks into Leadline, at `/api/carrier/twilio/<hook>`: `status` (call progress, which
 * becomes events on the lead), `amd` (async machine detection's verdict: on a machine Leadline leaves
 * the voicemail), `answer` (the TwiML for an answered call, in the account's on-answer mode),
 * `menu` (the key the lead pressed in the greeting's menu), `whisper` (the TwiML played to the owner
 * before the bridge) and `owner-dial` (how the owner's leg of a connect ended); agent-first's
 * `agent-key` and `lead-dial` are answered in agent-first-callbacks.ts; a person calling the account's
 * number (`voice`, `voice-status` and the call's steps) in inbound-callbacks.ts; `sms` is the messaging
 * webhook of the account's number (an inbound text, answered with an empty TwiML response); `sms-status`
 * is a sent text's delivery receipt (its lead stream and text id in the signed query). Every request must carry a
 * valid `X-Twilio-Signature` for LEADLINE_PUBLIC_URL + path + query, checked with the auth token,
 * before anything is read or recorded. Each is safe to receive twice: the commands behind them
 * record a verdict, a key and a leg's end once per call.
 */
import twilio from 'twilio'
import {
  carrierCallbackUrl,
  isCallStatus,
  type CallStatusUpdate,
  type CallbackUrls,
  type CarrierCallback,
  type CarrierCallbackAnswer,
  type CarrierCallbackContext,
  type InboundText,
  type TextStatusReport,
} from '../carrier.port.ts'
import { parseLeadStream } from '../../../domain/lead/lead.events.ts'
import { TEXT_DELIVERY_STATUSES, type TextDeliveryStatus } from '../../../domain/lead/texts/texts.events.ts'
import { answerTwiml, menuAnswerTwiml, ownerDialTwiml, sayAndHangUp, whisperTwiml } from './answer-twiml.ts'
import { AGENT_FIRST_HOOKS, agentFirstAnswer, handleAgentFirstCallback } from './agent-first-callbacks.ts'
import { INBOUND_HOOKS, handleInboundCallback } from './inbound-callbacks.ts'
import { ASSISTANT_END_HOOK, ASSISTANT_WHISPER_HOOK, assistantEndTwiml, assistantTwiml, assistantWhisperTwiml, parseHandoffData, relayUrl } from './conversation-relay.ts'

/** A sent text's delivery receipts. */
const SMS_STATUS_HOOK = 'sms-status'

/** The header Twilio signs its requests in; a secret the request log never shows. */
export const TWILIO_SIGNATURE_HEADER = 'x-twilio-signature'

const TWIML = 'text/xml; charset=utf-8'
const HOOKS = new Set(['status', 'amd', 'answer', 'menu', 'whisper', 'owner-dial', 'sms', SMS_STATUS_HOOK, ASSISTANT_END_HOOK, ASSISTANT_WHISPER_HOOK, ...AGENT_FIRST_HOOKS, ...INBOUND_HOOKS])
/** The messaging webhook's answer: nothing said in TwiML (a keyword's reply goes through `sendText`, claimed once). */
const EMPTY_RESPONSE = '<?xml version="1.0" encoding="UTF-8"?><Response/>'

/** The URLs a call hands Twilio: its TwiML when answered (per decision), its progress, and machine detection's verdict. */
export function twilioCallbackUrls(publicUrl: string, decisionId: string): CallbackUrls {
  return {
    answerUrl: carrierCallbackUrl(publicUrl, 'twilio', 'answer', { decision: decisionId }),
    statusCallbackUrl: carrierCallbackUrl(publicUrl, 'twilio', 'status'),
    machineDetectionUrl: carrierCallbackUrl(publicUrl, 'twilio', 'amd'),
  }
}

/** Where Twilio posts a text's delivery receipts: the lead's stream and the text's id ride in the query Twilio signs. */
export function twilioTextStatusUrl(publicUrl: string, stream: string, textId: string): string {
  return carrierCallbackUrl(publicUrl, 'twilio', SMS_STATUS_HOOK, { text: textId, lead: stream })
}

/** Answers one Twilio callback: 404 for a hook Twilio has none of, 403 without a valid signature. */
export async function handleTwilioCallback(authToken: string, callback: CarrierCallback, context: CarrierCallbackContext): Promise<CarrierCallbackAnswer> {
  if (!HOOKS.has(callback.hook)) return { kind: 'refused', refusal: 'not_found' }
  const params = callback.params as TwilioParams
  const signature = callback.headers[TWILIO_SIGNATURE_HEADER]
  if (!verifyTwilioSignature(authToken, typeof signature === 'string' ? signature : undefined, callback.url, params)) {
    context.warn({ hook: callback.hook }, 'rejected a Twilio callback with a bad signature')
    return { kind: 'refused', refusal: 'invalid_signature' }
  }

  if (callback.hook === 'status') {
    const update = parseTwilioStatusCallback(params, callback.receivedAt)
    if (!update) return { kind: 'refused', refusal: 'invalid_request', detail: 'not a call status callback (CallSid and CallStatus are required)' }
    await context.recordCallStatus(update)
    return { kind: 'answer', status: 204 }
  }
  if (callback.hook === 'amd') {
    const verdict = parseTwilioAmdCallback(params)
    if (!verdict) return { kind: 'refused', refusal: 'invalid_request', detail: 'not a machine detection callback (CallSid and AnsweredBy are required)' }
    // On a machine this waits for the voicemail's call update: Twilio's callback stays open meanwhile.
    const known = await context.recordAnsweredBy(verdict.callId, verdict.answeredBy)
    if (!known) context.warn({ callId: verdict.callId }, 'machine detection callback for a call Leadline did not place')
    return { kind: 'answer', status: 204 }
  }
  if (callback.hook === 'sms') {
    const text = parseTwilioInboundText(params, callback.receivedAt)
    if (!text) return { kind: 'refused', refusal: 'invalid_request', detail: 'not an inbound message (MessageSid, From and To are required)' }
    const known = await context.recordInboundText(text)
    if (!known) context.warn({ messageId: text.messageId, to: text.to }, 'inbound text to a number no account holds (or from no phone number): answered, recorded on no lead')
    return twiml(EMPTY_RESPONSE)
  }
  if (callback.hook === SMS_STATUS_HOOK) {
    const report = parseTwilioTextStatus(params, callback.query as TwilioParams)
    if (report === 'invalid') return { kind: 'refused', refusal: 'invalid_request', detail: 'not a message status callback (MessageSid and MessageStatus are required)' }
    // Queued, sent and other passing statuses are not recorded: only the final one.
    if (report !== null && !(await context.recordTextStatus(report))) context.warn({ messageId: report.messageId }, 'delivery receipt for a text Leadline has no record of: recorded nothing')
    return { kind: 'answer', status: 200 }
  }

  if (AGENT_FIRST_HOOKS.includes(callback.hook)) return handleAgentFirstCallback(callback, context)
  if (INBOUND_HOOKS.includes(callback.hook)) return handleInboundCallback(callback, context)
  const unknown: CarrierCallbackAnswer = { kind: 'refused', refusal: 'not_found', detail: 'unknown call decision' }
  const decision = callback.query.decision
  if (typeof decision !== 'string') return unknown
  const whisperUrl = carrierCallbackUrl(context.publicUrl, 'twilio', 'whisper', { decision })

  if (callback.hook === 'menu') {
    // No Digits (the Gather timed out, or a key outside the menu): the menu's polite goodbye.
    const answer = await context.pressMenuKey(decision, field(params, 'Digits') ?? '')
    if (!answer) return unknown
    const ownerDialUrl = carrierCallbackUrl(context.publicUrl, 'twilio', 'owner-dial', { decision })
    return twiml(menuAnswerTwiml(answer, { whisperUrl, ownerDialUrl }))
  }
  if (callback.hook === 'owner-dial') {
    const status = field(params, 'DialCallStatus')
    if (status === undefined || !/^[a-z-]{1,32}$/.test(status)) {
      return { kind: 'refused', refusal: 'invalid_request', detail: 'not a dial callback (DialCallStatus is required)' }
    }
    const known = await context.recordOwnerConnect(decision, status, wholeNumber(field(params, 'DialCallDuration')) ?? null)
    return known ? twiml(ownerDialTwiml(status)) : unknown
  }

  const call = await context.answeredCall(decision)
  if (!call) return unknown
  if (callback.hook === 'whisper') return twiml(whisperTwiml(call.leadName, call.leadSource))
  if (callback.hook === ASSISTANT_WHISPER_HOOK) return twiml(assistantWhisperTwiml(field(callback.query as TwilioParams, 'whisper')))
  if (callback.hook === ASSISTANT_END_HOOK) {
    // Signed by Twilio, so HandoffData is what the relay's `end` said; nothing is recorded here (the conversation recorded its end).
    const handoff = parseHandoffData(field(params, 'HandoffData'))
    return twiml(assistantEndTwiml(handoff, {
      callerId: call.callerId,
      whisperUrl: (whisper) => carrierCallbackUrl(context.publicUrl, 'twilio', ASSISTANT_WHISPER_HOOK, { decision, whisper }),
      ownerDialUrl: carrierCallbackUrl(context.publicUrl, 'twilio', 'owner-dial', { decision }),
    }))
  }
  if (call.onAnswer.kind === 'agent-first') return agentFirstAnswer(call, context.publicUrl)
  if (call.onAnswer.kind === 'assistant') return assistantAnswer(call.decisionId, field(params, 'CallSid'), context)
  const menuUrl = carrierCallbackUrl(context.publicUrl, 'twilio', 'menu', { decision: call.decisionId })
  return twiml(answerTwiml({ mode: call.onAnswer, leadName: call.leadName, businessName: call.businessName, whisperUrl, menuUrl }))
}

/**
 * The assistant takes the call: its greeting, then ConversationRelay; or, when the call must end now
 * (the lead gone, do-not-call, outside calling hours by now, the account's assistant calls at their
 * limit), the goodbye and a hang-up.
 */
async function assistantAnswer(decisionId: string, callSid: string | undefined, context: CarrierCallbackContext): Promise<CarrierCallbackAnswer> {
  if (callSid === undefined || callSid.length > 128) return { kind: 'refused', refusal: 'invalid_request', detail: 'CallSid is required' }
  const prepared = await context.prepareAssistant(decisionId, callSid)
  if (prepared === null) return { kind: 'refused', refusal: 'not_found', detail: 'unknown call decision' }
  if ('refuse' in prepared) return twiml(sayAndHangUp(prepared.refuse.goodbye))
  return twiml(assistantTwiml(prepared, {
    relayUrl: relayUrl(context.publicUrl, decisionId, callSid),
    actionUrl: carrierCallbackUrl(context.publicUrl, 'twilio', ASSISTANT_END_HOOK, { decision: decisionId }),
  }))
}

function twiml(body: string): CarrierCallbackAnswer {
  return { kind: 'answer', status: 200, contentType: TWIML, body }
}

/** Async AMD's verdict on a call (`CallSid`, `AnsweredBy`); null when it is not one. */
export function parseTwilioAmdCallback(params: TwilioParams): { callId: string; answeredBy: string } | null {
  const callId = field(params, 'CallSid')
  const answeredBy = field(params, 'AnsweredBy')
  if (callId === undefined || callId.length > 128 || answeredBy === undefined || !/^[a-z_]{1,40}$/.test(answeredBy)) return null
  return { callId, answeredBy }
}

/** An inbound message (`MessageSid`, `From`, `To`, `Body`); null when it is not one. */
export function parseTwilioInboundText(params: TwilioParams, receivedAt: Date): InboundText | null {
  const messageId = field(params, 'MessageSid') ?? field(params, 'SmsSid')
  const from = field(params, 'From')
  const to = field(params, 'To')
  if (messageId === undefined || messageId.length > 128 || from === undefined || from.length > 40 || to === undefined || to.length > 40) return null
  const body = params.Body
  return { messageId, from, to, body: (Array.isArray(body) ? body[0] : body) ?? '', receivedAt }
}

/** A message status callback: the final receipt, null for a passing status, `invalid` when it is not one. */
export function parseTwilioTextStatus(params: TwilioParams, query: TwilioParams): TextStatusReport | null | 'invalid' {
  const messageId = field(params, 'MessageSid') ?? field(params, 'SmsSid')
  const status = field(params, 'MessageStatus') ?? field(params, 'SmsStatus')
  const textId = field(query, 'text')
  const stream = field(query, 'lead')
  if (messageId === undefined || messageId.length > 128 || status === undefined || textId === undefined || textId.length > 128 || stream === undefined || parseLeadStream(stream) === null) {
    return 'invalid'
  }
  if (!(TEXT_DELIVERY_STATUSES as readonly string[]).includes(status)) return null
  return { stream, textId, messageId, status: status as TextDeliveryStatus, errorCode: wholeNumber(field(params, 'ErrorCode')) ?? null }
}

export type TwilioParams = Record<string, string | string[] | undefined>

/**
 * Checks `X-Twilio-Signature` with the SDK: `url` is the full public URL Twilio was given
 * (LEADLINE_PUBLIC_URL + path + query), `params` the posted form fields. Missing or malformed: false.
 */
export function verifyTwilioSignature(
  authToken: string,
  signature: string | undefined | null,
  url: string,
  params: TwilioParams,
): boolean {
  if (typeof signature !== 'string' || signature === '') return false
  const defined: Record<string, string | string[]> = {}
  for (const [key, value] of Object.entries(params)) if (value !== undefined) defined[key] = value
  try {
    return twilio.validateRequest(authToken, signature, url, defined)
  } catch {
    return false
  }
}

/**
 * Reads a Twilio call status callback. Null when it is not one (no CallSid, unknown CallStatus).
 * `receivedAt` stands in for a missing or unreadable `Timestamp`.
 */
export function parseTwilioStatusCallback(params: TwilioParams, receivedAt: Date = new Date()): CallStatusUpdate | null {
  const callId = field(params, 'CallSid')
  const status = field(params, 'CallStatus')
  if (callId === undefined || callId.length > 128 || !isCallStatus(status)) return null

  const stamped = field(params, 'Timestamp')
  const stampedAt = stamped === undefined ? Number.NaN : Date.parse(stamped)
  const update: CallStatusUpdate = {
    callId,
    status,
    timestamp: new Date(Number.isNaN(stampedAt) ? receivedAt.getTime() : stampedAt).toISOString(),
    carrier: 'twilio',
  }
  const answeredBy = field(params, 'AnsweredBy')
  if (answeredBy !== undefined) update.answeredBy = answeredBy
  const duration = wholeNumber(field(params, 'CallDuration'))
  if (duration !== undefined) update.durationSeconds = duration
  const recordingUrl = field(params, 'RecordingUrl')
  if (recordingUrl !== undefined) update.recordingUrl = recordingUrl
  const transcript = field(params, 'TranscriptionText')
  if (transcript !== undefined) update.transcript = transcript
  const sequenceNumber = wholeNumber(field(params, 'SequenceNumber'))
  if (sequenceNumber !== undefined) update.sequenceNumber = sequenceNumber
  return update
}

function field(params: TwilioParams, name: string): string | undefined {
  const value = params[name]
  const first = Array.isArray(value) ? value[0] : value
  if (typeof first !== 'string') return undefined
  const trimmed = first.trim()
  return trimmed === '' ? undefined : trimmed
}

function wholeNumber(text: string | undefined): number | undefined {
  return text !== undefined && /^\d{1,9}$/.test(text) ? Number(text) : undefined
}
