/**
 * The booked appointments the calendar sync watches (issue #45): one row per appointment still booked,
 * with the calendar its event is in, its UID and its time. A row goes when the appointment is cancelled,
 * attended or marked a no-show; a move updates its time. The calendar sync reads which accounts have
 * appointments to come (only those are polled) and which of a calendar's changed UIDs are ours.
 */
import type { Database } from 'better-sqlite3'
import type { RecordedEvent } from '../../src/domain/event.ts'
import type { AppointmentEvent } from '../../src/domain/lead/appointments/appointments.events.ts'
import { parseLeadStream } from '../../src/domain/lead/lead.events.ts'
import type { Projection } from '../../src/read-models/projection.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

export const calendarSyncProjection: Projection = {
  name: 'calendar-sync',
  version: 1,
  handles: ['AppointmentBooked', 'AppointmentRescheduled', 'AppointmentCancelled', 'AppointmentAttended', 'AppointmentNoShow'],
  tables: ['calendar_sync_watch'],

  setup(db: Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS calendar_sync_watch (
        stream TEXT NOT NULL,
        appointment_id TEXT NOT NULL,
        account_id TEXT NOT NULL,
        appointment_type_id TEXT NOT NULL,
        provider TEXT NOT NULL,
        calendar_id TEXT NOT NULL,
        event_uid TEXT NOT NULL,
        start_at TEXT NOT NULL,
        end_at TEXT NOT NULL,
        PRIMARY KEY (stream, appointment_id)
      );
      CREATE INDEX IF NOT EXISTS calendar_sync_watch_by_account ON calendar_sync_watch (account_id, end_at);
    `)
  },

  apply(db: Database, recorded: RecordedEvent) {
    const event = recorded as unknown as AppointmentEvent
    const stream = recorded.stream
    switch (event.type) {
      case 'AppointmentBooked': {
        const d = event.data
        statement(db, `INSERT OR REPLACE INTO calendar_sync_watch (stream, appointment_id, account_id, appointment_type_id, provider, calendar_id, event_uid, start_at, end_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(stream, d.appointmentId, parseLeadStream(stream)?.accountId ?? '', d.appointmentTypeId, d.provider, d.calendarId, d.eventUid, d.start, d.end)
        return
      }
      case 'AppointmentRescheduled':
        statement(db, 'UPDATE calendar_sync_watch SET start_at = ?, end_at = ? WHERE stream = ? AND appointment_id = ?').run(event.data.start, event.data.end, stream, event.data.appointmentId)
        return
      case 'AppointmentCancelled':
      case 'AppointmentAttended':
      case 'AppointmentNoShow':
        statement(db, 'DELETE FROM calendar_sync_watch WHERE stream = ? AND appointment_id = ?').run(stream, event.data.appointmentId)
        return
    }
  },
}
