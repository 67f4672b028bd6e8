/**
 * The tools the assistant may use in a call (issue #29 item 4), each validated with zod before
 * Leadline runs it; the model sees their JSON Schema. A tool's result is a short line the model reads:
 * `ok: …` or `refused: …` with the reason, so it can correct itself (a refused callback time).
 */
import { z } from 'zod'
import { DISPOSITIONS } from '../../domain/lead/assistant/assistant.events.ts'
import type { ToolSpec } from '../../integrations/assistant/assistant-provider.port.ts'

/** What end_call may say: transferred and opted out come from their own tools, never from end_call. */
export const END_DISPOSITIONS = DISPOSITIONS.filter((d) => d !== 'transferred' && d !== 'opted_out')

export const TOOL_ARGUMENTS = {
  record_answer: z
    .object({
      question: z.string().min(1).max(200).describe("The brief's question: its number (1, 2, …) or its words"),
      answer: z.string().min(1).max(1000).describe("What the lead said, briefly, in your words (at most 200 characters are kept)"),
    })
    .strict(),
  book_callback: z
    .object({ at: z.string().min(10).max(40).describe("When to call back: ISO 8601 with the lead's UTC offset, e.g. 2026-03-02T15:30:00-05:00") })
    .strict(),
  transfer_to_person: z.object({}).strict(),
  mark_do_not_call: z.object({}).strict(),
  end_call: z.object({ disposition: z.enum(END_DISPOSITIONS as [string, ...string[]]).describe('How the call went') }).strict(),
} as const

export type ToolName = keyof typeof TOOL_ARGUMENTS

const DESCRIPTIONS: Readonly<Record<ToolName, string>> = {
  record_answer: "Record the lead's answer to one of the brief's questions, as soon as they answer it.",
  book_callback: 'Book a callback at a time the lead chose. Leadline refuses times outside calling hours and says why; then offer another time.',
  transfer_to_person: 'Hand the call to a person at the business now (only when the lead wants it). Say you are connecting them first.',
  mark_do_not_call: 'The lead asked not to be called again: they are never called again, and the call ends.',
  end_call: 'End the call once you have said goodbye, with how it went.',
}

export const TOOL_SPECS: readonly ToolSpec[] = (Object.keys(TOOL_ARGUMENTS) as ToolName[]).map((name) => {
  const { $schema: _, ...parameters } = z.toJSONSchema(TOOL_ARGUMENTS[name]) as Record<string, unknown>
  return { name, description: DESCRIPTIONS[name], parameters }
})

export function isToolName(name: string): name is ToolName {
  return Object.hasOwn(TOOL_ARGUMENTS, name)
}

/** The arguments, validated; or why not, in words for the model. */
export function toolArguments(name: ToolName, json: string): { ok: true; args: Record<string, unknown> } | { ok: false; why: string } {
  let raw: unknown
  try {
    raw = json.trim() === '' ? {} : JSON.parse(json)
  } catch {
    return { ok: false, why: 'the arguments are not JSON' }
  }
  const parsed = TOOL_ARGUMENTS[name].safeParse(raw)
  if (parsed.success) return { ok: true, args: parsed.data as Record<string, unknown> }
  const issue = parsed.error.issues[0]
  return { ok: false, why: `invalid ${issue?.path.join('.') || 'arguments'}: ${issue?.message ?? 'invalid'}` }
}
