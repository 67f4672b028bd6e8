/**
 * A lead's appointments as they stand at `now`, for the people reading them (get_lead, the lead's
 * console page): upcoming (booked, not ended) soonest first, then past (ended, cancelled or marked)
 * latest first, each with its times in the account's zone and in the lead's.
 */
import { DateTime } from 'luxon'
import type { AppointmentRecord, AppointmentsState } from './appointments.decider.ts'

export interface ZonedTimes {
  readonly zone: string
  /** ISO 8601 with the zone's offset at that moment. */
  readonly start: string
  readonly end: string
}

export interface AppointmentView {
  readonly record: AppointmentRecord
  /** Booked and not ended at `now`. */
  readonly upcoming: boolean
  /** Started at `now` (so it may be marked attended or no-show), and not cancelled. */
  readonly markable: boolean
  readonly account: ZonedTimes
  /** In the lead's zone: the booking's, else the one their state or number places them in; null when neither tells. */
  readonly lead: ZonedTimes | null
}

export function zonedTimes(record: Pick<AppointmentRecord, 'start' | 'end'>, zone: string): ZonedTimes {
  const at = (iso: string) => DateTime.fromISO(iso, { zone: 'utc' }).setZone(zone).toISO({ suppressMilliseconds: true }) as string
  return { zone, start: at(record.start), end: at(record.end) }
}

export function appointmentViews(appointments: AppointmentsState, accountZone: string, leadZone: string | null, now: Date): { upcoming: AppointmentView[]; past: AppointmentView[] } {
  const views = appointments.order.flatMap((id) => {
    const record = appointments.appointments[id]
    if (record === undefined) return []
    const zone = record.leadZone ?? leadZone
    const upcoming = record.status === 'booked' && Date.parse(record.end) > now.getTime()
    const markable = record.status !== 'cancelled' && Date.parse(record.start) <= now.getTime()
    return [{ record, upcoming, markable, account: zonedTimes(record, accountZone), lead: zone === null ? null : zonedTimes(record, zone) }]
  })
  const byStart = (a: AppointmentView, b: AppointmentView) => Date.parse(a.record.start) - Date.parse(b.record.start)
  return { upcoming: views.filter((v) => v.upcoming).sort(byStart), past: views.filter((v) => !v.upcoming).sort((a, b) => byStart(b, a)) }
}
