/**
 * The language model behind the voice assistant (issue #29): one turn at a time, streamed. Adapters:
 * `openai/` (the `openai` SDK), `anthropic/` (`@anthropic-ai/sdk`), `scripted/` (no model: rules over
 * the brief). Chosen by `open-assistant-provider.ts` from LEADLINE_ASSISTANT_PROVIDER. Leadline runs the
 * tools the model asks for (the engine in src/processes/assistant/); an adapter only carries them.
 */
import type { BriefQuestion } from '../../domain/account/assistant-brief.ts'

/** A tool offered to the model: JSON Schema parameters (from zod), validated again by Leadline before it runs. */
export interface ToolSpec {
  readonly name: string
  readonly description: string
  readonly parameters: Readonly<Record<string, unknown>>
}

export interface ToolCall {
  readonly id: string
  readonly name: string
  /** The arguments as the model wrote them (JSON text, unvalidated). */
  readonly arguments: string
}

export type ChatMessage =
  | { readonly role: 'user'; readonly text: string }
  /** `mark`: the scripted assistant's own note of where it is (models never see it). */
  | { readonly role: 'assistant'; readonly text: string; readonly toolCalls: readonly ToolCall[]; readonly mark?: string }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly name: string; readonly result: string }

/** The call's facts as the scripted assistant needs them; a model reads the same in `system`. */
export interface CallFacts {
  readonly businessName: string
  readonly assistantName: string
  readonly questions: readonly BriefQuestion[]
  /** A transfer number is set: transfer_to_person may be offered. */
  readonly canTransfer: boolean
  readonly leadName: string | null
  /** The zone times are spoken and read in: the lead's, else the account's. */
  readonly timeZone: string
  readonly now: Date
  /** The person called the account's number (an inbound call): the assistant answers, it did not call them. */
  readonly calledIn?: boolean
}

export interface TurnRequest {
  readonly system: string
  readonly messages: readonly ChatMessage[]
  readonly tools: readonly ToolSpec[]
  readonly facts: CallFacts
  /** Aborted when the caller interrupts, the turn times out, or the call ends: stop reading the stream. */
  readonly signal: AbortSignal
}

export type TurnChunk =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_call'; readonly call: ToolCall }
  | { readonly type: 'mark'; readonly mark: string }

export interface AssistantProvider {
  /** `openai`, `anthropic`, `scripted`: recorded on AssistantCallEnded. */
  readonly name: string
  readonly model: string | null
  /** No model: the greeting says so. */
  readonly scripted: boolean
  /** One turn: text as it is produced, tool calls once each is complete. Throws on a provider error. */
  turn(request: TurnRequest): AsyncIterable<TurnChunk>
}
