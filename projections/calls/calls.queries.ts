/** Queries over the call log and the follow-up timers. */
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

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
}

export interface DueFollowUp {
  readonly stream: string
  readonly accountId: string
  readonly attempt: number
  readonly dueAt: string
}

const SELECT = `SELECT decision_id AS decisionId, stream, account_id AS accountId, lead_id AS leadId, purpose, attempt,
  from_number AS "from", to_number AS "to", decided_at AS decidedAt, stage, call_id AS callId,
  carrier, outcome, answered FROM calls`

function toCall(row: (Omit<CallRow, 'answered'> & { answered: number }) | undefined): CallRow | null {
  return row ? { ...row, answered: row.answered === 1 } : null
}

export class CallsQueries {
  constructor(private readonly db: ViewsDatabase) {}

  /** When each stream's calls decided after `since` (ISO) were decided, whatever their purpose: the daily limit counts them. */
  decidedSince(streams: readonly string[], since: string): Map<string, string[]> {
    const query = statement(this.db, 'SELECT decided_at AS decidedAt FROM calls WHERE stream = ? AND decided_at > ?')
    const times = new Map<string, string[]>()
    for (const stream of streams) {
      const rows = query.all(stream, since) as { decidedAt: string }[]
      if (rows.length > 0) times.set(stream, rows.map((row) => row.decidedAt))
    }
    return times
  }

  byCallId(callId: string): CallRow | null {
    return toCall(statement(this.db, `${SELECT} WHERE call_id = ?`).get(callId) as never)
  }

  byDecisionId(decisionId: string): CallRow | null {
    return toCall(statement(this.db, `${SELECT} WHERE decision_id = ?`).get(decisionId) as never)
  }

  forStream(stream: string): CallRow[] {
    return (statement(this.db, `${SELECT} WHERE stream = ? ORDER BY decided_position`).all(stream) as never[]).map((r) => toCall(r) as CallRow)
  }

  dueFollowUps(now: string, limit = 500): DueFollowUp[] {
    return statement(this.db, 'SELECT stream, account_id AS accountId, attempt, due_at AS dueAt FROM follow_ups WHERE due_at <= ? ORDER BY due_at LIMIT ?').all(
      now,
      limit,
    ) as DueFollowUp[]
  }
}
