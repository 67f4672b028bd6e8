/**
 * Open slots: the type's bookable hours, in the account's zone, less busy times (the owner's own events
 * and booked appointments) widened by the buffer, less what is too soon, less days already full. Each
 * slot is shown in the account's zone and in the lead's.
 *
 * Daylight-saving choices, as calling hours make them (calling-window.ts): hours are wall-clock times;
 * a window that starts inside a spring-forward gap begins at the first instant after the gap; slots
 * step through real time from the window's start, so a fall-back day's repeated hour holds real slots.
 * Pure: `now` comes in as an argument; the server's zone is never used.
 */
import { DateTime, IANAZone } from 'luxon'
import { parseCallingHours, type CallingWindow } from '../account/calling-hours.ts'
import { DomainError } from '../shared/decider.ts'
import type { AppointmentType } from './appointment-type.ts'
import { mergeSpans, overlapsAny, type Span } from './intervals.ts'

/** The longest range one question may cover (a month and a bit): slots are offered, not listed for a year. */
export const MAX_RANGE_DAYS = 62

export interface OpenSlotsQuery {
  readonly type: AppointmentType
  /** The account's IANA zone: bookable hours and days are read in it. */
  readonly accountZone: string
  /** The account's business hours, for a type without hours of its own. */
  readonly accountHours: string
  /** The lead's IANA zone when known. */
  readonly leadZone: string | null
  /** ISO instants; slots starting in [from, to). */
  readonly from: string
  readonly to: string
  /** Busy intervals from the calendar (ISO instants), in any order. */
  readonly busy: readonly { readonly start: string; readonly end: string }[]
  /** Start instants of this type's appointments already booked, to count against `maxPerDay`. */
  readonly booked?: readonly string[]
  /** Days (YYYY-MM-DD on the account's clock) whose places for this type are all taken (the day claims say so). */
  readonly fullDays?: readonly string[]
}

export interface OpenSlot {
  /** UTC ISO instants. */
  readonly start: string
  readonly end: string
  /** The start on the account's wall clock, with its offset (`2026-03-10T09:00:00.000-04:00`). */
  readonly accountTime: string
  /** The start on the lead's wall clock, or null when the lead's zone is unknown. */
  readonly leadTime: string | null
}

const MINUTE = 60_000

export function openSlots(query: OpenSlotsQuery, now: Date): OpenSlot[] {
  const { type, accountZone, leadZone } = query
  for (const zone of [accountZone, leadZone]) {
    if (zone !== null && !IANAZone.isValidZone(zone)) throw new DomainError('invalid_time_zone', `unknown time zone "${zone}"`, { zone })
  }
  const from = instant(query.from, 'from')
  const to = instant(query.to, 'to')
  if (!(to > from)) throw new DomainError('invalid_range', '`to` must be after `from`')
  if (to - from > MAX_RANGE_DAYS * 24 * 60 * MINUTE) throw new DomainError('range_too_long', `a range may cover at most ${MAX_RANGE_DAYS} days`)

  const windows = parseCallingHours(type.bookableHours ?? query.accountHours)
  const duration = type.durationMinutes * MINUTE
  const buffer = type.bufferMinutes * MINUTE
  const earliest = Math.max(from, now.getTime() + type.minimumNoticeMinutes * MINUTE)
  const busy = mergeSpans(query.busy.map((b) => ({ start: instant(b.start, 'busy'), end: instant(b.end, 'busy') })))
  const perDay = bookedPerDay(query.booked ?? [], accountZone)
  const fullDays = new Set(query.fullDays ?? [])

  const slots: OpenSlot[] = []
  for (const window of windowsBetween(windows, accountZone, from, to)) {
    for (let start = window.start; start + duration <= window.end && start < to; start += duration) {
      if (start < earliest) continue
      if (overlapsAny(start - buffer, start + duration + buffer, busy)) continue
      if (type.maxPerDay !== null && (perDay.get(dayOf(start, accountZone)) ?? 0) >= type.maxPerDay) continue
      if (fullDays.size > 0 && fullDays.has(dayOf(start, accountZone))) continue
      slots.push({
        start: new Date(start).toISOString(),
        end: new Date(start + duration).toISOString(),
        accountTime: DateTime.fromMillis(start, { zone: accountZone }).toISO()!,
        leadTime: leadZone === null ? null : DateTime.fromMillis(start, { zone: leadZone }).toISO()!,
      })
    }
  }
  // Windows of one day may overlap (`mon-fri 09:00-12:00, mon 10:00-14:00`): one slot per start.
  return [...new Map(slots.map((s) => [s.start, s])).values()].sort((a, b) => a.start.localeCompare(b.start))
}

function instant(text: string, field: string): number {
  const ms = Date.parse(text)
  if (Number.isNaN(ms) || !/(Z|[+-]\d{2}:?\d{2})$/i.test(text)) {
    throw new DomainError('invalid_range', `${field} must be an ISO 8601 instant with a zone or offset: ${JSON.stringify(text)}`)
  }
  return ms
}

/** The account's day (YYYY-MM-DD) an instant falls on. */
export function dayOf(ms: number, zone: string): string {
  return DateTime.fromMillis(ms, { zone }).toISODate()!
}

function bookedPerDay(starts: readonly string[], zone: string): Map<string, number> {
  const counts = new Map<string, number>()
  for (const start of starts) {
    const day = dayOf(instant(start, 'booked'), zone)
    counts.set(day, (counts.get(day) ?? 0) + 1)
  }
  return counts
}

/** Each bookable window that meets [from, to), as real instants, from the day before `from` (a window may cross midnight). */
function windowsBetween(windows: readonly CallingWindow[], zone: string, from: number, to: number): Span[] {
  const out: Span[] = []
  const last = DateTime.fromMillis(to, { zone }).startOf('day')
  for (let day = DateTime.fromMillis(from, { zone }).startOf('day').minus({ days: 1 }); day <= last; day = day.plus({ days: 1 })) {
    for (const window of windows) {
      if (!window.days.includes(day.weekday)) continue
      const start = wallInstant(day, window.start, zone)
      const end = wallInstant(window.end <= window.start ? day.plus({ days: 1 }) : day, window.end, zone)
      if (end > start && end > from && start < to) out.push({ start, end })
    }
  }
  return out
}

/** The instant `minutes` after midnight on `day`'s wall clock; inside a spring-forward gap, the gap's end. */
function wallInstant(day: DateTime, minutes: number, zone: string): number {
  if (minutes === 1440) return day.plus({ days: 1 }).startOf('day').toMillis()
  const wanted = DateTime.fromObject({ year: day.year, month: day.month, day: day.day, hour: Math.floor(minutes / 60), minute: minutes % 60 }, { zone })
  if (wanted.hour * 60 + wanted.minute === minutes) return wanted.toMillis()
  // luxon moved a time in the gap forward by the gap's length; the gap ends where the offset last changed before it.
  let low = wanted.toMillis() - 3 * 60 * MINUTE
  let high = wanted.toMillis()
  while (high - low > MINUTE) {
    const mid = low + Math.floor((high - low) / 2 / MINUTE) * MINUTE
    if (DateTime.fromMillis(mid, { zone }).offset === wanted.offset) high = mid
    else low = mid
  }
  return high
}
