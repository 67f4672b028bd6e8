/**
 * The stale-leads view behind get_next_actions: per lead, when it was last contacted (a call placed
 * or a text sent) and whether anything came back since (an answered call, a reply, an update, a
 * payment). `pending_since` is the last contact with no touch after it; null once the lead touches back.
 * What the lead asked for comes first: `replied_at`, when the lead last texted back (LeadReplied)
 * until a call goes out to the lead after it; then, from a call's menu, `callback_at`, the callback
 * the lead asked for (pressing 2, or to the voice assistant) or the account scheduled (schedule_callback;
 * `callback_by` says which) until a call is decided for it, and `connect_missed_at`, when the
 * lead pressed 1 and the owner's leg did not connect, until another call goes out to the lead; and
 * `qualified_at`, when the voice assistant ended a call as qualified, until another call is decided.
 * Above them all, `missed_call_at`: when the lead last called the account's number and nobody took the
 * call (InboundCallMissed; the time the call came in), until a call goes out to them or a later call of
 * theirs is taken.
 */
import type { Database } from 'better-sqlite3'
import type { RecordedEvent } from '../../src/domain/event.ts'
import type { LeadEvent } from '../../src/domain/lead/lead.events.ts'
import type { InboundCallReceived } from '../../src/domain/lead/inbound/inbound.events.ts'
import type { Projection } from '../../src/read-models/projection.ts'
import { sqlTemplate, statement } from '../../src/read-models/statement-cache.ts'

/** Event types that count as the lead touching back (inbound), beyond LeadUpdated and CallAnswered. */
export const INBOUND_TOUCHES = ['PaymentSettled'] as const
/** Event types that count as a contact going out, beyond CallPlaced (agent-first: the dial of the lead, not the owner's call). */
export const OUTBOUND_CONTACTS = ['PayLinkTexted', 'LeadDialStarted', 'TextSent'] as const

const touchSql = sqlTemplate((extra) => `UPDATE lead_activity SET last_touch_at = max(last_touch_at, ?)${extra} WHERE stream = ?`)

/** Moves a lead's last touch forward, with `extra` assignments. Not a closure made per event (see setStage in calls.projection.ts). */
function touch(db: Database, stream: string, at: string, extra = '', ...values: unknown[]): void {
  statement(db, touchSql(extra)).run(at, ...values, stream)
}

export const staleLeadsProjection: Projection = {
  name: 'stale-leads',
  // 3: replied_at (LeadReplied). 4: a text sent (send_sms, a follow-up text) is a contact. 5: qualified_at (AssistantCallEnded).
  // 6: a callback scheduled by the account (CallbackScheduled) is due like the lead's own; callback_by.
  // 7: the indexes of the columns most leads leave empty hold only the leads that have them (what their queries ask for).
  // 8: missed_call_at (InboundCallMissed, at the time the call came in: InboundCallReceived).
  version: 8,
  handles: [
    'LeadReceived', 'LeadUpdated', 'LeadMarkedDoNotCall', 'LeadDoNotCallCleared', 'CallDecided', 'CallPlaced', 'CallAnswered',
    'CallbackRequested', 'CallbackScheduled', 'OwnerConnectEnded', 'LeadReplied', 'AssistantCallEnded',
    'InboundCallReceived', 'InboundCallMissed', 'InboundCallConnected',
    ...INBOUND_TOUCHES, ...OUTBOUND_CONTACTS,
  ],
  tables: ['lead_activity'],

  setup(db: Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS lead_activity (
        stream TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        lead_id TEXT NOT NULL,
        name TEXT,
        phone TEXT NOT NULL,
        state TEXT,
        source TEXT,
        do_not_call INTEGER NOT NULL DEFAULT 0,
        received_at TEXT NOT NULL,
        last_touch_at TEXT NOT NULL,
        last_contact_at TEXT,
        pending_since TEXT,
        contacted INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        callback_at TEXT,
        callback_by TEXT,
        connect_missed_at TEXT,
        replied_at TEXT,
        qualified_at TEXT,
        inbound_call_at TEXT,
        missed_call_at TEXT
      );
      CREATE INDEX IF NOT EXISTS lead_activity_never_contacted ON lead_activity (account_id, contacted, do_not_call, received_at);
      CREATE INDEX IF NOT EXISTS lead_activity_pending ON lead_activity (account_id, do_not_call, pending_since) WHERE pending_since IS NOT NULL;
      CREATE INDEX IF NOT EXISTS lead_activity_callback ON lead_activity (account_id, do_not_call, callback_at) WHERE callback_at IS NOT NULL;
      CREATE INDEX IF NOT EXISTS lead_activity_connect_missed ON lead_activity (account_id, do_not_call, connect_missed_at) WHERE connect_missed_at IS NOT NULL;
      CREATE INDEX IF NOT EXISTS lead_activity_replied ON lead_activity (account_id, do_not_call, replied_at) WHERE replied_at IS NOT NULL;
      CREATE INDEX IF NOT EXISTS lead_activity_qualified ON lead_activity (account_id, do_not_call, qualified_at) WHERE qualified_at IS NOT NULL;
      CREATE INDEX IF NOT EXISTS lead_activity_missed_call ON lead_activity (account_id, do_not_call, missed_call_at) WHERE missed_call_at IS NOT NULL;
    `)
  },

  apply(db: Database, recorded: RecordedEvent) {
    const event = recorded as unknown as LeadEvent | { type: string; data: { at?: string } }
    switch (event.type) {
      case 'LeadReceived': {
        const { fields, leadId, accountId, receivedAt } = (event as Extract<LeadEvent, { type: 'LeadReceived' }>).data
        statement(
          db,
          `INSERT OR IGNORE INTO lead_activity (stream, account_id, lead_id, name, phone, state, source, do_not_call, received_at, last_touch_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(recorded.stream, accountId, leadId, fields.fullName ?? fields.firstName ?? null, fields.phone, fields.state ?? null, fields.source ?? null,
          fields.doNotCall === true ? 1 : 0, receivedAt, receivedAt)
        return
      }
      case 'LeadUpdated': {
        const { changes, updatedAt } = (event as Extract<LeadEvent, { type: 'LeadUpdated' }>).data
        touch(
          db,
          recorded.stream,
          updatedAt,
          ', pending_since = NULL, name = coalesce(?, name), phone = coalesce(?, phone), state = coalesce(?, state), source = coalesce(?, source), do_not_call = max(do_not_call, ?)',
          changes.fullName ?? null, changes.phone ?? null, changes.state ?? null, changes.source ?? null, changes.doNotCall === true ? 1 : 0,
        )
        return
      }
      case 'LeadMarkedDoNotCall':
        statement(db, 'UPDATE lead_activity SET do_not_call = 1 WHERE stream = ?').run(recorded.stream)
        return
      case 'LeadDoNotCallCleared':
        statement(db, 'UPDATE lead_activity SET do_not_call = 0 WHERE stream = ?').run(recorded.stream)
        return
      case 'CallDecided': {
        // A follow-up (the one the callback scheduled) or any call decided once the callback is due answers the callback.
        const { purpose, decidedAt } = (event as Extract<LeadEvent, { type: 'CallDecided' }>).data
        statement(
          db,
          "UPDATE lead_activity SET attempts = attempts + 1, qualified_at = NULL, callback_at = CASE WHEN ? = 'follow_up' OR callback_at <= ? THEN NULL ELSE callback_at END WHERE stream = ?",
        ).run(purpose, decidedAt, recorded.stream)
        return
      }
      case 'CallPlaced': {
        const { placedAt: at, ownerLeg } = (event as Extract<LeadEvent, { type: 'CallPlaced' }>).data
        // Agent-first rings the owner first: no contact with the lead yet.
        if (ownerLeg !== undefined) return
        touch(db, recorded.stream, at, ', contacted = 1, last_contact_at = ?, pending_since = ?, connect_missed_at = NULL, replied_at = NULL, missed_call_at = NULL', at, at)
        return
      }
      case 'LeadDialStarted': {
        // Agent-first: the owner pressed 1 and the lead is dialed: a call to the lead, as CallPlaced is for the others.
        const { at } = (event as Extract<LeadEvent, { type: 'LeadDialStarted' }>).data
        touch(db, recorded.stream, at, ', contacted = 1, last_contact_at = ?, pending_since = ?, replied_at = NULL, missed_call_at = NULL', at, at)
        return
      }
      case 'LeadReplied': {
        const { repliedAt } = (event as Extract<LeadEvent, { type: 'LeadReplied' }>).data
        touch(db, recorded.stream, repliedAt, ', pending_since = NULL, replied_at = ?', repliedAt)
        return
      }
      case 'AssistantCallEnded': {
        const { disposition, endedAt } = (event as Extract<LeadEvent, { type: 'AssistantCallEnded' }>).data
        // The assistant's own talk is a touch back; a qualified lead waits for a person.
        touch(db, recorded.stream, endedAt, ', pending_since = NULL, qualified_at = ?', disposition === 'qualified' ? endedAt : null)
        return
      }
      case 'CallbackRequested':
        statement(db, "UPDATE lead_activity SET callback_at = ?, callback_by = 'lead' WHERE stream = ?").run((event as Extract<LeadEvent, { type: 'CallbackRequested' }>).data.callbackAt, recorded.stream)
        return
      case 'CallbackScheduled':
        statement(db, "UPDATE lead_activity SET callback_at = ?, callback_by = 'account' WHERE stream = ?").run((event as Extract<LeadEvent, { type: 'CallbackScheduled' }>).data.callbackAt, recorded.stream)
        return
      case 'OwnerConnectEnded': {
        const { connected, at } = (event as Extract<LeadEvent, { type: 'OwnerConnectEnded' }>).data
        statement(db, 'UPDATE lead_activity SET connect_missed_at = ? WHERE stream = ?').run(connected ? null : at, recorded.stream)
        return
      }
      case 'InboundCallReceived': {
        // The lead calling in is a touch back; when it came in is what a call back is listed with.
        const { at } = (event as InboundCallReceived).data
        touch(db, recorded.stream, at, ', pending_since = NULL, inbound_call_at = ?', at)
        return
      }
      case 'InboundCallMissed':
        statement(db, 'UPDATE lead_activity SET missed_call_at = coalesce(inbound_call_at, ?) WHERE stream = ?').run((event.data as { at: string }).at, recorded.stream)
        return
      case 'InboundCallConnected':
        touch(db, recorded.stream, (event.data as { at: string }).at, ', pending_since = NULL, missed_call_at = NULL')
        return
      case 'CallAnswered':
        touch(db, recorded.stream, (event as Extract<LeadEvent, { type: 'CallAnswered' }>).data.at, ', pending_since = NULL')
        return
      default: {
        // Payments and texts: a pay-link or a text sent is a contact; a payment is a touch back.
        const at = (event.data as { at?: string }).at ?? recorded.recordedAt
        if ((OUTBOUND_CONTACTS as readonly string[]).includes(event.type)) touch(db, recorded.stream, at, ', contacted = 1, last_contact_at = ?, pending_since = ?', at, at)
        else touch(db, recorded.stream, at, ', pending_since = NULL')
      }
    }
  },
}
