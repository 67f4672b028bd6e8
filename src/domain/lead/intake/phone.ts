// Phone numbers as received by the webhook: the identity key for dedup
// (spec §4.1 rule 2: last ten digits) and an E.164 number for dialing.
// Parsing is libphonenumber's; only the fallbacks for numbers it cannot
// place are ours.

import { isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js'
import type { CountryCode } from 'libphonenumber-js'
import { readFieldValue } from './field-value.ts'

export type PhoneErrorCode = 'phone_required' | 'phone_invalid'

export interface PhoneError {
  code: PhoneErrorCode
  message: string
}

export interface NormalizedPhone {
  /** E.164, for dialing. */
  e164: string
  /** Last ten digits of the input: the dedup identity key. */
  last10: string
  /** The value as received, stringified (arrays: the element used). */
  raw: string
  /**
   * Whether the number is valid in a numbering plan libphonenumber knows (its country's, or North
   * America's for ten NANP-shaped digits). False for a number kept only by the fallbacks below
   * (`0000000000`, `+999…`): still a lead, and still dialable, but worth a warning to the sender.
   */
  valid: boolean
}

export type PhoneResult = { ok: true; phone: NormalizedPhone } | { ok: false; error: PhoneError }

/** The spec's exact wording for a missing phone (spec §4.1 behaviour 1, §7.2). */
export const PHONE_REQUIRED_MESSAGE = 'phone required'

/** The error for a body with no usable phone field. */
export function phoneRequired(): PhoneError {
  return { code: 'phone_required', message: PHONE_REQUIRED_MESSAGE }
}

const IDENTITY_DIGITS = 10
const MAX_E164_DIGITS = 15

// A NANP number: area code and exchange both start 2-9. Ten such digits are
// North American whatever the account's country, once that country's own
// numbering plan has declined them.
const NANP_TEN_DIGITS = /^[2-9]\d{2}[2-9]\d{6}$/

// The countries whose own ten-digit numbers are dialled with +1 even when
// they are not (yet) assigned NANP ranges.
const PLUS_ONE_COUNTRIES: ReadonlySet<string> = new Set(['US', 'CA'])

// A trailing extension (`x12`, `ext. 12`, `extension 12`, `#12`) is not part
// of the line's identity: without this, `555-123-4567 x89` would key as
// `5123456789`.
// Written without adjacent `\s*` runs so a hostile value cannot make it backtrack.
const EXTENSION_SUFFIX = /(?:ext(?:ension)?\.?|x|#)[\s:]*\d{1,7}\s*$/i

/** Normalise a raw phone value (string, number or array) for dialing and dedup. */
export function normalizePhone(raw: unknown, defaultCountry = 'US'): PhoneResult {
  const value = readFieldValue(raw)
  if (value.kind === 'absent') {
    return { ok: false, error: phoneRequired() }
  }
  if (value.kind === 'object') {
    return invalid('phone must be text or a number, not an object')
  }
  const line = stripExtension(value.text)
  const digits = line.replace(/\D/g, '')
  if (digits.length < IDENTITY_DIGITS) {
    return invalid(
      `phone must contain at least ${IDENTITY_DIGITS} digits; received ${digits.length} in ${JSON.stringify(clip(value.text))}`,
    )
  }
  const dialable = toE164(line, digits, resolveCountry(defaultCountry))
  if (dialable === undefined) {
    return invalid(`phone ${JSON.stringify(clip(value.text))} cannot be read as a dialable number`)
  }
  return { ok: true, phone: { e164: dialable.e164, last10: digits.slice(-IDENTITY_DIGITS), raw: value.text, valid: dialable.valid } }
}

/**
 * The dedup identity key of any phone value: the last ten digits, or
 * undefined when there are fewer. Callers that look leads up by phone use
 * this so their key always matches intake's.
 */
export function phoneIdentity(raw: unknown): string | undefined {
  const value = readFieldValue(raw)
  if (value.kind !== 'text') return undefined
  const digits = stripExtension(value.text).replace(/\D/g, '')
  return digits.length < IDENTITY_DIGITS ? undefined : digits.slice(-IDENTITY_DIGITS)
}

/** The account country as libphonenumber knows it; unknown codes fall back to US, the service's home plan. */
export function resolveCountry(defaultCountry: string): CountryCode {
  const code = defaultCountry.trim().toUpperCase()
  return isSupportedCountry(code) ? code : 'US'
}

// Ten digits and nothing else, the first 2-9, in a +1 country: libphonenumber reads them as +1 and
// those digits, and when it calls them impossible the NANP fallbacks below say the same; so it is
// not asked (checked for every area code and exchange, US and CA; phone.test.ts samples it).
const PLAIN_NANP_LINE = /^[2-9]\d{9}$/

interface Dialable {
  readonly e164: string
  readonly valid: boolean
}

/**
 * The number to dial. A reading valid in the account's country wins; then ten NANP-shaped digits
 * as North American (a US number sent to a GB account without +1); then, marked not valid,
 * whatever the digits can still be dialed as, so a lead is never lost to a numbering plan.
 *
 * A +1 number is valid on its shape (area code and exchange 2-9), not by libphonenumber's list of
 * assigned area codes: plans add codes faster than a dependency is upgraded, and the same number
 * must not be valid written `2125550142` and invalid written `(212) 555-0142`.
 */
function toE164(line: string, digits: string, country: CountryCode): Dialable | undefined {
  if (PLUS_ONE_COUNTRIES.has(country) && PLAIN_NANP_LINE.test(line)) return { e164: `+1${line}`, valid: NANP_TEN_DIGITS.test(line) }
  const parsed = parsePhoneNumberFromString(line, { defaultCountry: country })
  if (parsed !== undefined && (parsed.isValid() || (parsed.countryCallingCode === '1' && NANP_TEN_DIGITS.test(parsed.nationalNumber)))) {
    return { e164: parsed.number, valid: true }
  }
  const international = line.trimStart().startsWith('+')
  const nanpShaped = digits.length === IDENTITY_DIGITS && NANP_TEN_DIGITS.test(digits)
  if (nanpShaped && !international) return { e164: `+1${digits}`, valid: true }
  const unverified = (e164: string): Dialable => ({ e164, valid: false })
  if (parsed !== undefined && (parsed.isPossible() || international)) return unverified(parsed.number)
  if (digits.length > IDENTITY_DIGITS && digits.length <= MAX_E164_DIGITS) {
    return { e164: `+${digits}`, valid: parsePhoneNumberFromString(`+${digits}`)?.isValid() === true }
  }
  if (digits.length === IDENTITY_DIGITS && PLUS_ONE_COUNTRIES.has(country)) return unverified(`+1${digits}`)
  return undefined
}

function stripExtension(text: string): string {
  const match = EXTENSION_SUFFIX.exec(text)
  // At most seven digits follow the marker, so `x5551234567` is never cut.
  return match === null ? text : text.slice(0, match.index)
}

function invalid(message: string): PhoneResult {
  return { ok: false, error: { code: 'phone_invalid', message } }
}

// Error messages echo the input; keep them short whatever was posted.
function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text
}
