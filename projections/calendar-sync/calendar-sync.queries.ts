/** What the calendar sync watches: accounts with booked appointments still to come, and those appointments. */
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

export interface WatchedAppointment {
  readonly stream: string
  readonly appointmentId: string
  readonly accountId: string
  readonly appointmentTypeId: string
  readonly provider: string
  readonly calendarId: string
  readonly eventUid: string
  readonly start: string
  readonly end: string
}

export class CalendarSyncQueries {
  constructor(private readonly db: ViewsDatabase) {}

  /** Accounts with at least one booked appointment not yet over at `now`: the only ones polled. */
  accountsToWatch(now: string): string[] {
    return (statement(this.db, 'SELECT DISTINCT account_id AS accountId FROM calendar_sync_watch WHERE end_at > ? ORDER BY account_id').all(now) as { accountId: string }[]).map((r) => r.accountId)
  }

  /** The account's booked appointments not yet over at `now`, by start. */
  watched(accountId: string, now: string): WatchedAppointment[] {
    return statement(
      this.db,
      `SELECT stream, appointment_id AS appointmentId, account_id AS accountId, appointment_type_id AS appointmentTypeId, provider, calendar_id AS calendarId,
         event_uid AS eventUid, start_at AS start, end_at AS end FROM calendar_sync_watch WHERE account_id = ? AND end_at > ? ORDER BY start_at`,
    ).all(accountId, now) as WatchedAppointment[]
  }
}
