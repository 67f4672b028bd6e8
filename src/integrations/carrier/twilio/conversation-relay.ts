/**
 * Twilio ConversationRelay, Leadline's side (`--on-answer assistant`). A person picks up: the answer
 * hook answers `<Connect action=assistant-end><ConversationRelay url=wss://…/relay welcomeGreeting=…>`;
 * Twilio opens a WebSocket to `/api/carrier/twilio/relay?decision=…&call=CA…`, signed with `X-Twilio-Signature`
 * over that wss URL (no parameters: the handshake is a GET), and speaks JSON messages on it: `setup`
 * (whose `callSid` must be the signed URL's `call`; a session opens only for that call while it is in
 * progress and has had none, so a replayed handshake opens nothing),
 * then `prompt` (the caller's finished utterance), `dtmf`, `interrupt`, `error`. Leadline answers with
 * `text` tokens as the model produces them (`last: true` on a turn's final one) and ends the session
 * with `end`, whose `handoffData` Twilio posts to the `<Connect>` action: `transfer` (dial the owner,
 * whispering who the lead is), `refused` (say the goodbye), or a plain end (hang up).
 */
import twilio from 'twilio'
import { z } from 'zod'
import {
  carrierCallbackUrl,
  type AssistantGreeting,
  type CarrierRelay,
  type CarrierCallbackContext,
  type RelayConversation,
  type RelayHandshake,
  type RelayOutput,
  type RelaySession,
  type RelaySocket,
} from '../carrier.port.ts'
import { MAX_SPOKEN_MESSAGE, spokenText } from './answer-twiml.ts'

/** The relay's hook: `/api/carrier/twilio/relay`. */
export const RELAY_HOOK = 'relay'
/** The `<Connect>` action, when the session ended: `/api/carrier/twilio/assistant-end`. */
export const ASSISTANT_END_HOOK = 'assistant-end'
/** What the owner hears before a handoff connects: `/api/carrier/twilio/assistant-whisper`. */
export const ASSISTANT_WHISPER_HOOK = 'assistant-whisper'

/** A whisper to the owner is cut to this many characters (it rides in the whisper URL). */
export const MAX_WHISPER = 300
const MAX_GREETING = 500
/** The close code Leadline uses when it ends a socket that broke the protocol (RFC 6455 1008: policy violation). */
const POLICY_VIOLATION = 1008
/** Twilio sends `setup` as soon as the socket opens: a socket that has not sent it by then is closed. */
export const SETUP_WAIT_MS = 10_000

const E164 = /^\+[1-9]\d{6,14}$/

/** `ws://` or `wss://` for the public URL's `http://` or `https://`. */
export function webSocketBase(publicUrl: string): string {
  return publicUrl.replace(/^http(s?):\/\//i, (_, s: string) => `ws${s}://`)
}

/** Where Twilio opens the relay for the carrier call `callSid` made for `decisionId`: both ride in the signed URL. */
export function relayUrl(publicUrl: string, decisionId: string, callSid: string): string {
  return webSocketBase(carrierCallbackUrl(publicUrl, 'twilio', RELAY_HOOK, { decision: decisionId, call: callSid }))
}

/**
 * The answer of a call on the assistant: the greeting (who calls, that it is an automated assistant,
 * and why), then the relay. DTMF is on so a key (9) opts out; the caller may interrupt by voice or key.
 */
export function assistantTwiml(greeting: AssistantGreeting, urls: { readonly relayUrl: string; readonly actionUrl: string }): string {
  const response = new twilio.twiml.VoiceResponse()
  const connect = response.connect({ action: urls.actionUrl, method: 'POST' })
  connect.conversationRelay({
    url: urls.relayUrl,
    welcomeGreeting: spokenText(greeting.greeting, MAX_GREETING) ?? 'Hello.',
    language: greeting.language,
    ...(greeting.voice === null ? {} : { voice: greeting.voice }),
    dtmfDetection: true,
    interruptible: 'any',
  })
  return response.toString()
}

/** What the relay's `end` carries to the action (Twilio posts it back as `HandoffData`, a JSON string). */
export type HandoffData =
  | { readonly reason: 'transfer'; readonly to: string; readonly whisper: string }
  | { readonly reason: 'refused'; readonly goodbye: string }
  | { readonly reason: 'ended' }
  | { readonly reason: 'error' }

const handoffSchema = z.discriminatedUnion('reason', [
  z.object({ reason: z.literal('transfer'), to: z.string().regex(E164), whisper: z.string().max(2000) }),
  z.object({ reason: z.literal('refused'), goodbye: z.string().max(2000) }),
  z.object({ reason: z.literal('ended') }),
  z.object({ reason: z.literal('error') }),
])

/** `HandoffData` as posted to the action; null when absent or not Leadline's shape. */
export function parseHandoffData(raw: string | undefined): HandoffData | null {
  if (raw === undefined || raw === '') return null
  try {
    const parsed = handoffSchema.safeParse(JSON.parse(raw))
    return parsed.success ? parsed.data : null
  } catch {
    return null
  }
}

/**
 * The action's answer. `transfer`: the owner is dialed from the account's number, hearing the whisper
 * first (the leg's end goes to `ownerDialUrl`); the lead already heard "Connecting you now." from the
 * assistant on the relay, so nothing is said here (each line is spoken once). `refused`: the goodbye.
 * Anything else (a plain end, a session that failed or a socket that dropped): a short apology when
 * the session did not end by Leadline's word, then the call ends.
 */
export function assistantEndTwiml(
  handoff: HandoffData | null,
  call: { readonly callerId: string; readonly whisperUrl: (whisper: string) => string; readonly ownerDialUrl: string },
): string {
  const response = new twilio.twiml.VoiceResponse()
  if (handoff?.reason === 'transfer' && E164.test(call.callerId)) {
    const whisper = spokenText(handoff.whisper, MAX_WHISPER) ?? 'A lead from the assistant.'
    response.dial({ callerId: call.callerId, action: call.ownerDialUrl, method: 'POST' }).number({ url: call.whisperUrl(whisper), method: 'POST' }, handoff.to)
    return response.toString()
  }
  if (handoff?.reason === 'refused') response.say(spokenText(handoff.goodbye, MAX_SPOKEN_MESSAGE) ?? 'Goodbye.')
  else if (handoff?.reason !== 'ended') response.say('Sorry, we could not continue this call. We will be in touch. Goodbye.')
  response.hangup()
  return response.toString()
}

/** What the owner hears alone before a handoff connects. */
export function assistantWhisperTwiml(whisper: string | undefined): string {
  const response = new twilio.twiml.VoiceResponse()
  response.say(spokenText(whisper, MAX_WHISPER) ?? 'A lead from the assistant. Connecting you now.')
  return response.toString()
}

/** The handshake's signature: Twilio signs the wss URL it was given, with no parameters. A URL without a decision and a call is not Leadline's. */
export function acceptsRelayHandshake(authToken: string, handshake: RelayHandshake): boolean {
  if (relayDecision(handshake) === null || relayCall(handshake) === null) return false
  const signature = handshake.headers['x-twilio-signature']
  if (typeof signature !== 'string' || signature === '') return false
  try {
    return twilio.validateRequest(authToken, signature, handshake.url, {})
  } catch {
    return false
  }
}

/** The decision a relay URL was made for (`?decision=…`); null without one. */
export function relayDecision(handshake: Pick<RelayHandshake, 'query'>): string | null {
  const decision = handshake.query.decision
  return typeof decision === 'string' && decision !== '' && decision.length <= 128 ? decision : null
}

/** The carrier call a relay URL was made for (`?call=CA…`); null without one. */
export function relayCall(handshake: Pick<RelayHandshake, 'query'>): string | null {
  const call = handshake.query.call
  return typeof call === 'string' && call !== '' && call.length <= 128 ? call : null
}

/** The Twilio carrier's relay: the signed handshake, then one session per socket. */
export function twilioRelay(authToken: string): CarrierRelay {
  return {
    accepts: (handshake) => acceptsRelayHandshake(authToken, handshake),
    open(socket, handshake, context) {
      const decisionId = relayDecision(handshake)
      const callSid = relayCall(handshake)
      if (decisionId === null || callSid === null) {
        socket.close(POLICY_VIOLATION, 'no call decision')
        return { receive: () => undefined, closed: () => undefined }
      }
      return openRelaySession(socket, { decisionId, callSid }, context)
    },
  }
}

const inbound = z.discriminatedUnion('type', [
  z.object({ type: z.literal('setup'), callSid: z.string().min(1).max(128) }).loose(),
  z.object({ type: z.literal('prompt'), voicePrompt: z.string().max(10_000), last: z.boolean().optional() }).loose(),
  z.object({ type: z.literal('dtmf'), digit: z.string().max(8) }).loose(),
  z.object({ type: z.literal('interrupt'), utteranceUntilInterrupt: z.string().max(10_000).optional() }).loose(),
  z.object({ type: z.literal('error'), description: z.string().max(10_000).optional() }).loose(),
])
type Inbound = z.infer<typeof inbound>

/** A turn being streamed; `cancelled` once an interrupt (or the end) stopped it. */
interface Turn {
  cancelled: boolean
}

/**
 * One relay socket, for the carrier call `callSid` of `decisionId` (from the signed URL). Messages are
 * handled in order; an `interrupt` stops the answer being streamed at once (its remaining tokens are
 * never sent). A `setup` naming another call, a socket with no `setup` within SETUP_WAIT_MS, and a
 * call that may not have a session (not live, or had one) are closed with nothing opened. A live
 * session in which the caller says nothing for the conversation's `silenceMs` ends (`silent`). The
 * conversation is closed once: `ended` after Leadline sent `end`, `socket_dropped` when the socket
 * closed before, `error` when the conversation itself failed.
 */
export function openRelaySession(socket: RelaySocket, call: { readonly decisionId: string; readonly callSid: string }, context: CarrierCallbackContext): RelaySession {
  const { decisionId } = call
  let phase: 'setup' | 'opening' | 'live' | 'ended' | 'closed' = 'setup'
  let conversation: RelayConversation | null = null
  let current: Turn | null = null
  let queue: Promise<void> = Promise.resolve()
  /** The conversation was closed (once). */
  let conversationClosed = false
  /** Ends the call at the longest call, set when the conversation goes live. */
  let limit: NodeJS.Timeout | null = null
  /** Ends a live session whose caller says nothing; before `setup`, closes a socket that never sends it. */
  let silence: NodeJS.Timeout | null = setTimeout(() => phase === 'setup' && refuse('no setup'), SETUP_WAIT_MS)
  silence.unref()

  function stopLimit(): void {
    if (limit !== null) clearTimeout(limit)
    if (silence !== null) clearTimeout(silence)
    limit = null
    silence = null
  }

  /** Closes the socket with nothing opened (or left open): a replayed or foreign handshake. */
  function refuse(why: string): void {
    if (phase === 'closed') return
    context.warn({ decisionId, why }, 'the assistant relay closed a socket it opens no session for')
    phase = 'ended'
    stopLimit()
    socket.close(POLICY_VIOLATION, why)
  }

  /** (Re)starts the silence timer of a live session: the caller spoke, pressed a key, or an answer ended. */
  function listen(): void {
    if (phase !== 'live' || !conversation) return
    if (silence !== null) clearTimeout(silence)
    silence = setTimeout(silent, conversation.silenceMs)
    silence.unref()
  }

  /** The caller said nothing for the conversation's silenceMs: the last sentence and `end` (not while an answer is still being made). */
  function silent(): void {
    silence = null
    if (phase !== 'live' || !conversation) return
    if (current) return listen()
    void stream(conversation.silent())
  }

  /** The longest call: not queued behind a turn that waits on its model; that turn stops, the last sentence and `end` follow. */
  function timeUp(): void {
    limit = null
    if (phase !== 'live' || !conversation) return
    if (current) current.cancelled = true
    void stream(conversation.timeUp())
  }

  function send(message: Record<string, unknown>): void {
    if (phase === 'closed') return
    try {
      socket.send(JSON.stringify(message))
    } catch (error) {
      context.warn({ decisionId, err: error }, 'the assistant relay could not send a message')
    }
  }

  function end(handoff: HandoffData): void {
    if (phase === 'ended' || phase === 'closed') return
    phase = 'ended'
    stopLimit()
    if (current) current.cancelled = true
    send({ type: 'end', handoffData: JSON.stringify(handoff) })
  }

  async function closeConversation(reason: 'ended' | 'socket_dropped' | 'error', detail?: string): Promise<void> {
    const open = conversation
    if (conversationClosed || !open) return
    conversationClosed = true
    try {
      await open.close(reason, detail)
    } catch (error) {
      context.warn({ decisionId, err: error }, 'the assistant conversation did not close cleanly')
    }
  }

  async function stream(outputs: AsyncIterable<RelayOutput>): Promise<void> {
    const turn: Turn = { cancelled: false }
    current = turn
    let lastSent = true
    try {
      for await (const output of outputs) {
        if (turn.cancelled) break
        if (output.type === 'text') {
          send({ type: 'text', token: output.token, last: output.last })
          lastSent = output.last
          continue
        }
        if (!lastSent) send({ type: 'text', token: '', last: true })
        end(output.handoff === null ? { reason: 'ended' } : { reason: 'transfer', to: output.handoff.to, whisper: output.handoff.whisper })
        return
      }
      // A turn that stopped without its last token still closes the utterance for the caller.
      if (!turn.cancelled && !lastSent) send({ type: 'text', token: '', last: true })
      if (current === turn) listen()
    } catch (error) {
      context.warn({ decisionId, err: error }, 'the assistant failed mid-turn; the call ends')
      end({ reason: 'error' })
      await closeConversation('error', error instanceof Error ? error.message : String(error))
    } finally {
      if (current === turn) current = null
    }
  }

  async function setup(callSid: string): Promise<void> {
    if (callSid !== call.callSid) return refuse('setup names another call')
    phase = 'opening'
    let opened: Awaited<ReturnType<CarrierCallbackContext['openAssistant']>>
    try {
      opened = await context.openAssistant(decisionId, callSid)
    } catch (error) {
      context.warn({ decisionId, err: error }, 'the assistant could not start; the call ends')
      end({ reason: 'error' })
      return
    }
    if (phase !== 'opening') {
      // The socket closed while the conversation was being opened: close it at once.
      if (opened && 'conversation' in opened) {
        conversation = opened.conversation
        await closeConversation('socket_dropped', 'the relay socket closed during setup')
      }
      return
    }
    if (opened === null) return refuse('no live call without a session')
    if ('refuse' in opened) return end({ reason: 'refused', goodbye: opened.refuse.goodbye })
    conversation = opened.conversation
    phase = 'live'
    limit = setTimeout(timeUp, conversation.limitMs)
    limit.unref()
    listen()
  }

  function handle(message: Inbound): void {
    switch (message.type) {
      case 'setup':
        if (phase !== 'setup') return
        if (silence !== null) clearTimeout(silence)
        silence = null
        queue = queue.then(() => setup(message.callSid))
        return
      case 'interrupt':
        // At once, not queued: the answer being streamed stops now, and the conversation may stop its model.
        listen()
        if (current) current.cancelled = true
        if (phase === 'live') conversation?.interrupt(message.utteranceUntilInterrupt ?? '')
        return
      case 'prompt':
        // Partial prompts are not asked for; a partial one is skipped.
        if (message.last === false) return
        listen()
        queue = queue.then(() => (phase === 'live' && conversation ? stream(conversation.prompt(message.voicePrompt)) : undefined))
        return
      case 'dtmf':
        listen()
        queue = queue.then(() => (phase === 'live' && conversation ? stream(conversation.dtmf(message.digit)) : undefined))
        return
      case 'error':
        context.warn({ decisionId, description: message.description }, 'ConversationRelay reported an error')
        return
    }
  }

  return {
    receive(data: string): void {
      let parsed: unknown
      try {
        parsed = JSON.parse(data)
      } catch {
        context.warn({ decisionId }, 'the assistant relay received a frame that is not JSON')
        return
      }
      const message = inbound.safeParse(parsed)
      if (!message.success) {
        // Types Leadline does not use (and future ones) are skipped; a setup that is not one ends the socket.
        if ((parsed as { type?: unknown } | null)?.type === 'setup') socket.close(POLICY_VIOLATION, 'invalid setup')
        return
      }
      handle(message.data)
    },
    closed(code: number): void {
      const endedByUs = phase === 'ended'
      stopLimit()
      if (current) current.cancelled = true
      phase = 'closed'
      // Not behind a turn still waiting on its model: the call is over now.
      void closeConversation(endedByUs ? 'ended' : 'socket_dropped', endedByUs ? undefined : `the relay socket closed (${code})`)
    },
  }
}
