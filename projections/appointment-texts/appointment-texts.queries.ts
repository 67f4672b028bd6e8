/** The appointment texts due now: what the appointment reminders process decides on each tick. */
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'
import { statement } from '../../src/read-models/statement-cache.ts'
import { PLAN_ROW } from './appointment-texts.projection.ts'

/** An appointment's texts to plan (`textId` null), or one planned text now due. */
export interface DueAppointmentText {
  readonly stream: string
  readonly accountId: string
  readonly appointmentId: string
  readonly textId: string | null
  readonly dueAt: string
}

/** Rows of appointments that began longer ago than this are left alone: nothing about them can go. */
const STARTED_LONG_AGO_MS = 24 * 60 * 60 * 1000

export class AppointmentTextsQueries {
  constructor(private readonly db: ViewsDatabase) {}

  /** What is due at `now`, oldest first (a confirmation before a reminder due with it); an appointment begun within a day is still decided, as skipped. */
  due(now: string, limit = 500): DueAppointmentText[] {
    const since = new Date(Date.parse(now) - STARTED_LONG_AGO_MS).toISOString()
    const rows = statement(
      this.db,
      `SELECT stream, account_id AS accountId, appointment_id AS appointmentId, text_id AS textId, due_at AS dueAt FROM appointment_texts_due
       WHERE due_at <= ? AND start_at > ? ORDER BY due_at, text_id = ?, text_id LIMIT ?`,
    ).all(now, since, PLAN_ROW, limit) as Array<Omit<DueAppointmentText, 'textId'> & { textId: string }>
    return rows.map((row) => ({ ...row, textId: row.textId === PLAN_ROW ? null : row.textId }))
  }

  /** How many texts wait for `stream`'s appointments (plans included). */
  pendingFor(stream: string): number {
    return (statement(this.db, 'SELECT COUNT(*) AS n FROM appointment_texts_due WHERE stream = ?').get(stream) as { n: number }).n
  }
}
