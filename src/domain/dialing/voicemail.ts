/**
 * The message Leadline leaves when a machine answers a call to a lead: the account's template with
 * `{first_name}`, `{business}` and `{callback_number}` filled in, or a recording the account hosts.
 * At most `voicemailPerDay` messages to one lead in any 24 hours; later machines are hung up on.
 */
import { fillTemplate, templateProblem } from '../shared/template.ts'

export const DEFAULT_VOICEMAIL =
  'Hi {first_name}, this is {business} returning your request. Please call us back at {callback_number}. Thank you, goodbye.'
export const VOICEMAIL_PLACEHOLDERS = ['first_name', 'business', 'callback_number'] as const
export const MAX_VOICEMAIL = 600
export const DEFAULT_VOICEMAILS_PER_DAY = 1
export const MAX_VOICEMAILS_PER_DAY = 5

/** Why a template cannot be used, or null when it can. */
export function voicemailTemplateProblem(template: string): string | null {
  return templateProblem(template, VOICEMAIL_PLACEHOLDERS, MAX_VOICEMAIL)
}

export interface VoicemailValues {
  /** The lead's first name, or null when the lead gave none ("there" is said instead). */
  readonly firstName: string | null
  readonly business: string
  /** The account's number (E.164), read out digit by digit. */
  readonly callbackNumber: string
}

/** The template with every placeholder filled, in one pass (a value that looks like a placeholder stays as written). */
export function renderVoicemail(template: string, values: VoicemailValues): string {
  return fillTemplate(template, {
    first_name: values.firstName ?? 'there',
    business: values.business,
    callback_number: spokenNumber(values.callbackNumber),
  })
}

/** `+15125550100` → `5 1 2, 5 5 5, 0 1 0 0` for a North American number; otherwise digit by digit. */
export function spokenNumber(e164: string): string {
  const digits = e164.replace(/\D/g, '')
  const national = digits.length === 11 && digits.startsWith('1') ? digits.slice(1) : digits
  const groups = national.length === 10 ? [national.slice(0, 3), national.slice(3, 6), national.slice(6)] : [national]
  return groups.map((group) => group.split('').join(' ')).join(', ')
}
