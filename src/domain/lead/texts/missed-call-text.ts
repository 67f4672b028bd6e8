/**
 * The text a caller receives after a missed inbound call (issue #43): the account's template with
 * `{business}` (the account's name) and `{first_name}` filled in; the texts slice adds the opt-out
 * line. Off (null) sends none. At most one a caller in any 24 hours (texts.decider.ts).
 */
import { fillTemplate, templateProblem } from '../../shared/template.ts'

export const DEFAULT_MISSED_CALL_TEXT = "Hi {first_name}, sorry we missed your call at {business}. We'll call you back shortly; reply here if there's anything we should know."
export const MISSED_CALL_TEXT_PLACEHOLDERS = ['business', 'first_name'] as const
/** Two SMS segments of plain text with room for the name, the business and the opt-out line. */
export const MAX_MISSED_CALL_TEXT = 240
/** What `--missed-call-text` takes to turn the text-back off. */
export const MISSED_CALL_TEXT_OFF = 'off'
/** A missed call waits at most this long for its text-back: a runner far behind after a long stop sends none. */
export const MISSED_CALL_TEXT_WITHIN_MS = 15 * 60 * 1000
/** At most one text-back a caller in any window this long (rolling, like voicemails per day). */
export const MISSED_CALL_TEXT_EVERY_MS = 24 * 60 * 60 * 1000

/** Why a template cannot be used, or null when it can. */
export function missedCallTextProblem(template: string): string | null {
  return templateProblem(template, MISSED_CALL_TEXT_PLACEHOLDERS, MAX_MISSED_CALL_TEXT)
}

/** The template filled in one pass (a value that looks like a placeholder stays as written). */
export function renderMissedCallText(template: string, values: { readonly business: string; readonly firstName: string | null }): string {
  return fillTemplate(template, { business: values.business, first_name: values.firstName ?? 'there' })
}
