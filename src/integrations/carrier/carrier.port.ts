/**
 * The carrier port: how Leadline rings a person and sends a text, and how the carrier's HTTP
 * callbacks are answered. Adapters: Twilio (official SDK) and the simulated carrier (embedded
 * default). Calls and texts are at-most-once, so every failure says whether the carrier can have
 * acted on the request (see `CarrierFailure`).
 */

import { dialConnected, type CallStatus, type CallStatusUpdate, type CarrierName } from '../../domain/lead/calls/call-status.ts'
import type { OnAnswer } from '../../domain/dialing/on-answer.ts'
import type { InboundCallReports } from './inbound-call.port.ts'

// The domain owns what a call status is; adapters name it through the port as before.
export type { CallStatus, CallStatusUpdate, CarrierName }
export { dialConnected }

export interface PlaceCallRequest {
  /** The account's caller id (E.164). */
  from: string
  /** The person to ring (E.164). */
  to: string
  /** Where the carrier fetches the call's instructions (TwiML) once it is answered. */
  answerUrl: string
  /** Where the carrier posts the call's progress (initiated, ringing, answered, completed). */
  statusCallbackUrl: string
  /** Leadline's own reference for this call (the decision it performs); never sent to the person. */
  reference: string
  /** How long to let it ring, in seconds (carrier default when absent). */
  timeoutSeconds?: number
  /**
   * Ask the carrier to tell a person from an answering machine while the call goes on (Twilio's
   * async AMD, waiting for the end of a machine's greeting), reporting to `machineDetectionUrl`.
   */
  detectAnsweringMachine?: boolean
  /** Where the carrier posts machine detection's verdict (`CallReports.recordAnsweredBy`). */
  machineDetectionUrl?: string
}

/** What a live call is told to do instead (Twilio: the call update API); each ends the call after it. */
export type LiveCallInstructions =
  /** Speak a message (the voicemail), then hang up. */
  | { readonly kind: 'say'; readonly text: string }
  /** Play a recording (the account's voicemail recording), then hang up. */
  | { readonly kind: 'play'; readonly url: string }
  | { readonly kind: 'hang_up' }

export interface PlacedCall {
  callId: string
  status: string
  carrier: CarrierName
}

export interface SendTextRequest {
  from: string
  to: string
  body: string
  /**
   * The account's Twilio Messaging Service (`MG…`): the text goes through it, and the carrier picks the
   * sender from its pool (A2P 10DLC registration attaches there); `from` is then not sent.
   */
  messagingService?: string
  statusCallbackUrl?: string
  reference: string
}

/** The `messagingService` member of a text request for an account that set one (spread into the request). */
export function messagingService(settings: { readonly messagingService: string | null }): { messagingService?: string } {
  return settings.messagingService === null ? {} : { messagingService: settings.messagingService }
}

export interface SentText {
  messageId: string
  status: string
  carrier: CarrierName
}

export const CALL_STATUSES: readonly CallStatus[] = [
  'queued',
  'initiated',
  'ringing',
  'in-progress',
  'completed',
  'busy',
  'no-answer',
  'failed',
  'canceled',
]

export function isCallStatus(value: unknown): value is CallStatus {
  return typeof value === 'string' && (CALL_STATUSES as readonly string[]).includes(value)
}

/** How a failed request may be treated: only `rate_limited` and `unreachable` are safe to retry (the carrier cannot have placed the call). */
export type CarrierFailure = 'rejected' | 'rate_limited' | 'unreachable' | 'unknown_outcome'

export interface CarrierErrorDetails {
  /** HTTP status of the carrier's answer, when there was one. */
  status?: number
  /** The carrier's own error code (Twilio: 21211 invalid number, 20003 authentication, …). */
  carrierCode?: number
  retryAfterSeconds?: number
}

/**
 * A carrier request that did not succeed. Branch on `failure`, never on the message:
 * - `rejected`: the carrier refused it (bad number, bad credentials); retrying the same request will not help.
 * - `rate_limited`: refused for now (HTTP 429); nothing was placed, retry after `retryAfterSeconds`.
 * - `unreachable`: the request never left (connection refused, DNS failure); nothing was placed.
 * - `unknown_outcome`: the request may have been acted on (timeout, reset, 5xx); do NOT retry, or a person may be rung twice.
 */
export class CarrierError extends Error {
  readonly type = 'carrier_error'

  constructor(
    readonly failure: CarrierFailure,
    message: string,
    readonly details: CarrierErrorDetails = {},
    options: { cause?: unknown } = {},
  ) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined)
    this.name = 'CarrierError'
  }
}

export interface Carrier {
  /** Recorded on the events of the calls and texts it places; also its callbacks' path segment. */
  readonly name: CarrierName
  placeCall(r: PlaceCallRequest): Promise<PlacedCall>
  sendText(r: SendTextRequest): Promise<SentText>
  /**
   * Where this carrier posts the delivery receipt of text `textId` on lead stream `stream` (signed, like
   * every callback). Absent for a carrier that sends no receipts (the simulated one).
   */
  textStatusUrl?(publicUrl: string, stream: string, textId: string): string
  /** Where this carrier fetches a call's instructions and posts its progress (see `carrierCallbackUrl`). */
  callbackUrls(publicUrl: string, decisionId: string): CallbackUrls
  /**
   * Changes what a live call does (a voicemail into a machine, or a hang-up). Rejects with
   * CarrierError like placeCall; `unknown_outcome` when the carrier may have acted on it.
   */
  updateCall(callId: string, instructions: LiveCallInstructions): Promise<void>
  /**
   * A carrier that reports in-process (the simulated one) is handed Leadline's reports here, once, after it is
   * opened: the commands behind them call the carrier back (a voicemail, a reply), so they are built after it.
   * Absent for a carrier whose reports arrive as HTTP callbacks (`handleCallback` is lent them each time).
   */
  reportTo?(reports: CallReports): void
  /** Answers one of its HTTP callbacks; absent for a carrier that reports in-process (the simulated one). */
  handleCallback?(callback: CarrierCallback, context: CarrierCallbackContext): Promise<CarrierCallbackAnswer>
  /** The carrier's live-conversation socket (Twilio: ConversationRelay's WebSocket); absent for a carrier without one. */
  readonly relay?: CarrierRelay
  /**
   * How the carrier account holds `number` (E.164), asked when an account sets it as its caller ID:
   * one of its own numbers, a verified outgoing caller ID, or null when it holds it not at all. Rejects
   * with CarrierError when it cannot tell. Absent: the carrier has no numbers of its own (the
   * simulated carrier), so any number is taken as given.
   */
  numberHeld?(number: string): Promise<NumberHeld | null>
  /**
   * The simulated carrier only: a person at `from` calls the account's number `to`, played through the
   * same inbound reports a real carrier's voice webhook reaches, as `scenario` says. Absent for a real carrier.
   */
  simulateInboundCall?(call: { readonly from: string; readonly to: string }, scenario: SimulatedInboundScenario): Promise<SimulatedInboundCall>
  /**
   * The voicemail a caller left on inbound call `callId`, fetched from the carrier for a signed-in
   * owner only and streamed on (never stored, logged or returned by a tool); null when there is none.
   * Absent: the carrier keeps no recordings (the simulated one).
   */
  fetchVoicemail?(callId: string): Promise<{ readonly contentType: string; readonly body: Uint8Array } | null>
  /** The carrier account's own numbers (Twilio's IncomingPhoneNumbers). Absent: the numbers bought through Leadline are its list (the simulated carrier). */
  listNumbers?(): Promise<CarrierNumber[]>
  /** Local numbers the carrier has for sale, by area code or near a place (see `NumberSearch`). Rejects with CarrierError. */
  searchNumbers?(search: NumberSearch): Promise<AvailableNumber[]>
  /** What the carrier charges a month for `number` (E.164), asked on the confirm step before a purchase; null when it does not say. */
  monthlyPrice?(number: string): Promise<AvailableNumber['monthlyPrice']>
  /**
   * Buys `number` into the carrier account. At most once: Leadline claims the purchase on the log
   * before it calls this, and never calls it again after `unknown_outcome`.
   */
  buyNumber?(number: string): Promise<CarrierNumber>
  /** Points the number's voice URL, voice status callback and SMS URL at Leadline's routes under `publicUrl` (safe to repeat). */
  pointNumber?(number: string, publicUrl: string): Promise<PointedNumber>
  /** Loads now what the first request would load, so the first call after a start is as quick as the next; sends nothing. */
  warm?(): void
  close?(): Promise<void>
}

/** One of the carrier account's numbers, with where its calls and texts go now (null: nowhere set). */
export interface CarrierNumber {
  readonly number: string
  /** The carrier's id of it (Twilio: PN…). */
  readonly sid: string
  readonly friendlyName: string
  readonly voice: boolean
  readonly sms: boolean
  readonly voiceUrl: string | null
  readonly voiceStatusUrl: string | null
  readonly smsUrl: string | null
}

/**
 * A search of local numbers for sale, in one country. One way to say where, the most precise given
 * wins: `nearNumber` (within `distanceMiles` of a phone number's exchange, such as the business's
 * own line), `postalCode`, `region` (a state, `IL`), or `areaCode`. `contains`: digits the number must hold.
 */
export interface NumberSearch {
  readonly country: 'US'
  readonly areaCode?: string
  readonly postalCode?: string
  readonly region?: string
  readonly nearNumber?: string
  readonly distanceMiles?: number
  readonly contains?: string
  readonly limit?: number
}

export interface AvailableNumber {
  readonly number: string
  readonly friendlyName: string
  readonly locality: string | null
  readonly region: string | null
  readonly postalCode: string | null
  readonly voice: boolean
  readonly sms: boolean
  /** What the carrier charges a month for it, when it says (Twilio: its Pricing API for local numbers). */
  readonly monthlyPrice: { readonly amount: string; readonly currency: string } | null
}

/** The webhooks a number was pointed at, and what they were before. `applied` is false at a carrier with nothing to set (the simulated one). */
export interface PointedNumber {
  readonly number: string
  readonly applied: boolean
  readonly voiceUrl: string
  readonly voiceStatusUrl: string
  readonly smsUrl: string
  readonly before: { readonly voiceUrl: string | null; readonly voiceStatusUrl: string | null; readonly smsUrl: string | null } | null
}

/** What a simulated caller does: the owner takes it, every owner declines, nobody answers, a voicemail, the assistant, the call-back key. */
export const SIMULATED_INBOUND_SCENARIOS = ['owner-answers', 'owner-declines', 'no-answer', 'voicemail', 'assistant', 'callback'] as const
export type SimulatedInboundScenario = (typeof SIMULATED_INBOUND_SCENARIOS)[number]

/** A simulated inbound call as it went: what the caller and the owners heard and did, step by step. */
export interface SimulatedInboundCall {
  readonly callId: string
  readonly from: string
  readonly to: string
  readonly scenario: SimulatedInboundScenario
  /** `refused`: the number is no account's, or the caller's number was withheld. */
  readonly outcome: 'connected' | 'assistant' | 'voicemail' | 'missed' | 'refused'
  readonly steps: readonly string[]
}

/** How a carrier account holds a number: bought or ported in (Twilio's IncomingPhoneNumbers), or only verified as a caller ID (OutgoingCallerIds). */
export type NumberHeld = 'incoming_number' | 'verified_caller_id'

/** True only when the carrier cannot have acted on the failed request, so sending it again cannot ring anyone twice. */
export function isRetryableCarrierFailure(e: unknown): boolean {
  return e instanceof CarrierError && (e.failure === 'rate_limited' || e.failure === 'unreachable')
}

/** Every carrier's callbacks arrive under this path, one route for all: `/api/carrier/<name>/<hook>`. */
export const CARRIER_CALLBACK_PATH = '/api/carrier'

/** `{publicUrl}/api/carrier/<carrier>/<hook>`, with `query` when given (`?decision=dec_…`). */
export function carrierCallbackUrl(publicUrl: string, carrier: CarrierName, hook: string, query: Record<string, string> = {}): string {
  const search = Object.entries(query).map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&')
  return `${publicUrl}${CARRIER_CALLBACK_PATH}/${carrier}/${hook}${search === '' ? '' : `?${search}`}`
}

export interface CallbackUrls {
  answerUrl: string
  statusCallbackUrl: string
  /** Where machine detection's verdict goes (absent for a carrier that reports it in-process). */
  machineDetectionUrl?: string
}

type HttpFields = Readonly<Record<string, string | string[] | undefined>>

/** One HTTP callback, as the route received it at `/api/carrier/<name>/<hook>`. */
export interface CarrierCallback {
  /** The path segment after `/api/carrier/<name>/`: `status`, `answer`, … */
  readonly hook: string
  /** The public URL it was sent to (LEADLINE_PUBLIC_URL + path + query): what carriers sign. */
  readonly url: string
  /** Header names in lower case. */
  readonly headers: HttpFields
  /** The posted form fields. */
  readonly params: HttpFields
  readonly query: HttpFields
  /** Stands in for a missing or unreadable timestamp in the callback. */
  readonly receivedAt: Date
}

/** The call behind a decision, as a carrier needs it to say what the person hears. */
export interface AnsweredCall {
  readonly decisionId: string
  readonly businessName: string
  readonly leadName: string | null
  readonly onAnswer: OnAnswer
  /** The account's number: the caller id of a connect to the owner. */
  readonly callerId: string
  /** Where the lead came from, and one line of its fields: agent-first whispers them to the owner (untrusted text). */
  readonly leadSource: string | null
  readonly leadLine: string | null
}

/**
 * What Leadline answers when a person on an agent-first owner leg presses a key (the carrier says it
 * to the owner): `dial` connects the lead from the account's number; `refused` says why the lead may
 * not be called now (`refusal`: may-call's code); `declined`, `no_key` and `none` (a repeat, or a leg
 * that moved on) end politely. Null: the call is not Leadline's.
 */
export type AgentKeyAnswer =
  | { readonly choice: 'dial'; readonly leadNumber: string; readonly callerId: string; readonly leadName: string | null }
  | { readonly choice: 'refused'; readonly refusal: string; readonly leadName: string | null }
  | { readonly choice: 'declined' }
  | { readonly choice: 'no_key' }
  | { readonly choice: 'none' }

/**
 * What Leadline answers when the lead presses a key in the menu (the carrier says it to the lead):
 * `connect` dials the owner with a whisper of the lead's name; `callback` thanks them and says when
 * (`spokenTime`, in the account's zone, null when no call is allowed again); `opt_out` confirms
 * they will not be called again; `none` ends politely. Null: the call is not Leadline's.
 */
export type MenuAnswer =
  | { readonly choice: 'connect'; readonly ownerNumber: string; readonly callerId: string; readonly leadName: string | null }
  | { readonly choice: 'callback'; readonly spokenTime: string | null }
  | { readonly choice: 'opt_out' }
  | { readonly choice: 'none' }

/**
 * The assistant on an answered call (`--on-answer assistant`), as a carrier's relay needs it. These
 * mirror the conversation engine's seam (src/processes/assistant/conversation.ts) so the port needs
 * nothing above it; the composition root hands the engine's objects through.
 */
export type RelayOutput =
  | { readonly type: 'text'; readonly token: string; readonly last: boolean }
  /** End the call; with `handoff` the carrier dials `to` (the owner), whispering `whisper` to them first. */
  | { readonly type: 'end'; readonly handoff: { readonly to: string; readonly whisper: string } | null }

/** The call must end at once (the lead is gone, do-not-call, outside calling hours, the account's assistant calls at their limit): say `goodbye`. */
export interface AssistantRefusal {
  readonly refuse: { readonly goodbye: string; readonly reason: string }
}

/** What the lead hears first, and the relay's voice and language. */
export interface AssistantGreeting {
  readonly greeting: string
  readonly voice: string | null
  readonly language: string
}

/** One live conversation, fed by the relay's messages. */
export interface RelayConversation {
  /** The caller's finished utterance; the answer streams as it is produced. */
  prompt(text: string): AsyncIterable<RelayOutput>
  /** A key the caller pressed (9: opt out). */
  dtmf(digit: string): AsyncIterable<RelayOutput>
  /** The caller spoke over the answer; what had been spoken of it. */
  interrupt(utteranceUntilInterrupt: string): void
  /** The longest call in ms, from the relay's setup: the session ends the call then, even on a silent line. */
  readonly limitMs: number
  /** The longest call was reached: the last sentence, then `end`. */
  timeUp(): AsyncIterable<RelayOutput>
  /** How long the caller may say nothing before the session calls `silent`. */
  readonly silenceMs: number
  /** The caller said nothing for `silenceMs`: the last sentence, then `end`. */
  silent(): AsyncIterable<RelayOutput>
  /** The relay ended (`ended`), dropped, or failed: recorded once. */
  close(reason: 'ended' | 'socket_dropped' | 'error', detail?: string): Promise<void>
}

/** A text a person sent to one of the accounts' numbers (Twilio's messaging webhook). */
export interface InboundText {
  /** The carrier's message id (Twilio: `MessageSid`): a text is recorded once. */
  readonly messageId: string
  /** The sender's number (E.164). */
  readonly from: string
  /** The number texted: an account's caller id (E.164). */
  readonly to: string
  readonly body: string
  readonly receivedAt: Date
}

/** A text's delivery receipt: a final status of a text Leadline decided (`textId` on lead stream `stream`). */
export interface TextStatusReport {
  readonly stream: string
  readonly textId: string
  readonly messageId: string
  readonly status: 'delivered' | 'undelivered' | 'failed'
  readonly errorCode: number | null
}

/**
 * What a carrier reports about the calls it placed, and asks while a call is live. The composition
 * root implements it with commands; a carrier reports through it from its HTTP callbacks (lent in
 * `CarrierCallbackContext`) or in-process (the simulated carrier).
 */
export interface CallReports {
  /** Records a status on the call's lead; false when Leadline did not place that call. */
  recordCallStatus(update: CallStatusUpdate): Promise<boolean>
  /** Machine detection's verdict; on a machine Leadline leaves the voicemail (or hangs up) through `updateCall`. False when the call is not Leadline's. */
  recordAnsweredBy(callId: string, answeredBy: string): Promise<boolean>
  /** Null when the decision is unknown here. */
  answeredCall(decisionId: string): Promise<AnsweredCall | null>
  /** A key the lead pressed in the menu of the call made for `decisionId`. */
  pressMenuKey(decisionId: string, digit: string): Promise<MenuAnswer | null>
  /** How the owner's leg of a connect ended (the carrier's dial status and talk time). */
  recordOwnerConnect(decisionId: string, status: string, durationSeconds: number | null): Promise<boolean>
  /** Agent-first: the key pressed on owner leg `callId` of `decisionId` ('' when none came before the timeout). */
  pressAgentKey(decisionId: string, callId: string, digit: string): Promise<AgentKeyAnswer | null>
  /** Agent-first: how the dial of the lead from the owner's leg ended (the carrier's dial status). False when the decision is not Leadline's. */
  recordLeadDial(decisionId: string, status: string): Promise<boolean>
  /**
   * A text a person sent to an account's number: recorded on their lead once per message id, an
   * opt-out keyword marks them do-not-call, and a keyword's reply is sent (claimed, at most once)
   * through `sendText`. False when no account has the `To` number (or `From` is not a phone number).
   */
  recordInboundText(text: InboundText): Promise<boolean>
  /** A text's delivery receipt, recorded once a text; false when the text is not Leadline's. */
  recordTextStatus(report: TextStatusReport): Promise<boolean>
  /**
   * On answer `assistant`: the greeting the relay opens with, or the goodbye when the call must end
   * now (checked at the moment of the answer). Null when the decision is not Leadline's.
   */
  prepareAssistant(decisionId: string, callId: string): Promise<AssistantGreeting | AssistantRefusal | null>
  /**
   * The relay connected (its `setup`): checked again, then the live conversation. Null when the decision
   * is not Leadline's, or `callId` is not its call in progress, or the call has had its session (a replayed handshake): the relay then closes the socket.
   */
  openAssistant(decisionId: string, callId: string): Promise<{ readonly conversation: RelayConversation } | AssistantRefusal | null>
  /** A person calling an account's number (inbound-call.port.ts); absent where this server answers no calls. */
  readonly inbound?: InboundCallReports
}

/** What the HTTP edge lends a carrier's callbacks: the adapter holds its own secret, Leadline's state stays here. */
export interface CarrierCallbackContext extends CallReports {
  readonly publicUrl: string
  warn(fields: Record<string, unknown>, message: string): void
}

/** The request that opens a relay's socket, as the route received it at `/api/carrier/<name>/relay`. */
export interface RelayHandshake {
  /** The public URL it was opened at (ws(s):// + LEADLINE_PUBLIC_URL's host + path + query): what carriers sign. */
  readonly url: string
  /** Header names in lower case. */
  readonly headers: HttpFields
  readonly query: HttpFields
}

/** The open socket, as the relay uses it: text frames out, and a close. */
export interface RelaySocket {
  send(data: string): void
  close(code?: number, reason?: string): void
}

/** One open relay socket's session: the route feeds it every text frame and the close. */
export interface RelaySession {
  receive(data: string): void
  /** The socket closed (either side); `code` is the WebSocket close code. */
  closed(code: number): void
}

/** A carrier's live-conversation relay (Twilio's ConversationRelay): the handshake check, then a session per socket. */
export interface CarrierRelay {
  /** Whether the handshake is the carrier's own (its signature); the route refuses it with 403 before the upgrade otherwise. */
  accepts(handshake: RelayHandshake): boolean
  open(socket: RelaySocket, handshake: RelayHandshake, context: CarrierCallbackContext): RelaySession
}

/** Why a callback was refused; the route answers each with its stable HTTP error (404, 403, 400). */
export type CarrierCallbackRefusal = 'not_found' | 'invalid_signature' | 'invalid_request'

export type CarrierCallbackAnswer =
  | { readonly kind: 'answer'; readonly status: number; readonly contentType?: string; readonly body?: string }
  | { readonly kind: 'refused'; readonly refusal: CarrierCallbackRefusal; readonly detail?: string }
