// Whether libphonenumber reads a +1 number of ten plain digits as valid, remembered by its leading
// digits. Every number-type pattern of the +1 countries ends in `\d{k}` (any k digits), so on a
// ten-digit number its answer depends on the first 10 - k digits only; the deepest (Barbados',
// Jamaica's) read seven. That depth is worked out from the metadata when this module loads, so a
// metadata update that reads deeper turns the memo off rather than making it wrong. The webhook reads
// a number per new lead, and libphonenumber's reading of a +1 number walks every +1 country's patterns.

import { Metadata, parsePhoneNumberFromString } from 'libphonenumber-js/max'
import type { CountryCode } from 'libphonenumber-js/max'

/** Digits of a number beyond which no +1 pattern looks (a memo key no longer than this is exact). */
const MAX_KEY_DIGITS = 7
const NUMBER_TYPES = ['FIXED_LINE', 'MOBILE', 'TOLL_FREE', 'PREMIUM_RATE', 'PERSONAL_NUMBER', 'VOIP', 'UAN', 'PAGER', 'VOICEMAIL', 'SHARED_COST'] as const
const NANP_LENGTH = 10

/** A pattern's top-level alternatives (`a|b(c|d)` is `a` and `b(c|d)`). */
function alternatives(pattern: string): string[] {
  const parts: string[] = []
  let depth = 0
  let inClass = false
  let start = 0
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '\\') i++
    else if (inClass) inClass = c !== ']'
    else if (c === '[') inClass = true
    else if (c === '(') depth++
    else if (c === ')') depth--
    else if (c === '|' && depth === 0) {
      parts.push(pattern.slice(start, i))
      start = i + 1
    }
  }
  parts.push(pattern.slice(start))
  return parts
}

// The numbering plans as libphonenumber's Metadata holds them: methods its own parser calls, which its
// typings leave out. Should a release rename them, nanpDecidingDigits says null and the memo is off.
interface PlanReader {
  getCountryCodesForCallingCode(callingCode: string): readonly CountryCode[] | undefined
  selectNumberingPlan(country: CountryCode): void
  readonly numberingPlan?: {
    leadingDigits(): string | undefined | 0
    nationalNumberPattern(): string
    nationalPrefixForParsing(): string | undefined
    type(type: string): { pattern(): string } | undefined
  }
}

/**
 * How many leading digits of a ten-digit +1 number decide libphonenumber's answer: the most any
 * pattern of any +1 country reads before its `\d{k}` tail (a pattern without one counts as all ten).
 * Null when that is more than MAX_KEY_DIGITS, when a country is placed by leading digits written in
 * more than digits and classes, or when the main country strips anything but a leading 1.
 */
export function nanpDecidingDigits(): number | null {
  try {
    const metadata = new Metadata() as unknown as PlanReader
    let deepest = 0
    for (const country of metadata.getCountryCodesForCallingCode('1') ?? []) {
      metadata.selectNumberingPlan(country)
      const plan = metadata.numberingPlan
      if (plan === undefined) return null
      // Leading digits (`268`, `8001|8[024]9`) place a country by the number's first few digits only.
      const leading: unknown = plan.leadingDigits()
      if (typeof leading === 'string' && leading !== '') {
        if (!/^[\d|[\]-]+$/.test(leading)) return null
        deepest = Math.max(deepest, ...alternatives(leading).map((a) => a.replace(/\[[^\]]*\]/g, 'd').length))
      }
      for (const pattern of [plan.nationalNumberPattern(), ...NUMBER_TYPES.map((type) => plan.type(type)?.pattern())]) {
        if (pattern === undefined) continue
        for (const alternative of alternatives(pattern)) {
          // An empty alternative (a type the plan leaves empty) matches no ten-digit number.
          if (alternative === '') continue
          const tail = /(?<!\\)\\d\{(\d+)\}$/.exec(alternative)
          deepest = Math.max(deepest, NANP_LENGTH - (tail ? Number(tail[1]) : 0))
        }
      }
    }
    metadata.selectNumberingPlan('US')
    if (metadata.numberingPlan?.nationalPrefixForParsing() !== '1') return null
    return deepest > 0 && deepest <= MAX_KEY_DIGITS ? deepest : null
  } catch {
    return null
  }
}

const DECIDING_DIGITS = nanpDecidingDigits()
// Two bits a key (known, valid), for every key of DECIDING_DIGITS digits: at most 2.5 MB, filled as numbers come.
const known = DECIDING_DIGITS === null ? null : new Uint8Array(Math.ceil(10 ** DECIDING_DIGITS / 4))

/** Whether libphonenumber reads `+1{line}` as valid; `line` is ten digits, the first 2 to 9. */
export function nanpLineIsValid(line: string): boolean {
  if (known === null || DECIDING_DIGITS === null) return readsValid(line)
  const key = Number(line.slice(0, DECIDING_DIGITS))
  const at = key >> 2
  const shift = (key & 3) * 2
  const bits = ((known[at] as number) >> shift) & 3
  if (bits !== 0) return bits === 3
  const valid = readsValid(line)
  known[at] = (known[at] as number) | ((valid ? 3 : 1) << shift)
  return valid
}

function readsValid(line: string): boolean {
  return parsePhoneNumberFromString(`+1${line}`)?.isValid() === true
}
