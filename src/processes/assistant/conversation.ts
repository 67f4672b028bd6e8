/**
 * The seam between the conversation engine (the account's brief, the model or the scripted assistant,
 * the in-call tools, the events) and the telephony that carries it (Twilio ConversationRelay's
 * WebSocket, the TwiML on answer, the handoff). The telephony side knows only these types.
 */

/** What the relay says back for one turn. */
export type RelayOutput =
  | { readonly type: 'text'; readonly token: string; readonly last: boolean }
  /** End the call. handoff: the WebSocket sends ConversationRelay `end` with handoffData; the action route dials `to`. */
  | { readonly type: 'end'; readonly handoff: { readonly to: string; readonly whisper: string } | null }

/** Which call: `decisionId` is Leadline's call decision (the answer URL's `decision`), `callSid` the carrier's call id. */
export interface ConversationStart { readonly accountId: string; readonly decisionId: string; readonly callSid: string }

/** Why the call must end at once, and what the lead hears before it does. */
export interface AssistantRefusal { readonly goodbye: string; readonly reason: string }

/** What the TwiML at answer time needs: the welcome greeting and ConversationRelay's voice and language. */
export interface AssistantGreeting { readonly greeting: string; readonly voice: string | null; readonly language: string }

export interface Conversation {
  /** ConversationRelay `prompt` (the caller's finished utterance). Streams tokens as the model produces them. */
  prompt(text: string): AsyncIterable<RelayOutput>
  /** ConversationRelay `dtmf`: 9 = opt out (without the model). */
  dtmf(digit: string): AsyncIterable<RelayOutput>
  /** ConversationRelay `interrupt`: the caller spoke over us; what was spoken so far. */
  interrupt(utteranceUntilInterrupt: string): void
  /** The longest call (the brief's, in ms): the telephony ends the call at this age even if no one speaks. */
  readonly limitMs: number
  /** The longest call was reached: the last sentence, then `end` (recorded as the brief's time limit). */
  timeUp(): AsyncIterable<RelayOutput>
  /** How long the lead may say nothing (no word, no key) before the telephony ends the session with `silent`. */
  readonly silenceMs: number
  /** The lead said nothing for `silenceMs`: the last sentence, then `end` (recorded with why). */
  silent(): AsyncIterable<RelayOutput>
  /** The socket closed ('ended'), dropped, or errored: records AssistantCallEnded once (no_conversation unless decided). */
  close(reason: 'ended' | 'socket_dropped' | 'error', detail?: string): Promise<void>
}

export interface Assistant {
  /** For the TwiML at answer time: the welcome greeting (names the business, says it is an automated assistant and
   *  why it calls) and ConversationRelay's voice/language; `refuse` when the call must end at once (lead gone,
   *  do-not-call, outside calling hours now, the account's assistant calls at their limit) with a polite goodbye. */
  prepare(start: ConversationStart): Promise<AssistantGreeting | { readonly refuse: AssistantRefusal }>
  /**
   * When the WebSocket's `setup` arrives: checks again (same refusals), then the live conversation; null
   * (nothing recorded, no slot held) unless it is the live call placed for the decision with no session yet.
   */
  open(start: ConversationStart): Promise<{ readonly conversation: Conversation } | { readonly refuse: AssistantRefusal } | null>
}
