/**
 * Where a call may go: a valid number, of a geographic kind (fixed line or mobile), in one of the
 * countries the account allows. Number types are libphonenumber's (its full metadata), so premium
 * rate (+1 900, +979), shared cost, toll free, VoIP, personal, pager, UAN and the international
 * non-geographic codes (+881/+882 satellite and networks, +800, +883, …) are never rung.
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js/max'
import type { NumberType } from 'libphonenumber-js/max'

export type DestinationRefusal = 'phone_not_valid' | 'number_type_not_allowed' | 'country_not_allowed'

/** The number types a call may go to: the ones tied to a place and a subscriber. */
export const DIALABLE_NUMBER_TYPES: ReadonlySet<NumberType> = new Set<NumberType>(['FIXED_LINE', 'MOBILE', 'FIXED_LINE_OR_MOBILE'])

export type DestinationCheck =
  | { readonly allowed: true; readonly country: string; readonly numberType: NumberType }
  | { readonly allowed: false; readonly reason: DestinationRefusal; readonly message: string; readonly country: string | null; readonly numberType: NumberType | null }

const TYPE_NAMES: Readonly<Record<string, string>> = {
  PREMIUM_RATE: 'a premium-rate number',
  SHARED_COST: 'a shared-cost number',
  TOLL_FREE: 'a toll-free number',
  VOIP: 'a VoIP (non-geographic) number',
  PERSONAL_NUMBER: 'a personal (non-geographic) number',
  PAGER: 'a pager number',
  UAN: 'a universal access number',
  VOICEMAIL: 'a voicemail access number',
}

/** What libphonenumber reads a number as: whether it is valid, its country and its type. */
interface Reading {
  readonly valid: boolean
  readonly country: string | null
  readonly numberType: NumberType | null
  readonly countryCallingCode: string
}

/**
 * Numbers read lately: a lead's number is asked about at its speed-to-lead decision, again when the
 * call is claimed, at each follow-up and text, and each reading walks libphonenumber's patterns.
 */
const readings = new Map<string, Reading>()
const READINGS_KEPT = 10_000

function read(e164: string): Reading {
  let reading = readings.get(e164)
  if (reading === undefined) {
    const parsed = parsePhoneNumberFromString(e164)
    const valid = parsed !== undefined && parsed.isValid()
    reading = { valid, country: valid ? parsed.country ?? null : null, numberType: valid ? parsed.getType() ?? null : null, countryCallingCode: parsed?.countryCallingCode ?? '' }
    if (readings.size >= READINGS_KEPT) readings.clear()
    readings.set(e164, reading)
  }
  return reading
}

/** Whether libphonenumber reads this E.164 number as valid. */
export function isValidNumber(e164: string): boolean {
  return read(e164).valid
}

/** May a call go to `e164`, given the countries allowed (ISO 3166 alpha-2, upper case)? */
export function checkDestination(e164: string, allowedCountries: readonly string[]): DestinationCheck {
  const { valid, country, numberType, countryCallingCode } = read(e164)
  if (!valid) {
    return { allowed: false, reason: 'phone_not_valid', message: `${e164} is not a valid phone number: it is never dialed`, country: null, numberType: null }
  }
  if (country === null) {
    // +800, +808, +870, +881, +882, +883, +888, +979: numbers of no country, billed as a service.
    return { allowed: false, reason: 'number_type_not_allowed', message: `${e164} is an international non-geographic number (+${countryCallingCode}: satellite, network or premium service): it is never dialed`, country, numberType }
  }
  if (numberType === null || !DIALABLE_NUMBER_TYPES.has(numberType)) {
    const kind = (numberType && TYPE_NAMES[numberType]) ?? 'not a fixed-line or mobile number'
    return { allowed: false, reason: 'number_type_not_allowed', message: `${e164} is ${kind}: only fixed-line and mobile numbers are dialed`, country, numberType }
  }
  if (!allowedCountries.includes(country)) {
    return { allowed: false, reason: 'country_not_allowed', message: `${e164} is a number in ${country}, not one of the account's allowed countries (${allowedCountries.join(', ')})`, country, numberType }
  }
  return { allowed: true, country, numberType }
}
