// An independent statement of the calling rule, for the property tests: wall clocks come from
// Intl.DateTimeFormat (not luxon), and windows are arcs on a 7-day ring of wall-clock minutes
// (not the start/end-of-day cases the implementation uses).
import type { CallingWindow } from '../../../src/domain/account/calling-hours.ts'

const WEEK_MINUTES = 7 * 1440
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']
const formatters = new Map<string, Intl.DateTimeFormat>()

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone)
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, weekday: 'short', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' })
    formatters.set(zone, f)
  }
  return f
}

/** Minutes since Monday 00:00 on the zone's wall clock. */
export function weekMinute(ms: number, zone: string): number {
  const parts = formatter(zone).formatToParts(new Date(ms))
  const part = (type: string): string => parts.find((p) => p.type === type)?.value ?? ''
  const day = WEEKDAYS.indexOf(part('weekday'))
  if (day === -1) throw new Error(`no weekday in ${JSON.stringify(parts)}`)
  return day * 1440 + Number(part('hour')) * 60 + Number(part('minute'))
}

export function oracleInWindows(windows: readonly CallingWindow[], ms: number, zone: string): boolean {
  const now = weekMinute(ms, zone)
  return windows.some((w) => {
    const length = w.end > w.start ? w.end - w.start : w.end + 1440 - w.start
    return w.days.some((day) => {
      const opens = (day - 1) * 1440 + w.start
      return (now - opens + WEEK_MINUTES) % WEEK_MINUTES < length
    })
  })
}

export function oracleInLeadHours(ms: number, zone: string): boolean {
  const minuteOfDay = weekMinute(ms, zone) % 1440
  return minuteOfDay >= 8 * 60 && minuteOfDay < 21 * 60
}

export function oracleAllowed(windows: readonly CallingWindow[], accountZone: string, guardZone: string | null, ms: number): boolean {
  return oracleInWindows(windows, ms, accountZone) && (guardZone === null || oracleInLeadHours(ms, guardZone))
}
