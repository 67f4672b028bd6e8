/**
 * A person calling one of the accounts' numbers, as a carrier reports it and asks what the caller
 * hears next. The composition root implements it with commands (src/commands/inbound-call.command.ts);
 * the carrier turns each answer into its own instructions (Twilio: inbound-twiml.ts). Every step is
 * keyed by the carrier's call id and recorded once on the caller's lead, so a repeated callback
 * changes nothing.
 */
/** What the assistant opens with (carrier.port.ts's AssistantGreeting: the same shape, declared here so the two ports do not import each other). */
interface AssistantGreeting {
  readonly greeting: string
  readonly voice: string | null
  readonly language: string
}

/** The call as it comes in (Twilio's voice webhook: `CallSid`, `From`, `To`). */
export interface InboundCallRequest {
  readonly callId: string
  readonly from: string
  readonly to: string
}

/** One owner number rung for the call, by its index in the account's list (from 0). */
export interface RingLeg {
  readonly leg: number
  readonly number: string
}

/**
 * What the caller hears next:
 * - `hang_up`: `say` (when not null), then the call ends (an unowned number, a finished call);
 * - `ring`: `greeting` (naming the business; null after the first leg), then the `legs` rung with a whisper, all at once or one;
 * - `assistant`: the voice assistant takes the call, keyed by `decisionId`, opening with `greeting`;
 * - `menu`: nobody can take it: `say`, a key (1) for a call back, then a voicemail of at most `voicemailSeconds` (null: none);
 * - `record`: the voicemail alone (the caller pressed no key for a call back).
 */
export type InboundAnswer =
  | { readonly kind: 'hang_up'; readonly say: string | null }
  | { readonly kind: 'ring'; readonly greeting: string | null; readonly legs: readonly RingLeg[] }
  | { readonly kind: 'assistant'; readonly decisionId: string; readonly greeting: AssistantGreeting }
  | { readonly kind: 'menu'; readonly say: string; readonly voicemailSeconds: number | null }
  /** The caller's voicemail: `say`, then a recording of at most `seconds`. */
  | { readonly kind: 'record'; readonly say: string; readonly seconds: number }

/** What an owner who pressed a key on the whisper hears: connected, the call already taken by someone else, or a goodbye. */
export type WhisperKeyAnswer = 'connect' | 'taken' | 'declined'

export interface InboundCallReports {
  /** The voice webhook: the call recorded on the caller's lead (a new lead when not on record), and what they hear first. */
  receive(call: InboundCallRequest): Promise<InboundAnswer>
  /** What owner leg `leg` hears before it may take the call ("Call from NAME about SOURCE, press 1 to take it"); null: not Leadline's call. */
  whisper(callId: string, leg: number): Promise<string | null>
  /** A key owner leg `leg` pressed: the first 1 takes the call, claimed on the log. Null: not Leadline's call. */
  whisperKey(callId: string, leg: number, digit: string): Promise<WhisperKeyAnswer | null>
  /** The owner legs ended (the `<Dial>`'s action): done when someone took the call; else the next leg, or what follows when nobody can. */
  dialEnded(callId: string, leg: number): Promise<InboundAnswer | null>
  /** The key the caller pressed in the menu (1: a call back; none: the voicemail, when it is on). */
  menuKey(callId: string, digit: string): Promise<InboundAnswer | null>
  /** The caller's voicemail ended: only its length is recorded (the recording stays with the carrier). */
  voicemail(callId: string, durationSeconds: number | null): Promise<InboundAnswer | null>
  /** The call's final status; false when it is not a call Leadline answered. */
  ended(callId: string, status: string, durationSeconds: number | null): Promise<boolean>
}
