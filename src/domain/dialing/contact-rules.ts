/**
 * The calling rules as data: one row per jurisdiction, each with its citation. The lead-time guard
 * (calling-window.ts) applies every row that reaches the lead, and `mayCall` (may-call.ts) takes the
 * smallest daily cap among them; the stricter rule always wins because every row must be met.
 *
 * Which rows reach a lead: the federal row always; a state's row when the lead's `state` field is
 * that state, and also when the lead's area code is that state's (Florida, Oklahoma and Maryland
 * presume a caller with their area code lives there), so a 305 number with `state: GA` is held to
 * Florida's rule as well as Georgia's. The other rows reach a lead the same two ways: their laws say
 * nothing of area codes, and reading them by area code too can only make the check stricter.
 *
 * Zones: a state row's hours are read in the lead's own zone when the area code places the lead in
 * that very state; otherwise (the state named only by the `state` field, or only by the area code of
 * another state) the lead's zone within the state is unknown, and the hours are read in every zone the
 * state spans, which is the strictest reading (for Florida: from 08:00 Central to 20:00 Eastern).
 *
 * Days: `hours` hold every day unless `days` gives a weekday other hours, or null for no calls that
 * day (Sunday in several states). The weekday is the lead's, read in the same zone as the hours.
 * State holidays are not modelled (see docs/dialing.md): the rows below that also forbid holidays say so.
 *
 * Only rules whose text and citation we read in a source are listed, each row naming that source; a
 * state absent here is held to the federal row. Docs: docs/dialing.md, "Calling and texting rules".
 */
import { usStateCode } from '../lead/intake/us-states.ts'
import { areaCodePlace } from './lead-time-zone.ts'

/** Wall-clock hours, half-open [start, end). */
export interface RuleHours {
  readonly start: string
  readonly end: string
}

/** ISO weekday, 1 = Monday … 7 = Sunday. */
export type Weekday = 1 | 2 | 3 | 4 | 5 | 6 | 7

export interface ContactRule {
  /** `US` for the federal rule, else the state's two-letter code. */
  readonly jurisdiction: string
  /** Short name shown in refusals (`rule` on a CallCheck). */
  readonly rule: string
  /** Where the rule is written. */
  readonly citation: string
  /** Wall-clock hours, half-open [start, end), in the lead's zone. */
  readonly hours: RuleHours
  /** Weekdays whose hours differ from `hours`; null: no calls at all that day. */
  readonly days?: Readonly<Partial<Record<Weekday, RuleHours | null>>>
  /** At most this many calls to one person in any rolling 24 hours; null when the rule sets none. */
  readonly maxPer24h: number | null
  /** Every IANA zone the state spans (empty for the federal row: the lead's zone is used). */
  readonly zones: readonly string[]
}

export const FEDERAL_RULE: ContactRule = {
  jurisdiction: 'US',
  rule: 'TCPA 64.1200(c)(1)',
  citation: '47 CFR 64.1200(c)(1) (Telephone Consumer Protection Act)',
  hours: { start: '08:00', end: '21:00' },
  maxPer24h: null,
  zones: [],
}

export const STATE_RULES: readonly ContactRule[] = [
  {
    jurisdiction: 'FL',
    rule: 'FL 501.616',
    citation: 'Fla. Stat. § 501.616(6)',
    hours: { start: '08:00', end: '20:00' },
    maxPer24h: 3,
    zones: ['America/New_York', 'America/Chicago'],
  },
  {
    jurisdiction: 'OK',
    rule: 'OK 775C.4',
    citation: 'Okla. Stat. tit. 15, § 775C.4',
    hours: { start: '08:00', end: '20:00' },
    maxPer24h: 3,
    zones: ['America/Chicago'],
  },
  {
    jurisdiction: 'MD',
    rule: 'MD 14-4503',
    citation: 'Md. Code, Com. Law § 14-4503',
    hours: { start: '08:00', end: '20:00' },
    maxPer24h: 3,
    zones: ['America/New_York'],
  },
  {
    // Source: https://app.leg.wa.gov/RCW/default.aspx?cite=19.158.040 — "before 8:00 a.m. or after
    // 8:00 p.m. at the call recipient's local time".
    jurisdiction: 'WA',
    rule: 'WA 19.158.040',
    citation: 'RCW 19.158.040(2)',
    hours: { start: '08:00', end: '20:00' },
    maxPer24h: null,
    zones: ['America/Los_Angeles'],
  },
  {
    // Source: https://codes.findlaw.com/ut/title-13-commerce-and-trade/ut-code-sect-13-25a-103/ —
    // not "between the hours of 9 p.m. and 8 a.m. local time", "on a Sunday" or "on a legal holiday".
    jurisdiction: 'UT',
    rule: 'UT 13-25a-103',
    citation: 'Utah Code § 13-25a-103(3)',
    hours: { start: '08:00', end: '21:00' },
    days: { 7: null },
    maxPer24h: null,
    zones: ['America/Denver'],
  },
  {
    // Source: https://getpocketlaw.com/law/state_mississippi/section-77-3-723-rules-for-authorized-calls_57b73fa7ff73
    // — "between the hours of 8:00 a.m. and 8:00 p.m. Central Standard Time. No telephone
    // solicitations may be made on a Sunday." Read on the Central clock, the lead's own.
    jurisdiction: 'MS',
    rule: 'MS 77-3-723',
    citation: 'Miss. Code Ann. § 77-3-723(1)',
    hours: { start: '08:00', end: '20:00' },
    days: { 7: null },
    maxPer24h: null,
    zones: ['America/Chicago'],
  },
  {
    // Source: https://lawserver.com/?p=30183792 (La. R.S. 45:811) — calls by ADAD equipment or a live
    // operator only "between the hours of 8:00 a.m. and 8:00 p.m., Monday through Saturday", never
    // "on days declared to be a state holiday, or Sundays".
    jurisdiction: 'LA',
    rule: 'LA 45:811',
    citation: 'La. R.S. 45:811',
    hours: { start: '08:00', end: '20:00' },
    days: { 7: null },
    maxPer24h: null,
    zones: ['America/Chicago'],
  },
  {
    // Sources: http://webserver.rilin.state.ri.us/Statutes/TITLE5/5-61/5-61-3.6.HTM (calls only during
    // "hours of operation") and https://instalawyer.io/laws/rhode-island-general-laws/section-5-61-2-definitions
    // — "Monday through Friday, except a state or federal holiday, 9:00 a.m. to 6:00 p.m.; Saturday
    // 10:00 a.m. to 5:00 p.m." Sunday is not among them.
    jurisdiction: 'RI',
    rule: 'RI 5-61-3.6',
    citation: 'R.I. Gen. Laws § 5-61-3.6, hours of operation in § 5-61-2',
    hours: { start: '09:00', end: '18:00' },
    days: { 6: { start: '10:00', end: '17:00' }, 7: null },
    maxPer24h: null,
    zones: ['America/New_York'],
  },
]

/** The hours a row allows on an ISO weekday; null when it allows no calls that day. */
export function ruleHoursOn(rule: ContactRule, weekday: Weekday): RuleHours | null {
  const day = rule.days?.[weekday]
  return day === undefined ? rule.hours : day
}

const WEEKDAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const

/** The row's week in words: `08:00-20:00`, or `Mon-Fri 09:00-18:00, Sat 10:00-17:00, Sun no calls`. */
export function ruleHoursText(rule: ContactRule): string {
  const texts = ([1, 2, 3, 4, 5, 6, 7] as const).map((day) => {
    const hours = ruleHoursOn(rule, day)
    return hours === null ? 'no calls' : `${hours.start}-${hours.end}`
  })
  if (texts.every((text) => text === texts[0])) return texts[0] ?? ''
  const parts: string[] = []
  let first = 0
  for (let i = 1; i <= texts.length; i++) {
    if (i < texts.length && texts[i] === texts[first]) continue
    const days = i - 1 === first ? WEEKDAY_NAMES[first] : `${WEEKDAY_NAMES[first]}-${WEEKDAY_NAMES[i - 1]}`
    parts.push(`${days} ${texts[first]}`)
    first = i
  }
  return parts.join(', ')
}

/** Every row of the table, federal first. */
export const CONTACT_RULES: readonly ContactRule[] = [FEDERAL_RULE, ...STATE_RULES]

/** One state row as it reaches one lead: the zones its hours are read in. */
export interface AppliedStateRule {
  readonly rule: ContactRule
  readonly zones: readonly string[]
  /** How the state reached the lead. */
  readonly from: 'state' | 'area_code' | 'state_and_area_code'
}

/** The state rows that reach a lead with this `state` field and phone number. */
export function stateRulesFor(target: { state?: string | undefined; phone?: string | undefined }): readonly AppliedStateRule[] {
  const fromState = target.state === undefined ? undefined : usStateCode(target.state)
  const place = target.phone === undefined ? undefined : areaCodePlace(target.phone)
  const fromAreaCode = place?.region.startsWith('US-') === true ? place.region.slice(3) : undefined
  const applied: AppliedStateRule[] = []
  for (const rule of STATE_RULES) {
    const byState = rule.jurisdiction === fromState
    const byAreaCode = rule.jurisdiction === fromAreaCode
    if (!byState && !byAreaCode) continue
    // The area code places the lead inside this state: its zone is the lead's own.
    const zones = byAreaCode && place !== undefined && rule.zones.includes(place.zone) ? [place.zone] : rule.zones
    applied.push({ rule, zones, from: byState && byAreaCode ? 'state_and_area_code' : byState ? 'state' : 'area_code' })
  }
  return applied
}

/** The smallest daily cap among the state rows that reach the lead, with its row; null when none sets one. */
export function strictestDailyCap(applied: readonly AppliedStateRule[]): { readonly max: number; readonly rule: ContactRule } | null {
  let best: { max: number; rule: ContactRule } | null = null
  for (const { rule } of applied) {
    if (rule.maxPer24h !== null && (best === null || rule.maxPer24h < best.max)) best = { max: rule.maxPer24h, rule }
  }
  return best
}
