/**
 * Where an instant falls on a wall clock: the day, weekday and hour in a zone, for the report's
 * buckets. A zone's offset is looked up once per UTC hour (src/domain/shared/zone-offset.ts), so a
 * replay of millions of events does not build a luxon DateTime for each one.
 */
import { DateTime } from 'luxon'
import { HOUR_MS, steadyHourOffset } from '../../src/domain/shared/zone-offset.ts'

export interface LocalSlot {
  /** `YYYY-MM-DD` on the zone's calendar. */
  readonly day: string
  /** 1 (Monday) to 7 (Sunday), as ISO numbers them. */
  readonly weekday: number
  /** 0 to 23. */
  readonly hour: number
}

/** The zone's offset at the start of the UTC hour (its steady offset, kept, when it has one). */
function offsetMinutes(zone: string, hourStart: number): number {
  const steady = steadyHourOffset(zone, hourStart)
  if (steady !== null) return steady
  const time = DateTime.fromMillis(hourStart, { zone })
  return time.isValid ? time.offset : 0
}

/** The slot of ISO instant `iso` in IANA zone `zone`; null when `iso` is not an instant. */
export function localSlot(iso: string, zone: string): LocalSlot | null {
  const ms = Date.parse(iso)
  if (Number.isNaN(ms)) return null
  const local = new Date(ms + offsetMinutes(zone, Math.floor(ms / HOUR_MS) * HOUR_MS) * 60_000)
  const weekday = local.getUTCDay()
  return { day: local.toISOString().slice(0, 10), weekday: weekday === 0 ? 7 : weekday, hour: local.getUTCHours() }
}
