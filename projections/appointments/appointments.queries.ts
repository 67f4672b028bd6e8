/**
 * Queries over the appointments read model: always within one account (or one lead), bounded,
 * index-backed. Times are UTC ISO strings as the events hold them; "today" is the account's day.
 */
import { DateTime } from 'luxon'
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

export type AppointmentRowStatus = 'booked' | 'cancelled' | 'attended' | 'no_show'

export interface AppointmentRow {
  readonly stream: string
  readonly appointmentId: string
  readonly accountId: string
  readonly leadId: string
  readonly typeId: string
  readonly typeName: string
  readonly start: string
  readonly end: string
  readonly status: AppointmentRowStatus
  /** Who booked it, or who last moved, cancelled or marked it. */
  readonly by: string
  readonly provider: string
  readonly leadZone: string | null
  readonly bookedAt: string
  readonly changedAt: string | null
}

/** A no-show to deal with: marked so (`marked`), or booked and ended with no mark (`unmarked`: mark attended or no-show). */
export interface NoShowRow extends AppointmentRow {
  readonly kind: 'marked' | 'unmarked'
}

const COLUMNS = `stream, appointment_id AS appointmentId, account_id AS accountId, lead_id AS leadId, type_id AS typeId, type_name AS typeName,
  start_at AS start, end_at AS end, status, by, provider, lead_zone AS leadZone, booked_at AS bookedAt, changed_at AS changedAt`

/** Counting stops here, as the other lists' summaries do. */
export const APPOINTMENT_COUNT_CAP = 1000
/** A lead's appointments shown at most (get_lead, the lead's page): the newest. */
export const LEAD_APPOINTMENTS_SHOWN = 50

/** The account's day holding `now`, as UTC ISO bounds. */
export function dayOf(now: Date, timeZone: string): { from: string; to: string } {
  const day = DateTime.fromJSDate(now, { zone: timeZone }).startOf('day')
  return { from: day.toUTC().toISO() as string, to: day.plus({ days: 1 }).toUTC().toISO() as string }
}

export class AppointmentsQueries {
  constructor(private readonly db: ViewsDatabase) {}

  /** One lead's appointments, by start (the latest LEAD_APPOINTMENTS_SHOWN). */
  forLead(stream: string, limit = LEAD_APPOINTMENTS_SHOWN): AppointmentRow[] {
    const rows = statement(this.db, `SELECT ${COLUMNS} FROM appointments WHERE stream = ? ORDER BY start_at DESC LIMIT ?`).all(stream, limit) as AppointmentRow[]
    return rows.reverse()
  }

  /** The account's booked appointments starting at or after `now`, soonest first. */
  upcoming(accountId: string, now: Date, limit: number): AppointmentRow[] {
    return statement(this.db, `SELECT ${COLUMNS} FROM appointments WHERE account_id = ? AND status = 'booked' AND start_at >= ? ORDER BY start_at LIMIT ?`)
      .all(accountId, now.toISOString(), limit) as AppointmentRow[]
  }

  /** Booked appointments of the account's day (in `timeZone`) that have not ended at `now`, by start. */
  today(accountId: string, now: Date, timeZone: string, limit: number): AppointmentRow[] {
    const day = dayOf(now, timeZone)
    return statement(
      this.db,
      `SELECT ${COLUMNS} FROM appointments WHERE account_id = ? AND status = 'booked' AND start_at >= ? AND start_at < ? AND end_at > ? ORDER BY start_at LIMIT ?`,
    ).all(accountId, day.from, day.to, now.toISOString(), limit) as AppointmentRow[]
  }

  countToday(accountId: string, now: Date, timeZone: string): number {
    const day = dayOf(now, timeZone)
    return (statement(
      this.db,
      `SELECT count(*) AS n FROM (SELECT 1 FROM appointments WHERE account_id = ? AND status = 'booked' AND start_at >= ? AND start_at < ? AND end_at > ? LIMIT ?)`,
    ).get(accountId, day.from, day.to, now.toISOString(), APPOINTMENT_COUNT_CAP) as { n: number }).n
  }

  /**
   * No-shows to deal with: booked appointments that ended by `now` with no mark (the latest end
   * first), then the ones marked no-show and not dealt with since (the latest mark first).
   */
  noShows(accountId: string, now: Date, limit: number): NoShowRow[] {
    const unmarked = statement(this.db, `SELECT ${COLUMNS}, 'unmarked' AS kind FROM appointments WHERE account_id = ? AND status = 'booked' AND end_at <= ? ORDER BY end_at DESC LIMIT ?`)
      .all(accountId, now.toISOString(), limit) as NoShowRow[]
    if (unmarked.length >= limit) return unmarked
    const marked = statement(this.db, `SELECT ${COLUMNS}, 'marked' AS kind FROM appointments WHERE account_id = ? AND no_show_open = 1 ORDER BY changed_at DESC LIMIT ?`)
      .all(accountId, limit - unmarked.length) as NoShowRow[]
    return [...unmarked, ...marked]
  }

  countNoShows(accountId: string, now: Date): number {
    const unmarked = (statement(this.db, `SELECT count(*) AS n FROM (SELECT 1 FROM appointments WHERE account_id = ? AND status = 'booked' AND end_at <= ? LIMIT ?)`)
      .get(accountId, now.toISOString(), APPOINTMENT_COUNT_CAP) as { n: number }).n
    const marked = (statement(this.db, 'SELECT count(*) AS n FROM (SELECT 1 FROM appointments WHERE account_id = ? AND no_show_open = 1 LIMIT ?)')
      .get(accountId, APPOINTMENT_COUNT_CAP) as { n: number }).n
    return Math.min(unmarked + marked, APPOINTMENT_COUNT_CAP)
  }
}
