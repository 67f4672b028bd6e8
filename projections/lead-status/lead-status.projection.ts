/**
 * Where each lead stands, for the console's leads list and its status filter (issue #44): one row per
 * lead with the facts a status is read from, and the status itself, kept up to date as events arrive.
 * A status is the furthest the lead got, do-not-call over everything: do_not_call, paid, appointment
 * (an appointment booked and not yet cancelled or marked), qualified
 * (the voice assistant qualified them), connected (they talked with the owner), callback (one asked
 * for or scheduled and not yet called for), replied (they texted back), voicemail_left, calling (a
 * call was decided), new.
 */
import type { Database } from 'better-sqlite3'
import type { RecordedEvent } from '../../src/domain/event.ts'
import type { LeadEvent } from '../../src/domain/lead/lead.events.ts'
import type { Projection } from '../../src/read-models/projection.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

/** Every status, in the order the list's filter offers them. */
export const LEAD_STATUSES = ['new', 'calling', 'voicemail_left', 'callback', 'replied', 'connected', 'qualified', 'appointment', 'paid', 'do_not_call'] as const
export type LeadStatus = (typeof LEAD_STATUSES)[number]

// The facts, strongest first: the one place a status is derived.
const STATUS_OF_ROW = `CASE
  WHEN do_not_call = 1 THEN 'do_not_call'
  WHEN paid = 1 THEN 'paid'
  WHEN booked IS NOT NULL THEN 'appointment'
  WHEN qualified = 1 THEN 'qualified'
  WHEN connected = 1 THEN 'connected'
  WHEN callback_at IS NOT NULL THEN 'callback'
  WHEN replied = 1 THEN 'replied'
  WHEN voicemail = 1 THEN 'voicemail_left'
  WHEN calls > 0 THEN 'calling'
  ELSE 'new' END`

/** Sets `assignments` on the lead's row and derives its status again, in one statement. */
function set(db: Database, stream: string, assignments: string, ...values: unknown[]): void {
  statement(db, `UPDATE lead_status SET ${assignments} WHERE stream = ?`).run(...values, stream)
  statement(db, `UPDATE lead_status SET status = ${STATUS_OF_ROW} WHERE stream = ?`).run(stream)
}

export const leadStatusProjection: Projection = {
  name: 'lead-status',
  // 2: appointment (booked: the lead's booked appointments' ids, as JSON; NULL when none).
  version: 2,
  handles: [
    'LeadReceived', 'LeadUpdated', 'LeadMarkedDoNotCall', 'LeadDoNotCallCleared', 'CallDecided', 'VoicemailLeft', 'CallbackRequested', 'CallbackScheduled',
    'OwnerConnectEnded', 'LeadReplied', 'AssistantCallEnded', 'PaymentSettled', 'InboundCallConnected',
    'AppointmentBooked', 'AppointmentCancelled', 'AppointmentAttended', 'AppointmentNoShow',
  ],
  tables: ['lead_status'],

  setup(db: Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS lead_status (
        stream TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        lead_id TEXT NOT NULL,
        received_position INTEGER NOT NULL,
        status TEXT NOT NULL DEFAULT 'new',
        do_not_call INTEGER NOT NULL DEFAULT 0,
        paid INTEGER NOT NULL DEFAULT 0,
        qualified INTEGER NOT NULL DEFAULT 0,
        connected INTEGER NOT NULL DEFAULT 0,
        callback_at TEXT,
        replied INTEGER NOT NULL DEFAULT 0,
        voicemail INTEGER NOT NULL DEFAULT 0,
        calls INTEGER NOT NULL DEFAULT 0,
        booked TEXT
      );
      CREATE INDEX IF NOT EXISTS lead_status_by_status ON lead_status (account_id, status, received_position);
    `)
  },

  apply(db: Database, recorded: RecordedEvent) {
    const event = recorded as unknown as LeadEvent | { type: 'InboundCallConnected'; data: { by: string } }
    const stream = recorded.stream
    switch (event.type) {
      case 'LeadReceived': {
        const { leadId, accountId, fields } = event.data
        // Inbound Leads' own order (its received_position): the list by status walks this index newest first.
        statement(db, 'INSERT OR IGNORE INTO lead_status (stream, account_id, lead_id, received_position) VALUES (?, ?, ?, ?)').run(stream, accountId, leadId, recorded.position)
        if (fields.doNotCall === true) set(db, stream, 'do_not_call = 1')
        return
      }
      case 'LeadUpdated':
        if (event.data.changes.doNotCall === true) set(db, stream, 'do_not_call = 1')
        return
      case 'LeadMarkedDoNotCall':
        return set(db, stream, 'do_not_call = 1')
      case 'LeadDoNotCallCleared':
        return set(db, stream, 'do_not_call = 0')
      case 'CallDecided':
        // A follow-up (the one the callback scheduled) or any call decided once it is due answers the callback, as get_next_actions reads it.
        return set(db, stream, "calls = calls + 1, callback_at = CASE WHEN ? = 'follow_up' OR callback_at <= ? THEN NULL ELSE callback_at END", event.data.purpose, event.data.decidedAt)
      case 'VoicemailLeft':
        return set(db, stream, 'voicemail = 1')
      case 'CallbackRequested':
      case 'CallbackScheduled':
        return set(db, stream, 'callback_at = ?', event.data.callbackAt)
      case 'OwnerConnectEnded':
        if (event.data.connected) set(db, stream, 'connected = 1')
        return
      case 'InboundCallConnected':
        // Inbound calls (issue #43): the caller talked with an owner.
        if (event.data.by === 'owner') set(db, stream, 'connected = 1')
        return
      case 'LeadReplied':
        return set(db, stream, 'replied = 1')
      case 'AssistantCallEnded':
        if (event.data.disposition === 'qualified') set(db, stream, 'qualified = 1')
        return
      case 'PaymentSettled':
        return set(db, stream, 'paid = 1')
      case 'AppointmentBooked':
        return set(db, stream, "booked = json_insert(coalesce(booked, '[]'), '$[#]', ?)", event.data.appointmentId)
      case 'AppointmentCancelled':
      case 'AppointmentAttended':
      case 'AppointmentNoShow':
        // No longer booked: the lead stands where its other facts put it.
        return set(db, stream, "booked = (SELECT CASE WHEN count(*) = 0 THEN NULL ELSE json_group_array(value) END FROM json_each(booked) WHERE value <> ?)", event.data.appointmentId)
    }
  },
}
