/**
 * TEST DOUBLE: Twilio's ConversationRelay as it connects to Leadline. A WebSocket client (`ws`, the
 * library Twilio's own examples use) that opens the relay URL Leadline gave in its TwiML, signing the
 * handshake the way Twilio does (`X-Twilio-Signature` over the wss URL with no parameters, through the
 * official SDK), then speaks ConversationRelay's messages: `setup`, `prompt`, `dtmf`, `interrupt`,
 * `error`, and collects what Leadline sends back (`text` tokens, `end` with `handoffData`).
 *
 * Not modelled: speech (prompts are text), partial prompts, `play`/`sendDigits`/`language` messages.
 */
import twilio from 'twilio'
import WebSocket from 'ws'

/** A message Leadline sent: `text` (`token`, `last`) or `end` (`handoffData`, a JSON string). */
export type RelayMessage = { readonly type: string; readonly [key: string]: unknown }

export interface RelayClient {
  /** Everything Leadline sent, in order. */
  received(): RelayMessage[]
  send(message: Record<string, unknown>): void
  setup(callSid: string, extra?: Record<string, unknown>): void
  prompt(voicePrompt: string): void
  dtmf(digit: string): void
  interrupt(utteranceUntilInterrupt: string): void
  /** Waits for the next message from now on that `match`es (default: any); rejects after `timeoutMs`. */
  next(match?: (m: RelayMessage) => boolean, timeoutMs?: number): Promise<RelayMessage>
  /** Waits for the `last: true` token of the turn being streamed: the turn's text, its tokens joined. */
  turn(timeoutMs?: number): Promise<string>
  /** Waits for `end`; its handoffData parsed. */
  ended(timeoutMs?: number): Promise<Record<string, unknown>>
  /** Closes the socket as Twilio would (1000), or drops it without a close frame. */
  close(code?: number): void
  drop(): void
  /** Resolves with the close code once the socket is closed (either side). */
  readonly closed: Promise<number>
}

export interface RelayConnectOptions {
  /** The relay URL from the TwiML (what Twilio signs), e.g. `ws://leadline.test/api/carrier/twilio/relay?decision=…`. */
  readonly url: string
  /** The listening app's origin (`http://127.0.0.1:PORT`): the socket goes there, to the same path and query. */
  readonly via: string
  readonly authToken: string
  /** Sign with another token (a forgery). */
  readonly forged?: boolean
  /** No signature header at all. */
  readonly unsigned?: boolean
}

/** Rejects with the HTTP status when the handshake is refused (`Unexpected server response: 403`). */
export async function connectRelay(options: RelayConnectOptions): Promise<RelayClient> {
  const target = new URL(options.url)
  const origin = options.via.replace(/^http/, 'ws').replace(/\/+$/, '')
  const signature = twilio.getExpectedTwilioSignature(options.forged ? `${options.authToken}-forged` : options.authToken, options.url, {})
  const socket = new WebSocket(`${origin}${target.pathname}${target.search}`, {
    headers: options.unsigned ? {} : { 'x-twilio-signature': signature },
  })
  const messages: RelayMessage[] = []
  const waiters = new Set<() => void>()
  socket.on('message', (data) => {
    messages.push(JSON.parse(String(data)) as RelayMessage)
    for (const wake of waiters) wake()
  })
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => {
    resolve(code)
    for (const wake of waiters) wake()
  }))
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve())
    socket.once('unexpected-response', (_request, response) => reject(Object.assign(new Error(`handshake refused: ${response.statusCode}`), { status: response.statusCode })))
    socket.once('error', reject)
  })

  let cursor = 0
  async function next(match: (m: RelayMessage) => boolean = () => true, timeoutMs = 30_000): Promise<RelayMessage> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      while (cursor < messages.length) {
        const message = messages[cursor++] as RelayMessage
        if (match(message)) return message
      }
      const left = deadline - Date.now()
      if (left <= 0 || socket.readyState === WebSocket.CLOSED) throw new Error(`no matching relay message within ${timeoutMs} ms; got ${JSON.stringify(messages)}`)
      await new Promise<void>((resolve) => {
        const wake = () => {
          waiters.delete(wake)
          clearTimeout(timer)
          resolve()
        }
        const timer = setTimeout(wake, left)
        waiters.add(wake)
      })
    }
  }

  const send = (message: Record<string, unknown>) => socket.send(JSON.stringify(message))
  return {
    received: () => [...messages],
    send,
    setup: (callSid, extra = {}) => send({ type: 'setup', sessionId: `VX${'0'.repeat(32)}`, accountSid: `AC${'0'.repeat(32)}`, callSid, from: '+13125550100', to: '+13125550142', direction: 'outbound-api', customParameters: {}, ...extra }),
    prompt: (voicePrompt) => send({ type: 'prompt', voicePrompt, lang: 'en-US', last: true }),
    dtmf: (digit) => send({ type: 'dtmf', digit }),
    interrupt: (utteranceUntilInterrupt) => send({ type: 'interrupt', utteranceUntilInterrupt, durationUntilInterruptMs: 400 }),
    next,
    async turn(timeoutMs = 30_000) {
      let text = ''
      for (;;) {
        const message = await next((m) => m.type === 'text' || m.type === 'end', timeoutMs)
        if (message.type === 'end') return text
        text += String(message.token)
        if (message.last === true) return text
      }
    },
    async ended(timeoutMs = 30_000) {
      const message = await next((m) => m.type === 'end', timeoutMs)
      return JSON.parse(String(message.handoffData)) as Record<string, unknown>
    },
    close: (code = 1000) => socket.close(code),
    drop: () => socket.terminate(),
    closed,
  }
}
