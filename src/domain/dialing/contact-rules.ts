/**
 * The calling rules as data: one row per jurisdiction, each with its citation. The lead-time guard
 * (calling-window.ts) applies every row that reaches the lead, and `mayCall` (may-call.ts) takes the
 * smallest daily cap among them; the stricter rule always wins because every row must be met.
 *
 * Which rows reach a lead: the federal row always; a state's row when the lead's `state` field is
 * that state, and also when the lead's area code is that state's (Florida, Oklahoma and Maryland
 * presume a caller with their area code lives there), so a 305 number with `state: GA` is held to
 * Florida's rule as well as Georgia's.
 *
 * Zones: a state row's hours are read in the lead's own zone when the area code places the lead in
 * that very state; otherwise (the state named only by the `state` field, or only by the area code of
 * another state) the lead's zone within the state is unknown, and the hours are read in every zone the
 * state spans, which is the strictest reading (for Florida: from 08:00 Central to 20:00 Eastern).
 *
 * Only rules whose text and citation we are sure of are listed; a state absent here is held to the
 * federal row. Docs: docs/dialing.md, "Calling and texting rules".
 */
import { usStateCode } from '../lead/intake/us-states.ts'
import { areaCodePlace } from './lead-time-zone.ts'

export interface ContactRule {
  /** `US` for the federal rule, else the state's two-letter code. */
  readonly jurisdiction: string
  /** Short name shown in refusals (`rule` on a CallCheck). */
  readonly rule: string
  /** Where the rule is written. */
  readonly citation: string
  /** Wall-clock hours, half-open [start, end), in the lead's zone. */
  readonly hours: { readonly start: string; readonly end: string }
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
]

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
