/**
 * The appointments read model (issue #45): one row per appointment a lead booked, with where it stands
 * (booked, cancelled, attended, no_show), for a lead's page, an account's upcoming and today's
 * appointments, and get_next_actions' no-shows. `no_show_open`: a no-show nobody has dealt with yet,
 * until the lead is reached again (a call answered, an inbound call taken) or books again. A booked
 * appointment whose end passed with no mark is not stored as anything else: the queries read it
 * from `now` (appointments.queries.ts).
 */
import type { Database } from 'better-sqlite3'
import type { RecordedEvent } from '../../src/domain/event.ts'
import { parseLeadStream, type LeadEvent } from '../../src/domain/lead/lead.events.ts'
import type { Projection } from '../../src/read-models/projection.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

const SET_STATUS = 'UPDATE appointments SET status = ?, by = ?, changed_at = ?, no_show_open = ? WHERE stream = ? AND appointment_id = ?'

export const appointmentsProjection: Projection = {
  name: 'appointments',
  version: 1,
  handles: ['AppointmentBooked', 'AppointmentRescheduled', 'AppointmentCancelled', 'AppointmentAttended', 'AppointmentNoShow', 'CallAnswered', 'InboundCallConnected'],
  tables: ['appointments'],

  setup(db: Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS appointments (
        stream TEXT NOT NULL,
        appointment_id TEXT NOT NULL,
        account_id TEXT NOT NULL,
        lead_id TEXT NOT NULL,
        type_id TEXT NOT NULL,
        type_name TEXT NOT NULL,
        start_at TEXT NOT NULL,
        end_at TEXT NOT NULL,
        status TEXT NOT NULL,
        by TEXT NOT NULL,
        provider TEXT NOT NULL,
        lead_zone TEXT,
        booked_at TEXT NOT NULL,
        changed_at TEXT,
        no_show_open INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (stream, appointment_id)
      );
      CREATE INDEX IF NOT EXISTS appointments_booked ON appointments (account_id, start_at) WHERE status = 'booked';
      CREATE INDEX IF NOT EXISTS appointments_booked_end ON appointments (account_id, end_at) WHERE status = 'booked';
      CREATE INDEX IF NOT EXISTS appointments_no_show ON appointments (account_id, changed_at) WHERE no_show_open = 1;
    `)
  },

  apply(db: Database, recorded: RecordedEvent) {
    const event = recorded as unknown as LeadEvent
    switch (event.type) {
      case 'AppointmentBooked': {
        const lead = parseLeadStream(recorded.stream)
        if (lead === null) return
        const d = event.data
        // Booking again is dealing with a no-show.
        statement(db, 'UPDATE appointments SET no_show_open = 0 WHERE stream = ? AND no_show_open = 1').run(recorded.stream)
        statement(
          db,
          `INSERT INTO appointments (stream, appointment_id, account_id, lead_id, type_id, type_name, start_at, end_at, status, by, provider, lead_zone, booked_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'booked', ?, ?, ?, ?) ON CONFLICT (stream, appointment_id) DO NOTHING`,
        ).run(recorded.stream, d.appointmentId, lead.accountId, d.leadId, d.appointmentTypeId, d.typeName, d.start, d.end, d.by, d.provider, d.leadZone, d.at)
        return
      }
      case 'AppointmentRescheduled': {
        const d = event.data
        statement(db, 'UPDATE appointments SET start_at = ?, end_at = ?, by = ?, changed_at = ? WHERE stream = ? AND appointment_id = ?').run(d.start, d.end, d.by, d.at, recorded.stream, d.appointmentId)
        return
      }
      case 'AppointmentCancelled':
        statement(db, SET_STATUS).run('cancelled', event.data.by, event.data.at, 0, recorded.stream, event.data.appointmentId)
        return
      case 'AppointmentAttended':
        statement(db, SET_STATUS).run('attended', event.data.by, event.data.at, 0, recorded.stream, event.data.appointmentId)
        return
      case 'AppointmentNoShow':
        statement(db, SET_STATUS).run('no_show', event.data.by, event.data.at, 1, recorded.stream, event.data.appointmentId)
        return
      case 'CallAnswered':
      case 'InboundCallConnected':
        // Reached again: the no-show is dealt with. Most leads have no appointment, and this finds none by the key.
        statement(db, 'UPDATE appointments SET no_show_open = 0 WHERE stream = ? AND no_show_open = 1').run(recorded.stream)
        return
    }
  },
}
