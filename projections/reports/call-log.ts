/**
 * The Calls page's log: one row per call, both directions. An outbound call is keyed by its decision
 * and its outcome read by `callResult` (call-outcome.ts, as list_calls and get_call read theirs); an
 * inbound call (issue #43) is keyed by the carrier's call id. Each row carries the lead's source, so
 * the page filters by it without a join. Never a recording or a transcript.
 */
import type { Database } from 'better-sqlite3'
import { callResult } from '../../src/domain/lead/calls/call-outcome.ts'
import { sqlTemplate, statement } from '../../src/read-models/statement-cache.ts'
import { countHour, leadSlot, reportLead } from './report-facts.ts'

/** What answered: a person (the lead), a machine, the owner or the voice assistant (an inbound call taken). */
export type AnsweredBy = 'person' | 'machine' | 'owner' | 'assistant'

export function setupCallLog(db: Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS call_log (
      call_key TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      stream TEXT NOT NULL,
      lead_id TEXT NOT NULL,
      direction TEXT NOT NULL,
      at TEXT NOT NULL,
      source TEXT NOT NULL,
      purpose TEXT,
      outcome TEXT NOT NULL,
      answered_by TEXT,
      duration_seconds INTEGER,
      voicemail INTEGER NOT NULL DEFAULT 0,
      stage TEXT NOT NULL,
      answered INTEGER NOT NULL DEFAULT 0,
      machine INTEGER NOT NULL DEFAULT 0,
      ended INTEGER NOT NULL DEFAULT 0,
      status TEXT,
      owner_connected INTEGER,
      slot_day TEXT,
      slot_weekday INTEGER,
      slot_hour INTEGER
    );
    CREATE INDEX IF NOT EXISTS call_log_by_time ON call_log (account_id, at, call_key);
    CREATE INDEX IF NOT EXISTS call_log_by_outcome ON call_log (account_id, outcome, at, call_key);
    CREATE INDEX IF NOT EXISTS call_log_by_source ON call_log (account_id, source, at, call_key);
  `)
}

const setSql = sqlTemplate((set) => `UPDATE call_log SET ${set} WHERE call_key = ?`)

function set(db: Database, key: string, columns: string, ...values: unknown[]): void {
  statement(db, setSql(columns)).run(...values, key)
}

interface Facts {
  readonly stage: string
  readonly answered: number
  readonly machine: number
  readonly ended: number
  readonly status: string | null
  readonly ownerConnected: number | null
}

/** Sets facts of an outbound call and reads its outcome again from all of them. */
export function setOutbound(db: Database, decisionId: string, columns: string, ...values: unknown[]): void {
  set(db, decisionId, columns, ...values)
  const facts = statement(db, "SELECT stage, answered, machine, ended, status, owner_connected AS ownerConnected FROM call_log WHERE call_key = ? AND direction = 'outbound'")
    .get(decisionId) as Facts | undefined
  if (facts === undefined) return
  const outcome = callResult({
    stage: facts.stage, answered: facts.answered === 1, machine: facts.machine === 1, ended: facts.ended === 1, status: facts.status,
    ownerConnected: facts.ownerConnected === null ? null : facts.ownerConnected === 1,
  })
  set(db, decisionId, 'outcome = ?', outcome)
}

/** A call's first row: the lead's source copied onto it; a lead left out of the figures (a test lead) has no calls listed either. */
export function addCall(db: Database, key: string, stream: string, leadId: string, direction: 'outbound' | 'inbound', at: string, purpose: string | null): void {
  const lead = reportLead(db, stream)
  if (lead === null) return
  statement(db, `INSERT OR IGNORE INTO call_log (call_key, account_id, stream, lead_id, direction, at, source, purpose, outcome, stage)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'in_progress', ?)`)
    .run(key, lead.accountId, stream, leadId, direction, at, lead.source, purpose, direction === 'outbound' ? 'decided' : 'ringing')
}

/** The call rang the lead at `at` (once a call): one more call in the lead's hour × weekday. */
export function rangLead(db: Database, decisionId: string, stream: string, at: string): void {
  const row = statement(db, 'SELECT slot_day AS day FROM call_log WHERE call_key = ?').get(decisionId) as { day: string | null } | undefined
  if (row === undefined || row.day !== null) return
  const slot = leadSlot(db, stream, at)
  if (slot === null) return
  set(db, decisionId, 'slot_day = ?, slot_weekday = ?, slot_hour = ?', slot.accountDay, slot.weekday, slot.hour)
  countHour(db, slot.accountId, slot.accountDay, slot.weekday, slot.hour, false)
}

/** A person answered the call: counted in its hour × weekday once, if it rang the lead there. */
export function answeredByPerson(db: Database, decisionId: string): void {
  const row = statement(db, 'SELECT account_id AS accountId, answered, slot_day AS day, slot_weekday AS weekday, slot_hour AS hour FROM call_log WHERE call_key = ?')
    .get(decisionId) as { accountId: string; answered: number; day: string | null; weekday: number; hour: number } | undefined
  if (row === undefined || row.answered === 1) return
  if (row.day !== null) countHour(db, row.accountId, row.day, row.weekday, row.hour, true)
  setOutbound(db, decisionId, "answered = 1, answered_by = 'person'")
}

export const inboundKey = (callId: string) => `inbound:${callId}`

/** An inbound call's outcome: answered (by an owner or the assistant) or missed. */
export function setInbound(db: Database, callId: string, columns: string, ...values: unknown[]): void {
  set(db, inboundKey(callId), columns, ...values)
}
