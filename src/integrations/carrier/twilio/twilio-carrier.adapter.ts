/**
 * Twilio carrier adapter, over the official `twilio` SDK. We never re-implement Twilio's REST calls:
 * the SDK builds them and reads their answers, and our `httpClient` (twilio-request-client.ts) carries
 * them: pointed at `apiUrl` when one is configured, never retried by itself (the dialer alone decides
 * about retries), noting whether a request left and what came back, so each failure maps to exactly
 * one `CarrierFailure`.
 */
import twilio from 'twilio'
import type { CallListInstanceCreateOptions } from 'twilio/lib/rest/api/v2010/account/call.js'
import {
  CarrierError,
  type Carrier,
  type CarrierErrorDetails,
  type LiveCallInstructions,
  type NumberHeld,
  type PlaceCallRequest,
  type PlacedCall,
  type SendTextRequest,
  type SentText,
} from '../carrier.port.ts'
import { handleTwilioCallback, twilioCallbackUrls, twilioTextStatusUrl } from './twilio-callbacks.ts'
import { liveCallTwiml } from './answer-twiml.ts'
import { twilioRelay } from './conversation-relay.ts'
import { twilioNumbers, type TwilioNumberRequest } from './twilio-numbers.ts'
import { LeadlineTwilioRequestClient, exchanges, rewriteTwilioUrl, type Exchange } from './twilio-request-client.ts'

export { rewriteTwilioUrl } from './twilio-request-client.ts'

export const TWILIO_API_URL = 'https://api.twilio.com'
export const DEFAULT_TWILIO_TIMEOUT_MS = 10_000

export interface TwilioCarrierOptions {
  accountSid: string
  /** Authenticates its REST requests and checks the signature of its callbacks. */
  authToken: string
  /** Replaces `https://api.twilio.com` (and every other `*.twilio.com` host); may carry a base path. */
  apiUrl?: string
  /** How long to wait for Twilio's answer before the outcome is unknown. */
  timeoutMs?: number
}

export interface TwilioCarrier extends Carrier {
  readonly name: 'twilio'
  handleCallback: NonNullable<Carrier['handleCallback']>
  readonly relay: NonNullable<Carrier['relay']>
  warm(): void
  close(): Promise<void>
}

/** Network errors raised before a single byte of the request was sent: Twilio cannot have acted. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EAI_FAIL',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  // TLS failures happen during the handshake, before the request is written.
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
])

/** The request client's own timeout (and the system's): the request may have reached Twilio. */
const TIMEOUT_CODES = new Set(['ETIMEDOUT'])

/** What a request is about, in a failure's message. */
type TwilioRequest = 'call' | 'text' | 'call update' | 'number check' | 'voicemail' | TwilioNumberRequest

/** A `Carrier` that places calls and sends texts through Twilio's REST API, via the official SDK, and answers Twilio's signed callbacks. */
export function createTwilioCarrier(options: TwilioCarrierOptions): TwilioCarrier {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TWILIO_TIMEOUT_MS
  const apiUrl = options.apiUrl ? new URL(options.apiUrl) : undefined
  const httpClient = new LeadlineTwilioRequestClient(apiUrl, timeoutMs)
  const client = twilio(options.accountSid, options.authToken, { httpClient, autoRetry: false })
  let closed = false

  async function perform<T>(what: TwilioRequest, send: () => Promise<T>): Promise<T> {
    if (closed) throw new CarrierError('rejected', `the twilio carrier is closed; the ${what} was not sent`)
    const exchange: Exchange = { sent: false }
    try {
      return await exchanges.run(exchange, send)
    } catch (error) {
      throw toCarrierError(error, exchange, what, timeoutMs)
    }
  }

  return {
    name: 'twilio',

    async placeCall(r: PlaceCallRequest): Promise<PlacedCall> {
      const detection = r.detectAnsweringMachine ? asyncMachineDetection(r.machineDetectionUrl) : {}
      const call = await perform('call', () =>
        client.calls.create({
          from: r.from,
          to: r.to,
          url: r.answerUrl,
          method: 'POST',
          statusCallback: r.statusCallbackUrl,
          statusCallbackMethod: 'POST',
          statusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
          ...(r.timeoutSeconds !== undefined ? { timeout: r.timeoutSeconds } : {}),
          ...detection,
        }),
      )
      return { callId: sidOf(call, 'call'), status: String(call.status), carrier: 'twilio' }
    },

    async sendText(r: SendTextRequest): Promise<SentText> {
      const message = await perform('text', () =>
        client.messages.create({
          // Twilio takes one or the other: a Messaging Service picks the sender itself.
          ...(r.messagingService !== undefined ? { messagingServiceSid: r.messagingService } : { from: r.from }),
          to: r.to,
          body: r.body,
          ...(r.statusCallbackUrl !== undefined ? { statusCallback: r.statusCallbackUrl } : {}),
        }),
      )
      return { messageId: sidOf(message, 'text'), status: String(message.status), carrier: 'twilio' }
    },

    async updateCall(callId: string, instructions: LiveCallInstructions): Promise<void> {
      await perform('call update', () => client.calls(callId).update({ twiml: liveCallTwiml(instructions) }))
    },

    async numberHeld(number: string): Promise<NumberHeld | null> {
      // Filtered by the exact number, a partial number matches too, so the exact one is looked for: the account's own numbers first, then its verified caller IDs.
      const incoming = await perform('number check', () => client.incomingPhoneNumbers.list({ phoneNumber: number, limit: 20 }))
      if (incoming.some((n) => n.phoneNumber === number)) return 'incoming_number'
      const verified = await perform('number check', () => client.outgoingCallerIds.list({ phoneNumber: number, limit: 20 }))
      return verified.some((n) => n.phoneNumber === number) ? 'verified_caller_id' : null
    },

    async fetchVoicemail(callId: string) {
      // The call's recording, by its call id through the SDK; its media with the account's credentials (the SDK's client parses bodies as text).
      const [recording] = await perform('voicemail', () => client.recordings.list({ callSid: callId, limit: 1 }))
      if (!recording) return null
      const media = `${TWILIO_API_URL}/2010-04-01/Accounts/${options.accountSid}/Recordings/${recording.sid}.mp3`
      const response = await fetch(apiUrl ? rewriteTwilioUrl(media, apiUrl) : media, {
        headers: { authorization: `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64')}` },
        signal: AbortSignal.timeout(timeoutMs),
      })
      if (response.status === 404) return null
      if (!response.ok) throw new CarrierError('rejected', `Twilio answered ${response.status} for the voicemail's media`)
      return { contentType: response.headers.get('content-type') ?? 'audio/mpeg', body: new Uint8Array(await response.arrayBuffer()) }
    },

    warm(): void {
      // The SDK loads a resource's code on first use: load the calls resource now, sending nothing.
      void client.calls
    },

    ...twilioNumbers(client, perform),

    callbackUrls: twilioCallbackUrls,
    textStatusUrl: twilioTextStatusUrl,

    handleCallback: (callback, context) => handleTwilioCallback(options.authToken, callback, context),

    relay: twilioRelay(options.authToken),

    async close(): Promise<void> {
      closed = true
      httpClient.destroy()
    },
  }
}

/**
 * Twilio's async AMD, waiting for the end of a machine's greeting so a voicemail starts after the
 * beep. Async: Twilio fetches the answer TwiML at once (the lead hears the greeting without delay)
 * and posts the verdict to `machineDetectionUrl` while the call goes on.
 */
function asyncMachineDetection(machineDetectionUrl: string | undefined): Partial<CallListInstanceCreateOptions> {
  if (machineDetectionUrl === undefined) {
    throw new CarrierError('rejected', 'the call was not sent: machine detection needs a machineDetectionUrl for its verdict')
  }
  return { machineDetection: 'DetectMessageEnd', asyncAmd: 'true', asyncAmdStatusCallback: machineDetectionUrl, asyncAmdStatusCallbackMethod: 'POST' }
}

/** A 2xx without a sid (a proxy's page, a half-compatible carrier): something answered, so the outcome is unknown. */
function sidOf(resource: { sid?: unknown }, what: 'call' | 'text'): string {
  if (typeof resource.sid === 'string' && resource.sid !== '') return resource.sid
  throw new CarrierError('unknown_outcome', `twilio accepted the ${what} request but answered without a sid; it may have been placed`)
}

function toCarrierError(error: unknown, exchange: Exchange, what: TwilioRequest, timeoutMs: number): CarrierError {
  if (error instanceof CarrierError) return error
  const cause = { cause: error }
  const said = describe(error)

  // Twilio answered: the status code decides.
  if (exchange.status !== undefined && (exchange.status < 200 || exchange.status >= 300)) {
    const status = exchange.status
    const details: CarrierErrorDetails = { status }
    const code = numericCode(error)
    if (code !== undefined) details.carrierCode = code
    if (status === 429) {
      const retryAfter = retryAfterSeconds(exchange.headers?.['retry-after'])
      if (retryAfter !== undefined) details.retryAfterSeconds = retryAfter
      return new CarrierError('rate_limited', `twilio rate-limited the ${what} (HTTP 429); nothing was placed: ${said}`, details, cause)
    }
    if (status >= 400 && status < 500) {
      return new CarrierError('rejected', `twilio rejected the ${what} (HTTP ${status}${code !== undefined ? `, code ${code}` : ''}): ${said}`, details, cause)
    }
    return new CarrierError('unknown_outcome', `twilio failed on the ${what} (HTTP ${status}); it may have been placed: ${said}`, details, cause)
  }

  // Thrown before the request reached the HTTP client (e.g. the SDK's own parameter checks).
  if (!exchange.sent) {
    return new CarrierError('rejected', `the ${what} was not sent: ${said}`, {}, cause)
  }

  const network = networkCode(error)
  if (network !== undefined && isNotSent(error, network)) {
    return new CarrierError('unreachable', `twilio is unreachable (${network}); the ${what} was not sent`, {}, cause)
  }
  if (network !== undefined && TIMEOUT_CODES.has(network)) {
    return new CarrierError('unknown_outcome', `no answer from twilio within ${timeoutMs} ms; the ${what} may have been placed`, {}, cause)
  }
  return new CarrierError(
    'unknown_outcome',
    `the ${what} request to twilio failed after it was sent${network !== undefined ? ` (${network})` : ''}; it may have been placed: ${said}`,
    {},
    cause,
  )
}

function isNotSent(error: unknown, code: string): boolean {
  if (NOT_SENT_CODES.has(code)) return true
  // Happy-eyeballs connects report an AggregateError: unsent only if every attempt failed to connect.
  const attempts = aggregateErrors(error)
  return attempts.length > 0 && attempts.every((e) => NOT_SENT_CODES.has(String((e as { code?: unknown }).code)))
}

function aggregateErrors(error: unknown): unknown[] {
  for (const candidate of [error, (error as { cause?: unknown } | null)?.cause]) {
    const errors = (candidate as { errors?: unknown } | null | undefined)?.errors
    if (Array.isArray(errors)) return errors
  }
  return []
}

function networkCode(error: unknown): string | undefined {
  for (const candidate of [error, (error as { cause?: unknown } | null)?.cause]) {
    const code = (candidate as { code?: unknown } | null | undefined)?.code
    if (typeof code === 'string' && code !== '') return code
  }
  return undefined
}

function numericCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'number' && Number.isInteger(code) ? code : undefined
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message || error.name
  return String(error)
}

/** Retry-After is either delta-seconds or an HTTP date. */
function retryAfterSeconds(value: unknown, now: number = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value
  if (typeof raw !== 'string' && typeof raw !== 'number') return undefined
  const text = String(raw).trim()
  if (/^\d+$/.test(text)) return Number(text)
  const at = Date.parse(text)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000))
}
