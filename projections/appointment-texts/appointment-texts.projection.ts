/**
 * The appointment texts still to decide (issue #45): for each booked or moved appointment, a row to
 * plan its texts (`plan`), then a row for each planned confirmation or reminder with when it is due.
 * A row goes once its text is decided or skipped, when the appointment is cancelled, attended or
 * marked a no-show, when it moves (its new start is planned afresh), and when the lead becomes
 * do-not-call or opts out. The appointment reminders process reads what is due from here after any
 * restart, so no planned text is lost; deciding each is an append on the lead's stream, so none goes twice.
 */
import type { Database } from 'better-sqlite3'
import type { RecordedEvent } from '../../src/domain/event.ts'
import type { AppointmentEvent } from '../../src/domain/lead/appointments/appointments.events.ts'
import type { IntakeEvent } from '../../src/domain/lead/intake/intake.events.ts'
import { parseLeadStream } from '../../src/domain/lead/lead.events.ts'
import type { TextEvent } from '../../src/domain/lead/texts/texts.events.ts'
import type { Projection } from '../../src/read-models/projection.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

/** The id of an appointment's row that asks for its texts to be planned. */
export const PLAN_ROW = 'plan'

function insert(db: Database, recorded: RecordedEvent, appointmentId: string, textId: string, startAt: string, dueAt: string): void {
  statement(db, 'INSERT OR REPLACE INTO appointment_texts_due (stream, appointment_id, text_id, account_id, start_at, due_at) VALUES (?, ?, ?, ?, ?, ?)').run(
    recorded.stream, appointmentId, textId, parseLeadStream(recorded.stream)?.accountId ?? '', startAt, dueAt,
  )
}

function dropAppointment(db: Database, stream: string, appointmentId: string): void {
  statement(db, 'DELETE FROM appointment_texts_due WHERE stream = ? AND appointment_id = ?').run(stream, appointmentId)
}

function dropText(db: Database, stream: string, appointmentId: string, textId: string): void {
  statement(db, 'DELETE FROM appointment_texts_due WHERE stream = ? AND appointment_id = ? AND text_id = ?').run(stream, appointmentId, textId)
}

export const appointmentTextsProjection: Projection = {
  name: 'appointment-texts',
  version: 1,
  handles: [
    'AppointmentBooked', 'AppointmentRescheduled', 'AppointmentCancelled', 'AppointmentAttended', 'AppointmentNoShow',
    'AppointmentTextsScheduled', 'AppointmentTextDeferred', 'AppointmentTextSkipped', 'TextDecided',
    'LeadMarkedDoNotCall', 'LeadUpdated', 'NumberSuppressed',
  ],
  tables: ['appointment_texts_due'],

  setup(db: Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS appointment_texts_due (
        stream TEXT NOT NULL,
        appointment_id TEXT NOT NULL,
        text_id TEXT NOT NULL,
        account_id TEXT NOT NULL,
        start_at TEXT NOT NULL,
        due_at TEXT NOT NULL,
        PRIMARY KEY (stream, appointment_id, text_id)
      );
      CREATE INDEX IF NOT EXISTS appointment_texts_by_due ON appointment_texts_due (due_at);
    `)
  },

  apply(db: Database, recorded: RecordedEvent) {
    const event = recorded as unknown as AppointmentEvent | TextEvent | IntakeEvent
    const stream = recorded.stream
    switch (event.type) {
      case 'AppointmentBooked':
        insert(db, recorded, event.data.appointmentId, PLAN_ROW, event.data.start, event.data.at)
        return
      case 'AppointmentRescheduled':
        // The old start's texts are never sent: the new start is planned afresh (a confirmation of the new time, reminders re-timed).
        dropAppointment(db, stream, event.data.appointmentId)
        insert(db, recorded, event.data.appointmentId, PLAN_ROW, event.data.start, event.data.at)
        return
      case 'AppointmentCancelled':
      case 'AppointmentAttended':
      case 'AppointmentNoShow':
        dropAppointment(db, stream, event.data.appointmentId)
        return
      case 'AppointmentTextsScheduled':
        dropText(db, stream, event.data.appointmentId, PLAN_ROW)
        for (const text of event.data.texts) insert(db, recorded, event.data.appointmentId, text.textId, event.data.start, text.dueAt)
        return
      case 'AppointmentTextDeferred':
        statement(db, 'UPDATE appointment_texts_due SET due_at = ? WHERE stream = ? AND appointment_id = ? AND text_id = ?').run(event.data.until, stream, event.data.appointmentId, event.data.textId)
        return
      case 'AppointmentTextSkipped':
        dropText(db, stream, event.data.appointmentId, event.data.textId)
        return
      case 'TextDecided':
        if (event.data.appointmentId !== undefined) dropText(db, stream, event.data.appointmentId, event.data.textId)
        return
      case 'LeadMarkedDoNotCall':
      case 'NumberSuppressed':
        statement(db, 'DELETE FROM appointment_texts_due WHERE stream = ?').run(stream)
        return
      case 'LeadUpdated':
        if (event.data.changes.doNotCall === true) statement(db, 'DELETE FROM appointment_texts_due WHERE stream = ?').run(stream)
        return
      default:
        return
    }
  },
}
