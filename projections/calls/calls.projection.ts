/**
 * The call log and the follow-up timers: one row per call decision (who, why, how far it got, the
 * carrier's call id) and one row per lead with a follow-up due; an agent-first call's owner legs
 * each have a call id, all mapped to their decision in `call_legs`. Carrier callbacks find their
 * lead by call id, and the follow-up scheduler reads what is due. (The dialer's unfinished work is
 * in the claims read model.)
 */
import type { Database } from 'better-sqlite3'
import type { RecordedEvent } from '../../src/domain/event.ts'
import type { LeadEvent } from '../../src/domain/lead/lead.events.ts'
import type { Projection } from '../../src/read-models/projection.ts'
import { sqlTemplate, statement } from '../../src/read-models/statement-cache.ts'
import { parseLeadStream } from '../../src/domain/lead/lead.events.ts'
import { inboundDecisionId } from '../../src/domain/lead/inbound/inbound.decider.ts'

const stageSql = sqlTemplate((set) => `UPDATE calls SET ${set} WHERE decision_id = ?`)

/**
 * Sets the columns of a call's row. A function of the module with its SQL completed once, rather than
 * a closure made per event building its SQL each time: a replay runs it for every call event.
 */
function setStage(db: Database, decisionId: string, set: string, ...values: unknown[]): void {
  statement(db, stageSql(set)).run(...values, decisionId)
}

const VOICEMAIL = { VoicemailLeft: 'left', VoicemailFailed: 'failed', VoicemailSkipped: 'skipped' } as const

/** What the lead did in the call's menu, and how the owner's leg went, as the column each sets. */
function menuFact(event: Extract<LeadEvent, { type: 'MenuKeyPressed' | 'CallbackRequested' | 'OwnerConnectEnded' }>): [string, unknown] {
  if (event.type === 'MenuKeyPressed') return ['menu_choice = ?', event.data.choice]
  if (event.type === 'CallbackRequested') return ['callback_at = ?', event.data.callbackAt]
  return ['owner_connected = ?', event.data.connected ? 1 : 0]
}

export const callsProjection: Projection = {
  name: 'calls',
  // 3: how each call went (who answered, duration, voicemail, menu key, callback) for list_calls and get_call, and paused follow-ups.
  // 4: `lead_attempt_at`, when the call rang the lead (agent-first: once the lead is dialed), for the daily cap.
  // 5: `direction`, and a row for each call a person made to the account's number (keyed inb_<call id>).
  version: 5,
  handles: [
    'CallDecided', 'CallAttemptStarted', 'CallPlaced', 'CallFailed', 'CallOutcomeUnknown', 'CallExpired', 'CallAnswered', 'CallNotAnswered',
    'CallCompleted', 'FollowUpScheduled', 'FollowUpRescheduled', 'FollowUpStopped', 'OwnerLegStarted', 'AgentUnavailable', 'AssistantFallbackStarted',
    'CallReachedMachine', 'VoicemailLeft', 'VoicemailFailed', 'VoicemailSkipped', 'MenuKeyPressed', 'CallbackRequested', 'OwnerConnectEnded',
    'FollowUpPaused', 'FollowUpResumed', 'LeadDialStarted',
    'InboundCallReceived', 'InboundCallConnected', 'InboundCallMissed', 'InboundCallbackRequested', 'InboundVoicemailLeft', 'InboundCallEnded',
  ],
  tables: ['calls', 'follow_ups', 'call_legs', 'follow_up_pauses'],

  setup(db: Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS calls (
        decision_id TEXT PRIMARY KEY,
        stream TEXT NOT NULL,
        account_id TEXT NOT NULL,
        lead_id TEXT NOT NULL,
        purpose TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        from_number TEXT NOT NULL,
        to_number TEXT NOT NULL,
        decided_at TEXT NOT NULL,
        decided_position INTEGER NOT NULL,
        stage TEXT NOT NULL,
        call_id TEXT,
        carrier TEXT,
        outcome TEXT,
        answered INTEGER NOT NULL DEFAULT 0,
        ended_at TEXT,
        failure_message TEXT,
        answered_by TEXT,
        machine INTEGER NOT NULL DEFAULT 0,
        duration_seconds INTEGER,
        voicemail TEXT,
        menu_choice TEXT,
        callback_at TEXT,
        owner_connected INTEGER,
        lead_attempt_at TEXT,
        direction TEXT NOT NULL DEFAULT 'outbound'
      );
      CREATE INDEX IF NOT EXISTS calls_by_account ON calls (account_id, decided_position);
      CREATE INDEX IF NOT EXISTS calls_by_call_id ON calls (call_id);
      CREATE INDEX IF NOT EXISTS calls_by_stream ON calls (stream, decided_position);
      CREATE TABLE IF NOT EXISTS follow_ups (
        stream TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        due_at TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS follow_ups_by_due ON follow_ups (due_at);
      CREATE TABLE IF NOT EXISTS follow_up_pauses (
        stream TEXT PRIMARY KEY
      );
      CREATE TABLE IF NOT EXISTS call_legs (
        call_id TEXT PRIMARY KEY,
        decision_id TEXT NOT NULL
      );
    `)
  },

  apply(db: Database, recorded: RecordedEvent) {
    const event = recorded as unknown as LeadEvent
    switch (event.type) {
      case 'CallDecided': {
        const d = event.data
        const accountId = parseLeadStream(recorded.stream)?.accountId ?? ''
        statement(
          db,
          `INSERT OR IGNORE INTO calls (decision_id, stream, account_id, lead_id, purpose, attempt, from_number, to_number, decided_at, decided_position, stage, lead_attempt_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'decided', ?)`,
        ).run(d.decisionId, recorded.stream, accountId, d.leadId, d.purpose, d.attempt, d.from, d.to, d.decidedAt, recorded.position, d.decidedAt)
        if (d.purpose === 'follow_up') statement(db, 'DELETE FROM follow_ups WHERE stream = ?').run(recorded.stream)
        return
      }
      case 'CallAttemptStarted':
        setStage(db, event.data.decisionId, "stage = 'started'")
        return
      case 'CallPlaced':
        // An agent-first call's row follows its newest owner leg; every leg's id still finds it.
        setStage(db, event.data.decisionId, "stage = 'placed', call_id = ?, carrier = ?", event.data.callId, event.data.carrier)
        if (event.data.ownerLeg !== undefined) {
          statement(db, 'INSERT OR IGNORE INTO call_legs (call_id, decision_id) VALUES (?, ?)').run(event.data.callId, event.data.decisionId)
          // Ringing the owner is not ringing the lead: the call counts toward the lead's cap once the lead is dialed (lead-attempts.ts).
          setStage(db, event.data.decisionId, 'lead_attempt_at = NULL')
        }
        return
      case 'LeadDialStarted':
        setStage(db, event.data.decisionId, 'lead_attempt_at = ?', event.data.at)
        return
      case 'OwnerLegStarted':
        // The next owner leg is claimed and not yet placed.
        setStage(db, event.data.decisionId, "stage = 'started'")
        return
      case 'AgentUnavailable':
        if (event.data.nextLeg === null) {
          setStage(db, event.data.decisionId, "stage = CASE stage WHEN 'started' THEN 'placed' ELSE stage END, outcome = 'agent_unavailable', ended_at = ?", event.data.at)
        } else {
          setStage(db, event.data.decisionId, "stage = CASE stage WHEN 'started' THEN 'placed' ELSE stage END")
        }
        return
      case 'AssistantFallbackStarted':
        // The call goes on: the lead is called directly for the assistant, claimed and not yet placed.
        setStage(db, event.data.decisionId, "stage = 'started', outcome = NULL, ended_at = NULL, lead_attempt_at = ?", event.data.at)
        return
      case 'CallFailed':
        setStage(db, event.data.decisionId, "stage = 'failed', outcome = ?, failure_message = ?, ended_at = ?", event.data.failure, event.data.message, event.data.failedAt)
        return
      case 'CallOutcomeUnknown':
        setStage(db, event.data.decisionId, "stage = 'unknown', outcome = 'unknown', ended_at = ?", event.data.at)
        return
      case 'CallExpired':
        setStage(db, event.data.decisionId, "stage = 'expired', outcome = 'expired', failure_message = ?, ended_at = ?", event.data.reason, event.data.at)
        return
      case 'CallAnswered':
        setStage(db, event.data.decisionId, "answered = 1, outcome = 'answered', answered_by = ?", event.data.answeredBy)
        return
      case 'CallNotAnswered':
        setStage(db, event.data.decisionId, 'outcome = ?, ended_at = ?', event.data.status, event.data.at)
        return
      case 'CallCompleted':
        setStage(db, event.data.decisionId, "outcome = 'completed', duration_seconds = ?, ended_at = ?", event.data.durationSeconds, event.data.at)
        return
      case 'CallReachedMachine':
        setStage(db, event.data.decisionId, 'machine = 1, answered_by = ?', event.data.answeredBy)
        return
      case 'VoicemailLeft':
      case 'VoicemailFailed':
      case 'VoicemailSkipped':
        setStage(db, event.data.decisionId, 'voicemail = ?', VOICEMAIL[event.type])
        return
      case 'MenuKeyPressed':
      case 'CallbackRequested':
      case 'OwnerConnectEnded': {
        const [set, value] = menuFact(event)
        setStage(db, event.data.decisionId, set, value)
        return
      }
      case 'FollowUpPaused':
      case 'FollowUpResumed':
        statement(db, event.type === 'FollowUpPaused' ? 'INSERT OR IGNORE INTO follow_up_pauses (stream) VALUES (?)' : 'DELETE FROM follow_up_pauses WHERE stream = ?').run(recorded.stream)
        return
      case 'FollowUpScheduled':
      case 'FollowUpRescheduled': {
        const accountId = parseLeadStream(recorded.stream)?.accountId ?? ''
        statement(db, 'INSERT OR REPLACE INTO follow_ups (stream, account_id, attempt, due_at) VALUES (?, ?, ?, ?)').run(
          recorded.stream, accountId, event.data.attempt, event.data.dueAt,
        )
        return
      }
      case 'FollowUpStopped':
        statement(db, 'DELETE FROM follow_ups WHERE stream = ?').run(recorded.stream)
        return
      case 'InboundCallReceived': {
        const d = event.data
        const accountId = parseLeadStream(recorded.stream)?.accountId ?? ''
        statement(
          db,
          `INSERT OR IGNORE INTO calls (decision_id, stream, account_id, lead_id, purpose, attempt, from_number, to_number, decided_at, decided_position, stage, call_id, direction)
           VALUES (?, ?, ?, ?, 'inbound', 0, ?, ?, ?, ?, 'placed', ?, 'inbound')`,
        ).run(inboundDecisionId(d.callId), recorded.stream, accountId, d.leadId, d.from, d.to, d.at, recorded.position, d.callId)
        return
      }
      case 'InboundCallConnected':
        setStage(db, inboundDecisionId(event.data.callId), "answered = 1, outcome = 'answered', answered_by = ?, owner_connected = ?", event.data.by, event.data.by === 'owner' ? 1 : null)
        return
      case 'InboundCallMissed':
        setStage(db, inboundDecisionId(event.data.callId), "outcome = 'missed', failure_message = ?", event.data.reason)
        return
      case 'InboundCallbackRequested':
        setStage(db, inboundDecisionId(event.data.callId), 'callback_at = ?', event.data.at)
        return
      case 'InboundVoicemailLeft':
        setStage(db, inboundDecisionId(event.data.callId), "voicemail = 'left'")
        return
      case 'InboundCallEnded':
        setStage(db, inboundDecisionId(event.data.callId), "outcome = CASE answered WHEN 1 THEN 'completed' ELSE outcome END, duration_seconds = ?, ended_at = ?", event.data.durationSeconds, event.data.at)
        return
      default:
        return
    }
  },
}
