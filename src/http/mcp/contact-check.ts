/** The `check` member of place_call and send_sms: the one contact policy's answer, in snake_case. */
import { z } from 'zod'
import type { ContactCheck } from '../../domain/dialing/may-call.ts'

/** The check's output schema; `dailyLimit` is the tool's own (a call always has one, a text may not). */
export function contactCheckOutput<L extends z.ZodType>(dailyLimit: L) {
  return z.object({
    allowed: z.boolean(),
    reason: z
      .string()
      .nullable()
      .describe('When not allowed: do_not_call, suppressed (the number itself opted out by text), test_lead, no_caller_id, phone_not_valid, number_type_not_allowed, country_not_allowed, daily_limit, outside_calling_hours, outside_lead_hours, no_calling_hours'),
    message: z.string(),
    next_allowed_at: z.string().nullable().describe('ISO UTC; null when allowed now, or when never'),
    account_zone: z.string(),
    lead_zone: z.string().nullable().describe("The lead's zone: its state's, else its number's"),
    lead_zones: z
      .array(z.string())
      .describe("Every zone the lead may be in (its state's and its number's when they disagree): a contact is allowed only when each is inside the lead's hours"),
    daily_limit: dailyLimit,
    rule: z.string().nullable().describe('The calling rule that refused, e.g. "FL 501.616" or "TCPA 64.1200(c)(1)" (docs/dialing.md); null when none did'),
  })
}

/** A check as the tools answer it; a call's daily limit stays a number. */
export function contactCheckOf<C extends ContactCheck>(check: C): ReturnType<typeof snake> & { daily_limit: C['dailyLimit'] } {
  return snake(check)
}

function snake(check: ContactCheck) {
  return {
    allowed: check.allowed,
    reason: check.reason,
    message: check.message,
    next_allowed_at: check.nextAllowedAt,
    account_zone: check.accountZone,
    lead_zone: check.leadZone,
    lead_zones: [...check.leadZones],
    daily_limit: check.dailyLimit,
    rule: check.rule ?? null,
  }
}
