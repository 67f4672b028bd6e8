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
  find_appointment_slots: z
    .object({
      day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be an ISO date such as 2026-03-12').optional().describe("The day the lead asked for, as an ISO date (YYYY-MM-DD) on the lead's calendar; leave out for the first open times"),
      after: z.string().regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/, "must be an ISO date or an ISO 8601 time with the lead's offset").optional()
        .describe("The earliest the lead can do: an ISO date, or an ISO 8601 time with the lead's UTC offset, e.g. 2026-03-12T13:00:00-05:00"),
    })
    .strict(),
  book_appointment: z
    .object({ start: z.string().min(10).max(40).describe('The ISO start of the time the lead chose, exactly as find_appointment_slots gave it, e.g. 2026-03-12T15:00:00Z') })
    .strict(),
  transfer_to_person: z.object({}).strict(),
  mark_do_not_call: z.object({}).strict(),
  end_call: z.object({ disposition: z.enum(END_DISPOSITIONS as [string, ...string[]]).describe('How the call went') }).strict(),
} as const

export type ToolName = keyof typeof TOOL_ARGUMENTS

const DESCRIPTIONS: Readonly<Record<ToolName, string>> = {
  record_answer: "Record the lead's answer to one of the brief's questions, as soon as they answer it.",
  book_callback: 'Book a callback at a time the lead chose. Leadline refuses times outside calling hours and says why; then offer another time.',
  find_appointment_slots:
    "Find open times for an appointment. Answers two or three times, each as it is said on the lead's clock with its ISO start in brackets. Offer only these times.",
  book_appointment:
    'Book the appointment at one of the offered times, once the lead has confirmed it. A time just taken is refused with the next open times: offer those.',
  transfer_to_person: 'Hand the call to a person at the business now (only when the lead wants it). Say you are connecting them first.',
  mark_do_not_call: 'The lead asked not to be called again: they are never called again, and the call ends.',
  end_call: 'End the call once you have said goodbye, with how it went.',
}

/** Offered to the model only when the account's assistant books appointments (assistant-booking.ts). */
export const BOOKING_TOOLS: ReadonlySet<ToolName> = new Set(['find_appointment_slots', 'book_appointment'])

const ALL_SPECS: readonly ToolSpec[] = (Object.keys(TOOL_ARGUMENTS) as ToolName[]).map((name) => {
  const { $schema: _, ...parameters } = z.toJSONSchema(TOOL_ARGUMENTS[name]) as Record<string, unknown>
  return { name, description: DESCRIPTIONS[name], parameters }
})

/** The tools the model is given: the booking ones only when booking is on. */
export function toolSpecs(booking: boolean): readonly ToolSpec[] {
  return booking ? ALL_SPECS : ALL_SPECS.filter((spec) => !BOOKING_TOOLS.has(spec.name as ToolName))
}

/** A tool the model was given: a booking tool asked for while booking is off is no tool at all. */
export function isToolName(name: string, booking: boolean): name is ToolName {
  return Object.hasOwn(TOOL_ARGUMENTS, name) && (booking || !BOOKING_TOOLS.has(name as ToolName))
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
