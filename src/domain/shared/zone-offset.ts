/**
 * A zone's UTC offset through one UTC hour, asked of luxon once and kept: turning an instant into a
 * wall clock (calling hours, the reports' day and hour buckets) would otherwise build a luxon DateTime
 * each time. A zone changes its offset at most once an hour, so the offset at the hour's first and last
 * millisecond, when equal, holds for the whole hour.
 */
import { DateTime } from 'luxon'

export const HOUR_MS = 3_600_000

const kept = new Map<string, number | null>()
const KEPT = 50_000

/**
 * The offset (minutes) of `zone` through the UTC hour that starts at `hourStart`, when it is the same
 * at the hour's first and last millisecond; null when it changes within the hour, or luxon does not
 * know the zone: the caller asks luxon about those instants itself.
 */
export function steadyHourOffset(zone: string, hourStart: number): number | null {
  const key = `${zone}\u0000${hourStart}`
  let offset = kept.get(key)
  if (offset === undefined) {
    const first = DateTime.fromMillis(hourStart, { zone })
    const last = DateTime.fromMillis(hourStart + HOUR_MS - 1, { zone })
    offset = first.isValid && last.isValid && first.offset === last.offset ? first.offset : null
    if (kept.size >= KEPT) kept.clear()
    kept.set(key, offset)
  }
  return offset
}
