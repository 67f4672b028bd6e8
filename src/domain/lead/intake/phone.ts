// Phone numbers as received by the webhook and place_call: the identity key for dedup (spec §4.1
// rule 2: last ten digits), an E.164 number for dialing, and whether it is a valid number at all.
// Reading is libphonenumber's (its full metadata, the same the call decision reads number types
// with); a number written without + or an international prefix is read in the account's country only.

import { getCountryCallingCode, isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js/max'
import type { CountryCode } from 'libphonenumber-js/max'
import { readFieldValue } from './field-value.ts'
import { nanpLineIsValid } from './nanp-validity.ts'

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
   * Whether libphonenumber reads it as a valid number: in the account's country, or in the country
   * its + or international prefix names. False (`0000000000`, `312-555-0142 (cell) 2`, a JSON number
   * with a fraction): still a lead, kept as read, but never dialed (the call check refuses it).
   */
  valid: boolean
  /** An extension written after the number (`x123`, `ext. 4`): kept apart, never dialed as digits. */
  extension?: string
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

// A trailing extension (`x12`, `ext. 12`, `extension 12`, `#12`) is not part of the line's identity:
// without this, `555-123-4567 x89` would key as `5123456789`.
// Written without adjacent `\s*` runs so a hostile value cannot make it backtrack.
const EXTENSION_SUFFIX = /(?:ext(?:ension)?\.?|x|#)[\s:]*(\d{1,7})\s*$/i

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
  const reading = readNumber(value.text, line, digits, resolveCountry(defaultCountry))
  if (reading === undefined) {
    return invalid(`phone ${JSON.stringify(clip(value.text))} cannot be read as a dialable number`)
  }
  // A JSON number is a phone's digits only when it is a whole number: 3125550144.5 is no phone.
  const fractional = value.number !== undefined && !Number.isInteger(value.number)
  const extension = reading.extension ?? EXTENSION_SUFFIX.exec(value.text)?.[1]
  return {
    ok: true,
    phone: { e164: reading.e164, last10: digits.slice(-IDENTITY_DIGITS), raw: value.text, valid: reading.valid && !fractional, ...(extension ? { extension } : {}) },
  }
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

interface Reading {
  readonly e164: string
  readonly valid: boolean
  readonly extension?: string | undefined
}

// Ten digits and nothing else, the first 2-9, in a +1 country: libphonenumber reads them as +1 and
// those digits (phone.test.ts samples it), so they are checked in that form, which it reads faster.
const PLAIN_NANP_LINE = /^[2-9]\d{9}$/
const PLUS_ONE_COUNTRIES: ReadonlySet<string> = new Set(['US', 'CA'])

// `00` is the international prefix of most of the world; a sender in the US may still write it.
const DOUBLE_ZERO = /^\s*00/

/**
 * The number as libphonenumber reads it in the account's country (where a + or that country's own
 * international prefix, such as 011 from the US, names another). A number that does not read as
 * valid there is never reinterpreted as some other country's (the digits of `312-555-0142 (cell) 2`
 * are a Dutch number): it is kept as read, not valid; `00` is the one international prefix tried
 * besides the country's own.
 */
function readNumber(text: string, line: string, digits: string, country: CountryCode): Reading | undefined {
  if (PLUS_ONE_COUNTRIES.has(country) && PLAIN_NANP_LINE.test(line)) {
    return { e164: `+1${line}`, valid: nanpLineIsValid(line) }
  }
  // Trimmed: libphonenumber reads at most 250 characters, and padding must not make a number unreadable.
  const parsed = parsePhoneNumberFromString(text.trim(), { defaultCountry: country }) ?? parsePhoneNumberFromString(line.trim(), { defaultCountry: country })
  if (parsed?.isValid()) return { e164: parsed.number, valid: true, extension: parsed.ext }
  if (DOUBLE_ZERO.test(line)) {
    const international = parsePhoneNumberFromString(line.replace(DOUBLE_ZERO, '+'))
    if (international?.isValid()) return { e164: international.number, valid: true, extension: parsed?.ext }
  }
  if (parsed !== undefined && parsed.number.length <= MAX_E164_DIGITS + 1) return { e164: parsed.number, valid: false, extension: parsed.ext }
  // Nothing libphonenumber could place: the digits as a number of the country the sender named, or else the account's.
  const e164 = line.trimStart().startsWith('+') ? `+${digits}` : `+${getCountryCallingCode(country)}${digits}`
  return e164.length <= MAX_E164_DIGITS + 1 ? { e164, valid: false } : undefined
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
