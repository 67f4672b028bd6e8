/**
 * Calling hours: the account's weekly windows, written as `DAYS HH:MM-HH:MM` entries separated by
 * commas (`mon-fri 09:00-18:00, sat 10:00-14:00`), `00:00-24:00` for the whole day, `none` for never.
 * A window whose end is before its start crosses midnight into the next day (`fri 22:00-02:00`).
 * Times are wall-clock times in the account's IANA zone; see calling-window.ts for the "may we call now" rule.
 */
import { DomainError } from '../shared/decider.ts'

export const DAY_NAMES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const

export interface CallingWindow {
  /** ISO weekdays the window starts on: 1 = Monday … 7 = Sunday (luxon's numbering). */
  readonly days: readonly number[]
  /** Minutes after local midnight, 0–1439. */
  readonly start: number
  /** Minutes after local midnight, 1–1440; less than or equal to start means it ends the next day. */
  readonly end: number
}

export const DEFAULT_CALLING_HOURS = 'mon-fri 09:00-18:00'

function invalid(spec: string, why: string): DomainError {
  return new DomainError('invalid_calling_hours', `invalid calling hours "${spec}": ${why}`)
}

function parseDay(name: string, spec: string): number {
  const index = DAY_NAMES.indexOf(name.slice(0, 3) as (typeof DAY_NAMES)[number])
  const full = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']
  if (index === -1 || !(name === DAY_NAMES[index] || name === full[index])) throw invalid(spec, `unknown day "${name}"`)
  return index + 1
}

function parseDays(text: string, spec: string): number[] {
  const days = new Set<number>()
  for (const part of text.split('+')) {
    const [from, to, extra] = part.split('-')
    if (extra !== undefined || from === undefined || from === '') throw invalid(spec, `bad day range "${part}"`)
    const first = parseDay(from, spec)
    if (to === undefined) {
      days.add(first)
      continue
    }
    const last = parseDay(to, spec)
    // Ranges may wrap the week end: fri-mon is fri, sat, sun, mon.
    for (let day = first; ; day = (day % 7) + 1) {
      days.add(day)
      if (day === last) break
    }
  }
  return [...days].sort((a, b) => a - b)
}

function parseClock(text: string, spec: string, allow24: boolean): number {
  const match = /^(\d{1,2}):(\d{2})$/.exec(text)
  if (!match) throw invalid(spec, `bad time "${text}" (use HH:MM)`)
  const hours = Number(match[1])
  const minutes = Number(match[2])
  if (allow24 && hours === 24 && minutes === 0) return 1440
  if (hours > 23 || minutes > 59) throw invalid(spec, `bad time "${text}"`)
  return hours * 60 + minutes
}

/** Parses a calling-hours spec; throws DomainError `invalid_calling_hours` with the reason. */
export function parseCallingHours(spec: string): CallingWindow[] {
  const normalised = spec.trim().toLowerCase()
  if (normalised === 'none') return []
  if (normalised === '') throw invalid(spec, 'empty (use "none" for never)')
  return normalised.split(',').map((entry) => {
    const match = /^\s*([a-z+-]+)\s+(\S+)-(\S+)\s*$/.exec(entry)
    if (!match) throw invalid(spec, `entry "${entry.trim()}" is not "DAYS HH:MM-HH:MM"`)
    const days = parseDays(match[1] as string, spec)
    const start = parseClock(match[2] as string, spec, false)
    const end = parseClock(match[3] as string, spec, true)
    if (start === end) throw invalid(spec, `window "${entry.trim()}" is empty`)
    return { days, start, end }
  })
}

function formatClock(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`
}

function formatDays(days: readonly number[]): string {
  const runs: string[] = []
  let i = 0
  while (i < days.length) {
    let j = i
    while (j + 1 < days.length && (days[j + 1] as number) === (days[j] as number) + 1) j++
    const first = DAY_NAMES[(days[i] as number) - 1] as string
    const last = DAY_NAMES[(days[j] as number) - 1] as string
    runs.push(i === j ? first : `${first}-${last}`)
    i = j + 1
  }
  return runs.join('+')
}

/** The canonical spelling of a spec, as stored in events and shown to people. */
export function formatCallingHours(windows: readonly CallingWindow[]): string {
  if (windows.length === 0) return 'none'
  return windows.map((w) => `${formatDays(w.days)} ${formatClock(w.start)}-${formatClock(w.end)}`).join(', ')
}

export function normaliseCallingHours(spec: string): string {
  return formatCallingHours(parseCallingHours(spec))
}
