// Dates as lead vendors write them (ISO, numeric in the account's country's
// order, month names, two-digit years), and ages computed on the account's
// own calendar day.

import { DateTime, Info } from 'luxon'

export interface ParsedDate {
  /** The calendar date as written, YYYY-MM-DD. */
  date: string
  /** Full ISO 8601 with offset when the input carried a time of day, else null. */
  dateTime: string | null
}

export interface DateContext {
  /** The moment "today" is taken from (two-digit years, ages). */
  now: Date
  /** The account's IANA zone: times without an offset are read in it. */
  timeZone: string
  /**
   * The account's default country (ISO 3166 alpha-2; US when absent): it decides whether `03/04/1980`
   * is March 4 (month first, as the US writes it) or 3 April (day first, as most of the world does).
   */
  defaultCountry?: string
}

/**
 * Countries that write numeric dates month first: the US and its territories, the states in free
 * association with it, the Philippines, and Canada (where both orders are common and lead vendors
 * mostly follow the US). Everywhere else writes them day first.
 */
const MONTH_FIRST_COUNTRIES: ReadonlySet<string> = new Set(['US', 'PR', 'GU', 'VI', 'AS', 'MP', 'UM', 'FM', 'MH', 'PW', 'PH', 'CA'])

/** Whether numeric dates are read month first for this country (the US reading when none is given). */
function monthFirst(country: string | undefined): boolean {
  return MONTH_FIRST_COUNTRIES.has((country ?? 'US').toUpperCase())
}

export type AgeResult =
  | { ok: true; age: number }
  | { ok: false; code: 'dob_unparseable' | 'dob_in_future' | 'dob_implausible'; message: string }

/** Oldest age intake believes; anything older is a typo (e.g. 1880 for 1980). */
export const MAX_PLAUSIBLE_AGE = 130

// Anything longer is not a date; bounding it keeps parsing cheap on hostile input.
const MAX_DATE_TEXT = 64

// Luxon formats for four-digit years, tried in order. For a month-first country `03/04/1980` is
// March 4, and day first wins only when the month-first reading is impossible (`15/03/1980`); for a
// day-first country the other way round. Dotted dates (`15.03.1980`) are day first everywhere.
const MONTH_FIRST = ['M/d/yyyy', 'M-d-yyyy'] as const
const DAY_FIRST = ['d/M/yyyy', 'd-M-yyyy'] as const
const OTHER_FORMATS = ['d.M.yyyy', 'yyyyMMdd', 'MMMM d yyyy', 'MMM d yyyy', 'd MMMM yyyy', 'd MMM yyyy'] as const
const DATE_FORMATS = {
  monthFirst: ['yyyy-M-d', 'yyyy/M/d', ...MONTH_FIRST, ...DAY_FIRST, ...OTHER_FORMATS],
  dayFirst: ['yyyy-M-d', 'yyyy/M/d', ...DAY_FIRST, ...MONTH_FIRST, ...OTHER_FORMATS],
} as const

const TWO_DIGIT_YEAR = /^(\d{1,2})[/-](\d{1,2})[/-](\d{2})$/
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/
const TRAILING_TIME = /^(.*?)\s+(?:at\s+)?(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([ap])?\.?(?:m\.?)?$/i

/** Parse a date (optionally with a time) as vendors write it; null when it is not one. */
export function parseDateInput(text: string, ctx: DateContext): ParsedDate | null {
  const zone = zoneOrUtc(ctx.timeZone)
  const trimmed = text.trim()
  if (trimmed.length === 0 || trimmed.length > MAX_DATE_TEXT) return null
  if (ISO_DATE_TIME.test(trimmed)) return parseIsoDateTime(trimmed, zone)

  const timed = TRAILING_TIME.exec(trimmed)
  const datePart = timed?.[1] ?? trimmed
  const day = parseCalendarDay(datePart, today(ctx.now, zone), monthFirst(ctx.defaultCountry))
  if (day === null) return null
  if (timed === null) return { date: day.toISODate(), dateTime: null }

  const hour = toHour(Number(timed[2]), timed[5])
  // fromObject rejects out-of-range units (25:00, :61), unlike set(), which rolls over.
  const at = DateTime.fromObject(
    { year: day.year, month: day.month, day: day.day, hour, minute: Number(timed[3]), second: Number(timed[4] ?? 0) },
    { zone },
  )
  if (!at.isValid) return null
  return { date: day.toISODate(), dateTime: isoWithOffset(at) }
}

/** Parse a date as vendors write it into YYYY-MM-DD; null when it is not one. */
export function parseIsoDate(text: string, now: Date, timeZone = 'UTC'): string | null {
  return parseDateInput(text, { now, timeZone })?.date ?? null
}

/**
 * Whole years since a date of birth, on today's date in the account's zone
 * (not the server's): a lead in Auckland turns 40 while Los Angeles is still
 * on the day before.
 *
 * Leap-day birthdays: in a non-leap year the birthday is taken to be March 1,
 * the legal convention in most US states (and the UK), so a person born
 * 2000-02-29 is 22 on 2023-02-28 and 23 on 2023-03-01.
 */
export function ageOn(dobIso: string, now: Date, timeZone: string): AgeResult {
  const dob = DateTime.fromISO(dobIso, { zone: 'UTC' })
  if (!/^\d{4}-\d{2}-\d{2}$/.test(dobIso) || !dob.isValid) {
    return { ok: false, code: 'dob_unparseable', message: `date of birth ${JSON.stringify(dobIso)} is not a YYYY-MM-DD date` }
  }
  const current = today(now, zoneOrUtc(timeZone))
  if (dob > current) {
    return { ok: false, code: 'dob_in_future', message: `date of birth ${dobIso} is after today (${current.toISODate()}); age not computed` }
  }
  const leapDay = dob.month === 2 && dob.day === 29
  const [birthMonth, birthDay] = leapDay && !current.isInLeapYear ? [3, 1] : [dob.month, dob.day]
  const hadBirthday = current.month > birthMonth || (current.month === birthMonth && current.day >= birthDay)
  const age = current.year - dob.year - (hadBirthday ? 0 : 1)
  if (age > MAX_PLAUSIBLE_AGE) {
    return { ok: false, code: 'dob_implausible', message: `date of birth ${dobIso} gives age ${age}, over ${MAX_PLAUSIBLE_AGE}; age not computed` }
  }
  return { ok: true, age }
}

/** The account's IANA zone, or UTC when it is not one luxon knows (never throw on config). */
export function zoneOrUtc(timeZone: string): string {
  return Info.isValidIANAZone(timeZone) ? timeZone : 'UTC'
}

// Today's calendar date in the zone, as a UTC midnight so comparisons with parsed dates are by day.
function today(now: Date, zone: string): DateTime {
  const local = DateTime.fromJSDate(now, { zone })
  return DateTime.utc(local.year, local.month, local.day)
}

function parseIsoDateTime(text: string, zone: string): ParsedDate | null {
  // setZone keeps the sender's offset, so the date is the one they wrote
  // (`1980-03-15T00:00:00Z` stays March 15 even for a Pacific account).
  const at = DateTime.fromISO(text.replace(' ', 'T'), { zone, setZone: true })
  if (!at.isValid) return null
  return { date: at.toISODate(), dateTime: isoWithOffset(at) }
}

// Parse the date part alone, as a UTC midnight.
function parseCalendarDay(text: string, current: DateTime, isMonthFirst: boolean): DateTime<true> | null {
  const cleaned = text
    .toLowerCase()
    .replace(/,/g, ' ')
    .replace(/([a-z])\./g, '$1') // `Mar. 15` → `mar 15`
    .replace(/(\d)(?:st|nd|rd|th)\b/g, '$1') // `15th March` → `15 march`
    .replace(/\bsept\b/g, 'sep') // luxon knows only `Sep`
    .replace(/\s+/g, ' ')
    .trim()

  const short = TWO_DIGIT_YEAR.exec(cleaned)
  if (short !== null) return withTwoDigitYear(Number(short[1]), Number(short[2]), Number(short[3]), current, isMonthFirst)

  for (const format of DATE_FORMATS[isMonthFirst ? 'monthFirst' : 'dayFirst']) {
    const day = DateTime.fromFormat(cleaned, format, { zone: 'UTC', locale: 'en-US' })
    if (day.isValid) return day
  }
  return null
}

// `3/15/80`: the year is the most recent one that puts the date on or before
// today, since the dates intake sees (births, lead dates) are in the past.
// So on 2025-06-01, `3/15/25` is 2025 but `12/31/25` is 1925.
function withTwoDigitYear(first: number, second: number, yy: number, current: DateTime, isMonthFirst: boolean): DateTime<true> | null {
  const century = Math.floor(current.year / 100) * 100
  // The country's order as for four-digit years; the other only when that is impossible (`15/03/80`).
  const readings: Array<[month: number, day: number]> = isMonthFirst ? [[first, second], [second, first]] : [[second, first], [first, second]]
  for (const [month, day] of readings) {
    for (const year of [century + yy, century - 100 + yy]) {
      const candidate = DateTime.utc(year, month, day)
      // Invalid in one century and valid in the other happens only for Feb 29 (2000 vs 1900).
      if (candidate.isValid && candidate <= current) return candidate
    }
  }
  return null
}

// 12-hour clocks: `12 AM` is midnight, `12 PM` noon. An impossible hour
// (`13 PM`, `24:00`) becomes 25, which fromObject rejects (it accepts 24:00).
const NOT_AN_HOUR = 25
function toHour(hour: number, meridiem: string | undefined): number {
  if (meridiem === undefined) return hour <= 23 ? hour : NOT_AN_HOUR
  if (hour < 1 || hour > 12) return NOT_AN_HOUR
  const pm = meridiem.toLowerCase() === 'p'
  return (hour % 12) + (pm ? 12 : 0)
}

function isoWithOffset(at: DateTime<true>): string {
  return at.toISO({ suppressMilliseconds: true })
}
