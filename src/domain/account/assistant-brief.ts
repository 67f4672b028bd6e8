/**
 * The account's brief for its voice assistant (issue #29, docs/assistant.md "The brief"): what the
 * business does, the questions to ask in order (each with what a good answer is), when callbacks may
 * be booked, where a call is handed to a person, the assistant's name, voice and language, the
 * longest call, how many assistant calls may run at once, and the appointment type it books. One setting (`assistantBrief`), kept
 * on the account's stream as the other settings are, replaced whole.
 */
import { z } from 'zod'
import { normaliseCallingHours } from './calling-hours.ts'

export interface BriefQuestion {
  readonly question: string
  /** What a good answer is: the assistant's yardstick for `qualified`. */
  readonly goodAnswer: string
}

export interface AssistantBrief {
  readonly business: string
  readonly questions: readonly BriefQuestion[]
  /** Calling-hours spec (calling-hours.ts) a booked callback must also fall in; null: the account's calling hours alone. */
  readonly callbackWindows: string | null
  /** E.164: where `transfer_to_person` hands the call; null: no transfer, a callback is offered instead. */
  readonly transferNumber: string | null
  readonly assistantName: string
  /** ConversationRelay `voice`; null: the provider's default for the language. */
  readonly voice: string | null
  /** ConversationRelay `language` (BCP 47). */
  readonly language: string
  readonly maxCallMinutes: number
  /** At most this many assistant calls of the account at once; more are refused at answer time. */
  readonly maxConcurrentCalls: number
  /** The lead fields (by name) the model may read besides the names, source and state; withheld-looking ones never (model-view.ts). */
  readonly leadFields: readonly string[]
  /**
   * The appointment type the assistant books in the call (docs/assistant.md "Booking appointments");
   * null: the account's only type, or no booking when it has several or none. Briefs kept before
   * issue #45 lack it: read it through `assistantBooking` (assistant-booking.ts), which takes that as null.
   */
  readonly appointmentTypeId: string | null
}

export const MAX_BRIEF_QUESTIONS = 10
export const MAX_CALL_MINUTES = 15
export const MAX_CONCURRENT_CALLS = 50
/** What record_answer keeps of one answer, at most (characters). */
export const MAX_ANSWER = 200

export const DEFAULT_BRIEF: AssistantBrief = {
  business: '',
  questions: [],
  callbackWindows: null,
  transferNumber: null,
  assistantName: 'Alex',
  voice: null,
  language: 'en-US',
  maxCallMinutes: 5,
  maxConcurrentCalls: 3,
  leadFields: [],
  appointmentTypeId: null,
}

const e164 = /^\+[1-9]\d{6,14}$/
// Spoken aloud and placed in TwiML attributes: printable text, no markup.
const plain = (max: number) =>
  z
    .string()
    .transform((s) => s.replace(/\s+/g, ' ').trim())
    .refine((s) => s.length <= max, `must be at most ${max} characters`)
    .refine((s) => !/[<>{}\p{Cc}]/u.test(s), 'must be plain text (no < > { } or control characters)')

export const assistantBriefSchema = z
  .object({
    business: plain(1000),
    questions: z
      .array(z.object({ question: plain(200).refine((q) => q !== '', 'a question may not be empty'), goodAnswer: plain(200) }).strict())
      .max(MAX_BRIEF_QUESTIONS, `at most ${MAX_BRIEF_QUESTIONS} questions`)
      .refine((qs) => new Set(qs.map((q) => q.question.toLowerCase())).size === qs.length, 'a question is listed twice'),
    callbackWindows: z
      .string()
      .transform((spec, ctx) => {
        try {
          return normaliseCallingHours(spec)
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: (error as Error).message })
          return z.NEVER
        }
      })
      .nullable(),
    transferNumber: z.string().regex(e164, 'must be an E.164 number such as +15551234567').nullable(),
    assistantName: plain(40).refine((n) => n !== '', 'may not be empty'),
    voice: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, 'must be a ConversationRelay voice name such as en-US-Journey-O').nullable(),
    language: z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a BCP 47 language tag such as en-US'),
    maxCallMinutes: z.number().int('must be a whole number of minutes').min(1, 'must be at least 1 minute').max(MAX_CALL_MINUTES, `must be at most ${MAX_CALL_MINUTES} minutes`),
    maxConcurrentCalls: z.number().int('must be a whole number').min(1, 'must be at least 1').max(MAX_CONCURRENT_CALLS, `must be at most ${MAX_CONCURRENT_CALLS}`),
    leadFields: z.array(plain(60).refine((n) => n !== '', 'a field name may not be empty')).max(50, 'at most 50 fields'),
    // An appointment type's id (appointment-type.ts); whether the account has it is the account decider's check.
    appointmentTypeId: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "must be an appointment type's id, such as estimate").nullable(),
  })
  .partial()
  .strict()
  .transform((change) => ({ ...DEFAULT_BRIEF, ...change }))

/** One line for auditors and `settings changed` lines: the brief's shape, not its text. */
export function briefSummary(brief: AssistantBrief): string {
  const questions = brief.questions.length === 1 ? '1 question' : `${brief.questions.length} questions`
  return `${brief.assistantName}, ${questions}, transfer ${brief.transferNumber ?? 'none'}, ${brief.language}, up to ${brief.maxCallMinutes} min${brief.appointmentTypeId ? `, books ${brief.appointmentTypeId}` : ''}`
}
