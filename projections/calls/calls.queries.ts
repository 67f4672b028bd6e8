/** Queries over the call log and the follow-up timers. */
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'
import { statement } from '../../src/read-models/statement-cache.ts'
import { openCursor, sealCursor } from '../../src/domain/shared/opaque-cursor.ts'
import { DomainError } from '../../src/domain/shared/decider.ts'

export interface CallRow {
  readonly decisionId: string
  readonly stream: string
  readonly accountId: string
  readonly leadId: string
  readonly purpose: string
  readonly attempt: number
  readonly from: string
  readonly to: string
  readonly decidedAt: string
  readonly stage: string
  readonly callId: string | null
  readonly carrier: string | null
  readonly outcome: string | null
  readonly answered: boolean
  /** `outbound`: Leadline called the lead; `inbound`: the person called the account's number (purpose `inbound`). */
  readonly direction: 'outbound' | 'inbound'
}

/** A call as list_calls and get_call show it: what happened, never a recording or a transcript (the log keeps those apart). */
export interface CallDetail extends CallRow {
  readonly endedAt: string | null
  readonly failureMessage: string | null
  readonly answeredBy: string | null
  readonly machine: boolean
  readonly durationSeconds: number | null
  readonly voicemail: string | null
  readonly menuChoice: string | null
  readonly callbackAt: string | null
  readonly ownerConnected: boolean | null
}

export const DEFAULT_CALLS_PAGE = 25
export const MAX_CALLS_PAGE = 100

export interface CallsPage {
  readonly calls: CallDetail[]
  /** Pass back as `cursor` for the next page; null on the last page. */
  readonly nextCursor: string | null
}

export interface DueFollowUp {
  readonly stream: string
  readonly accountId: string
  readonly attempt: number
  readonly dueAt: string
}

const SELECT = `SELECT decision_id AS decisionId, stream, account_id AS accountId, lead_id AS leadId, purpose, attempt,
  from_number AS "from", to_number AS "to", decided_at AS decidedAt, stage, call_id AS callId,
  carrier, outcome, answered, direction FROM calls`

const DETAIL = `SELECT decision_id AS decisionId, stream, account_id AS accountId, lead_id AS leadId, purpose, attempt,
  from_number AS "from", to_number AS "to", decided_at AS decidedAt, stage, call_id AS callId, carrier, outcome, answered, direction,
  ended_at AS endedAt, failure_message AS failureMessage, answered_by AS answeredBy, machine, duration_seconds AS durationSeconds,
  voicemail, menu_choice AS menuChoice, callback_at AS callbackAt, owner_connected AS ownerConnected FROM calls`

type DetailRow = Omit<CallDetail, 'answered' | 'machine' | 'ownerConnected'> & { answered: number; machine: number; ownerConnected: number | null }

function toDetail(row: DetailRow): CallDetail {
  return { ...row, answered: row.answered === 1, machine: row.machine === 1, ownerConnected: row.ownerConnected === null ? null : row.ownerConnected === 1 }
}

/** A page's cursor names the last call on it, sealed for the account and the lead asked about (or the whole account). */
const cursorScope = (accountId: string, stream: string | undefined) => `calls\u0000${accountId}\u0000${stream ?? ''}`

function toCall(row: (Omit<CallRow, 'answered'> & { answered: number }) | undefined): CallRow | null {
  return row ? { ...row, answered: row.answered === 1 } : null
}

export class CallsQueries {
  constructor(private readonly db: ViewsDatabase) {}

  /**
   * When each stream's calls that rang the lead after `since` (ISO) count from, whatever their purpose:
   * the daily limit counts them (an agent-first call once the lead was dialed; lead-attempts.ts).
   */
  decidedSince(streams: readonly string[], since: string): Map<string, string[]> {
    const query = statement(this.db, 'SELECT lead_attempt_at AS decidedAt FROM calls WHERE stream = ? AND lead_attempt_at > ?')
    const times = new Map<string, string[]>()
    for (const stream of streams) {
      const rows = query.all(stream, since) as { decidedAt: string }[]
      if (rows.length > 0) times.set(stream, rows.map((row) => row.decidedAt))
    }
    return times
  }

  /** The call a carrier call id belongs to: the decision's current call, or an earlier owner leg of an agent-first call. */
  byCallId(callId: string): CallRow | null {
    return toCall(
      (statement(this.db, `${SELECT} WHERE call_id = ?`).get(callId) ??
        statement(this.db, `${SELECT} WHERE decision_id = (SELECT decision_id FROM call_legs WHERE call_id = ?)`).get(callId)) as never,
    )
  }

  byDecisionId(decisionId: string): CallRow | null {
    return toCall(statement(this.db, `${SELECT} WHERE decision_id = ?`).get(decisionId) as never)
  }

  forStream(stream: string): CallRow[] {
    return (statement(this.db, `${SELECT} WHERE stream = ? ORDER BY decided_position`).all(stream) as never[]).map((r) => toCall(r) as CallRow)
  }

  /** One call of the account, by Leadline's call id (the decision id) or the carrier's call id; null when it is not the account's. */
  detail(accountId: string, id: string): CallDetail | null {
    const row = statement(this.db, `${DETAIL} WHERE account_id = ? AND (decision_id = ? OR call_id = ?)`).get(accountId, id, id) as DetailRow | undefined
    return row ? toDetail(row) : null
  }

  /** The account's calls, or one lead's (`stream`), newest first, a page at a time. */
  page(accountId: string, options: { readonly stream?: string; readonly limit?: number; readonly cursor?: string }): CallsPage {
    const limit = Math.min(Math.max(Math.trunc(options.limit ?? DEFAULT_CALLS_PAGE), 1), MAX_CALLS_PAGE)
    const scope = cursorScope(accountId, options.stream)
    const where = ['account_id = ?']
    const params: unknown[] = [accountId]
    if (options.stream !== undefined) {
      where.push('stream = ?')
      params.push(options.stream)
    }
    if (options.cursor !== undefined) {
      const decisionId = openCursor(scope, options.cursor)
      const position = decisionId === null ? undefined : (statement(this.db, `SELECT decided_position FROM calls WHERE ${where.join(' AND ')} AND decision_id = ?`).pluck().get(...params, decisionId) as number | undefined)
      if (position === undefined) throw new DomainError('invalid_cursor', 'invalid cursor: pass back the next_cursor of a previous page of the same list')
      where.push('decided_position < ?')
      params.push(position)
    }
    const rows = statement(this.db, `${DETAIL} WHERE ${where.join(' AND ')} ORDER BY decided_position DESC LIMIT ?`).all(...params, limit + 1) as DetailRow[]
    const calls = rows.slice(0, limit).map(toDetail)
    const last = calls[calls.length - 1]
    return { calls, nextCursor: rows.length > limit && last ? sealCursor(scope, last.decisionId) : null }
  }

  dueFollowUps(now: string, limit = 500): DueFollowUp[] {
    // A paused lead's follow-up waits for resume_follow_up (the lead's decider refuses its claim too).
    return statement(this.db, 'SELECT stream, account_id AS accountId, attempt, due_at AS dueAt FROM follow_ups WHERE due_at <= ? AND stream NOT IN (SELECT stream FROM follow_up_pauses) ORDER BY due_at LIMIT ?').all(
      now,
      limit,
    ) as DueFollowUp[]
  }
}
