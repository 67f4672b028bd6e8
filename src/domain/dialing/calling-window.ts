/**
 * Calling hours: "is it a time we may call this lead, and if not, when next?", the last of the rules
 * `mayCall` (may-call.ts) weighs; every path asks mayCall, not this module.
 *
 * A call is allowed when both hold:
 *   1. calling hours: the account's wall clock, in its IANA zone, is inside one of its weekly windows
 *      (half-open, [start, end));
 *   2. the lead-time guard (on by default): the lead's wall clock is in [08:00, 21:00) in every zone
 *      the lead may be in (its state's and its phone number's: when they disagree, both must be inside,
 *      the stricter clock wins), or the account's zone when neither is known (the federal row of
 *      contact-rules.ts), and inside the hours of every state row that reaches
 *      the lead (its state or its area code's state), read in each zone the row names for it, on that
 *      zone's weekday (a row may give Saturday other hours, or allow no calls on Sunday). The
 *      refusal names the row that refused (`rule`).
 *
 * Daylight-saving choices, all following from "windows are wall-clock times":
 *   - A window (or 08:00) that starts inside a spring-forward gap begins at the first instant after
 *     the gap; a window lying wholly inside the gap does not happen that day.
 *   - On a fall-back day a repeated wall-clock hour is inside a window both times: `01:00-02:00`
 *     then covers two real hours, and `09:00-18:00` on that day lasts ten. We measure by the clock
 *     on the wall because that is what the account wrote and what the person called sees.
 *   - A window that crosses midnight belongs to the day it starts: `fri 22:00-02:00` covers Friday
 *     22:00 to Saturday 02:00, and `sun 22:00-02:00` runs into Monday.
 * The next allowed time is searched over LOOKAHEAD_DAYS; null means none in that span (a weekly
 * schedule whose windows never meet the lead's hours), or never for `none`.
 * Pure: time comes in as an argument; the server's zone is never used.
 */
import { DateTime, IANAZone } from 'luxon'
import { formatCallingHours, parseCallingHours } from '../account/calling-hours.ts'
import type { CallingWindow } from '../account/calling-hours.ts'
import { DomainError } from '../shared/decider.ts'
import { steadyHourOffset } from '../shared/zone-offset.ts'
import { FEDERAL_RULE, ruleHoursOn, ruleHoursText, stateRulesFor, type AppliedStateRule, type ContactRule, type Weekday } from './contact-rules.ts'
import { leadTimeZones, type LeadTimeZone } from './lead-time-zone.ts'

/** The lead's own hours, in the lead's zone: never ring outside them while the guard is on. */
export const LEAD_GUARD_HOURS = FEDERAL_RULE.hours

/** How far ahead `nextAllowedAt` looks; a weekly schedule repeats within it, with a day to spare for DST. */
export const LOOKAHEAD_DAYS = 8

export interface CallingPolicy {
  /** The account's IANA zone. */
  timeZone: string
  /** A calling-hours spec (see calling-hours.ts), e.g. `mon-fri 09:00-18:00`. */
  callingHours: string
  /** Never ring a lead outside LEAD_GUARD_HOURS in the lead's own zone. */
  leadTimeGuard: boolean
}

export interface CallTarget {
  /** The lead's US state, DC or territory: code or name, any case. */
  state?: string
  /** E.164. */
  phone?: string
}

/** Where the zone used by the lead-time guard came from; `account` when the lead's own is unknown. */
export type LeadZoneSource = 'state' | 'area_code' | 'account'

export type CallRefusal = 'outside_calling_hours' | 'outside_lead_hours' | 'no_calling_hours'

export type CallPermission =
  | {
      allowed: true
      accountZone: string
      /** The lead's own zone (its state's, else its number's); null when neither state nor phone place the lead. */
      leadZone: string | null
      leadZoneFrom: LeadZoneSource
      /** Every zone the lead may be in (the state's and the number's when they differ); each must be inside the lead's hours. */
      leadZones: readonly string[]
    }
  | {
      allowed: false
      /** When both rules fail, `outside_calling_hours`. */
      reason: CallRefusal
      /** ISO UTC; null when no allowed time exists within LOOKAHEAD_DAYS (or ever, for `none`). */
      nextAllowedAt: string | null
      accountZone: string
      leadZone: string | null
      leadZoneFrom: LeadZoneSource
      leadZones: readonly string[]
      /** One sentence for people, with the next allowed time on the account's wall clock. */
      message: string
      /** The row of contact-rules.ts that refused (`FL 501.616`), for `outside_lead_hours`. */
      rule?: string
    }

/**
 * May we call `target` at `now` under `policy`? Throws DomainError `invalid_time_zone` or
 * `invalid_calling_hours` when the policy itself is broken, so a bad setting never dials.
 */
export function callPermission(policy: CallingPolicy, target: CallTarget, now: Date): CallPermission {
  const rules = resolveRules(policy, target)
  const zones = { accountZone: rules.accountZone, leadZone: rules.leadZone, leadZoneFrom: rules.leadZoneFrom, leadZones: rules.leadZones.map((z) => z.zone) }
  const verdict = judge(rules, now.getTime())
  if (verdict === 'allowed') return { allowed: true, ...zones }
  const next = earliestAllowed(rules, now.getTime())
  const guard = verdict === 'outside_lead_hours' ? failingGuard(rules, now.getTime()) : undefined
  return {
    allowed: false,
    reason: verdict,
    nextAllowedAt: next === null ? null : new Date(next).toISOString(),
    ...zones,
    message: refusalMessage(rules, verdict, next, guard),
    ...(guard === undefined ? {} : { rule: guard.rule }),
  }
}

/** The earliest instant at or after `after` when a call is allowed; null when none within LOOKAHEAD_DAYS. */
export function nextAllowedAt(policy: CallingPolicy, target: CallTarget, after: Date): Date | null {
  const next = earliestAllowed(resolveRules(policy, target), after.getTime())
  return next === null ? null : new Date(next)
}

interface Rules {
  readonly accountZone: string
  readonly windows: readonly CallingWindow[]
  /** The zones the federal guard reads (the lead's, else the account's); empty when the guard is off. */
  readonly guardZones: readonly string[]
  /** Every hours rule the lead's clock must meet, state rows first; empty when the guard is off. */
  readonly guards: readonly Guard[]
  readonly leadZone: string | null
  readonly leadZoneFrom: LeadZoneSource
  readonly leadZones: readonly LeadTimeZone[]
}

/** Minutes after local midnight, half-open [start, end). */
interface Span {
  readonly start: number
  readonly end: number
}

/** One row's hours, read in one zone. */
interface Guard {
  readonly rule: string
  readonly zone: string
  /** Indexed by ISO weekday (index 0 unused); null: no calls that day. */
  readonly days: readonly (Span | null)[]
  /** The state row this came from; absent for the federal row. */
  readonly state?: AppliedStateRule
}

const MINUTE_MS = 60_000
const HOUR_MS = 60 * MINUTE_MS
const DAY_MS = 24 * HOUR_MS
const OFFSET_SAMPLE_MS = 12 * HOUR_MS

function clockMinutes(text: string): number {
  const [hours, minutes] = text.split(':').map(Number)
  return (hours ?? 0) * 60 + (minutes ?? 0)
}

function resolveRules(policy: CallingPolicy, target: CallTarget): Rules {
  if (!IANAZone.create(policy.timeZone).isValid) {
    throw new DomainError('invalid_time_zone', `unknown IANA time zone "${policy.timeZone}"`)
  }
  const windows = parseCallingHours(policy.callingHours)
  const leadZones = leadTimeZones(target)
  const lead = leadZones[0]
  const guardZones = !policy.leadTimeGuard ? [] : leadZones.length === 0 ? [policy.timeZone] : leadZones.map((z) => z.zone)
  const guards: Guard[] = []
  if (guardZones.length > 0) {
    for (const state of stateRulesFor(target)) {
      for (const zone of state.zones) guards.push(guardOf(state.rule, zone, state))
    }
    for (const zone of guardZones) guards.push(guardOf(FEDERAL_RULE, zone))
  }
  return { accountZone: policy.timeZone, windows, guardZones, guards, leadZone: lead?.zone ?? null, leadZoneFrom: lead?.from ?? 'account', leadZones }
}

/**
 * What the answer of callPermission depends on besides the policy and the time: the lead's zones and
 * the state rows reaching it. Leads with the same key get the same answer (get_next_actions memoises by it).
 */
export function leadHoursKey(target: CallTarget): string {
  const zones = leadTimeZones(target).map((z) => z.zone)
  const rows = stateRulesFor(target).map((s) => `${s.rule.jurisdiction}:${s.zones.join('+')}`)
  return `${zones.join(',') || 'account'}|${rows.join(',')}`
}

const WEEKDAYS: readonly Weekday[] = [1, 2, 3, 4, 5, 6, 7]

function guardOf(rule: ContactRule, zone: string, state?: AppliedStateRule): Guard {
  const days = [null, ...WEEKDAYS.map((day) => {
    const hours = ruleHoursOn(rule, day)
    return hours === null ? null : { start: clockMinutes(hours.start), end: clockMinutes(hours.end) }
  })]
  return { rule: rule.rule, zone, days, ...(state === undefined ? {} : { state }) }
}

interface WallClock {
  /** ISO weekday, 1 = Monday. */
  readonly weekday: number
  /** Minutes after local midnight. */
  readonly minutes: number
}

function wallClock(ms: number, zone: string): WallClock {
  const offset = steadyHourOffset(zone, Math.floor(ms / HOUR_MS) * HOUR_MS)
  if (offset === null) {
    const local = DateTime.fromMillis(ms, { zone })
    return { weekday: local.weekday, minutes: local.hour * 60 + local.minute }
  }
  const local = new Date(ms + offset * MINUTE_MS)
  const day = local.getUTCDay()
  return { weekday: day === 0 ? 7 : day, minutes: local.getUTCHours() * 60 + local.getUTCMinutes() }
}

/** Is `now` inside these weekly windows (calling-hours syntax) on the wall clock of `zone`? Business hours ask this. */
export function withinWindows(windows: readonly CallingWindow[], zone: string, now: Date): boolean {
  return insideWindows(windows, wallClock(now.getTime(), zone))
}

function insideWindows(windows: readonly CallingWindow[], wall: WallClock): boolean {
  const yesterday = wall.weekday === 1 ? 7 : wall.weekday - 1
  return windows.some((w) =>
    w.end > w.start
      ? w.days.includes(wall.weekday) && wall.minutes >= w.start && wall.minutes < w.end
      : (w.days.includes(wall.weekday) && wall.minutes >= w.start) ||
        (w.days.includes(yesterday) && wall.minutes < w.end),
  )
}

function insideGuard(guard: Guard, ms: number): boolean {
  const wall = wallClock(ms, guard.zone)
  const span = guard.days[wall.weekday]
  return span !== null && span !== undefined && wall.minutes >= span.start && wall.minutes < span.end
}

function failingGuard(rules: Rules, ms: number): Guard | undefined {
  return rules.guards.find((guard) => !insideGuard(guard, ms))
}

function judge(rules: Rules, ms: number): 'allowed' | CallRefusal {
  if (rules.windows.length === 0) return 'no_calling_hours'
  if (!insideWindows(rules.windows, wallClock(ms, rules.accountZone))) return 'outside_calling_hours'
  if (failingGuard(rules, ms) !== undefined) return 'outside_lead_hours'
  return 'allowed'
}

// The allowed set only begins at a window start, at a row's start for the lead on that day, or where a zone's offset
// changes (a start swallowed by a spring-forward gap, an hour repeated at fall-back). So we list
// those instants over the look-ahead, check each, and take the first that passes.
function earliestAllowed(rules: Rules, after: number): number | null {
  if (rules.windows.length === 0) return null
  if (judge(rules, after) === 'allowed') return after
  const horizon = after + LOOKAHEAD_DAYS * DAY_MS
  const candidates: number[] = []
  for (const date of localDates(after, rules.accountZone)) {
    for (const w of rules.windows) {
      if (w.days.includes(date.weekday)) candidates.push(...instantsOfWallTime(date, w.start, rules.accountZone))
    }
  }
  for (const guard of rules.guards) {
    for (const date of localDates(after, guard.zone)) {
      const span = guard.days[date.weekday]
      if (span !== null && span !== undefined) candidates.push(...instantsOfWallTime(date, span.start, guard.zone))
    }
  }
  for (const zone of new Set([rules.accountZone, ...rules.guards.map((guard) => guard.zone)])) {
    candidates.push(...offsetChanges(zone, after, horizon))
  }
  const inRange = [...new Set(candidates)].filter((c) => c > after && c <= horizon).sort((a, b) => a - b)
  return inRange.find((c) => judge(rules, c) === 'allowed') ?? null
}

// Calendar dates in `zone` covering the look-ahead with a day to spare at each end, so no start near
// either edge is missed whatever the zone's offset.
function localDates(after: number, zone: string): DateTime[] {
  const local = DateTime.fromMillis(after, { zone })
  const first = DateTime.utc(local.year, local.month, local.day).minus({ days: 1 })
  return Array.from({ length: LOOKAHEAD_DAYS + 3 }, (_, i) => first.plus({ days: i }))
}

// Every instant whose wall clock in `zone` reads `minutes` on `date`: none in a gap (the offset
// changes supply that start), two in a repeated hour. Extra candidates are harmless; each is checked.
function instantsOfWallTime(date: DateTime, minutes: number, zone: string): number[] {
  const asUtc = Date.UTC(date.year, date.month - 1, date.day) + minutes * MINUTE_MS
  const tz = IANAZone.create(zone)
  const offsets = new Set([tz.offset(asUtc - DAY_MS), tz.offset(asUtc + DAY_MS)])
  return [...offsets].map((offset) => asUtc - offset * MINUTE_MS)
}

// Instants (minute precision) in (from, to] where the zone's UTC offset changes. Sampled every twelve
// hours (no zone changes offset twice in that time), then narrowed by bisection.
function offsetChanges(zone: string, from: number, to: number): number[] {
  const tz = IANAZone.create(zone)
  const changes: number[] = []
  let previous = Math.floor(from / MINUTE_MS) * MINUTE_MS
  let before = tz.offset(previous)
  while (previous < to) {
    const next = previous + OFFSET_SAMPLE_MS
    const after = tz.offset(next)
    if (after !== before) {
      let lo = previous
      let hi = next
      while (hi - lo > MINUTE_MS) {
        const mid = lo + Math.floor((hi - lo) / MINUTE_MS / 2) * MINUTE_MS
        if (tz.offset(mid) === before) lo = mid
        else hi = mid
      }
      changes.push(hi)
    }
    previous = next
    before = after
  }
  return changes
}

function wallTimeText(ms: number, zone: string): string {
  return `${DateTime.fromMillis(ms, { zone }).setLocale('en-US').toFormat('ccc d LLL yyyy HH:mm')} ${zone}`
}

function leadHoursText(rules: Rules): string {
  const hours = `${LEAD_GUARD_HOURS.start}-${LEAD_GUARD_HOURS.end}`
  if (rules.leadZones.length === 0) return `${hours} ${rules.accountZone}, the account's zone, as the lead's is unknown`
  const zoneText = (z: LeadTimeZone) => `${z.zone}, from the lead's ${z.from === 'state' ? 'state' : 'phone number'}`
  if (rules.leadZones.length === 1) return `${hours} ${zoneText(rules.leadZones[0] as LeadTimeZone)}`
  return `${hours} in each of ${rules.leadZones.map(zoneText).join(' and ')}, as they disagree`
}

function stateHoursText(guard: Guard, state: AppliedStateRule): string {
  const rule = state.rule
  const source =
    state.from === 'state' ? "the lead's state" : state.from === 'area_code' ? "the lead's area code" : "the lead's state and area code"
  const zones = state.zones.length > 1 ? `in each of ${state.zones.join(', ')}, as the lead's zone there is unknown` : guard.zone
  return `${ruleHoursText(rule)} ${zones}: ${rule.rule}, ${rule.citation}, applies by ${source}`
}

function refusalMessage(rules: Rules, reason: CallRefusal, next: number | null, guard?: Guard): string {
  if (reason === 'no_calling_hours') return 'Calling hours are "none" for this account, so no call is ever allowed.'
  const why =
    reason === 'outside_calling_hours'
      ? `Outside calling hours (${formatCallingHours(rules.windows)}, ${rules.accountZone})`
      : guard?.state !== undefined
        ? `Outside the lead's hours (${stateHoursText(guard, guard.state)})`
        : `Outside the lead's hours (${leadHoursText(rules)})`
  if (next === null) {
    return `${why}; no time in the next ${LOOKAHEAD_DAYS} days is inside both the calling hours and the lead's hours.`
  }
  const leadZones = rules.guardZones.filter((zone) => zone !== rules.accountZone)
  const clock = (zone: string) => DateTime.fromMillis(next, { zone }).toFormat('HH:mm')
  const leadSide =
    leadZones.length === 0
      ? ''
      : leadZones.length === 1
        ? ` (${clock(leadZones[0] as string)} for the lead, ${leadZones[0]})`
        : ` (for the lead: ${leadZones.map((zone) => `${clock(zone)} ${zone}`).join(', ')})`
  return `${why}; next allowed ${wallTimeText(next, rules.accountZone)}${leadSide}.`
}
