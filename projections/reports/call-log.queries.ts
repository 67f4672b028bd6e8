/** The Calls page's query: the account's calls of both directions, newest first, filtered by outcome, source and time, a page at a time. */
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'
import { statement } from '../../src/read-models/statement-cache.ts'
import { openCursor, sealCursor } from '../../src/domain/shared/opaque-cursor.ts'
import { DomainError } from '../../src/domain/shared/decider.ts'
import type { AnsweredBy } from './call-log.ts'

/** Every outcome a listed call can have: callResult's for outbound calls, and `missed` for an inbound call nobody took. */
export const CALL_LOG_OUTCOMES = ['answered', 'machine', 'no_answer', 'busy', 'failed', 'unknown', 'agent_unavailable', 'missed', 'in_progress'] as const
export type CallLogOutcome = (typeof CALL_LOG_OUTCOMES)[number]

export interface CallLogEntry {
  readonly key: string
  readonly leadId: string
  readonly direction: 'outbound' | 'inbound'
  readonly at: string
  readonly source: string
  readonly purpose: string | null
  readonly outcome: CallLogOutcome
  readonly answeredBy: AnsweredBy | null
  readonly durationSeconds: number | null
  readonly voicemail: boolean
}

export interface CallLogFilter {
  readonly outcome?: CallLogOutcome
  readonly source?: string
  /** ISO instants: calls at or after `since`, before `until`. */
  readonly since?: string
  readonly until?: string
  readonly cursor?: string
  readonly limit: number
}

export interface CallLogPage {
  readonly calls: CallLogEntry[]
  readonly nextCursor: string | null
}

const SELECT = `SELECT call_key AS "key", lead_id AS leadId, direction, at, source, purpose, outcome, answered_by AS answeredBy,
  duration_seconds AS durationSeconds, voicemail FROM call_log`

export class CallLogQueries {
  constructor(private readonly db: ViewsDatabase) {}

  page(accountId: string, filter: CallLogFilter): CallLogPage {
    const conditions: Array<readonly [string, unknown] | null> = [
      ['account_id = ?', accountId],
      filter.outcome === undefined ? null : ['outcome = ?', filter.outcome],
      filter.source === undefined ? null : ['source = ?', filter.source],
      filter.since === undefined ? null : ['at >= ?', filter.since],
      filter.until === undefined ? null : ['at < ?', filter.until],
    ]
    const kept = conditions.filter((c) => c !== null)
    const where = kept.map(([sql]) => sql)
    const params: unknown[] = kept.map(([, value]) => value)
    const scope = `call-log\u0000${accountId}`
    if (filter.cursor !== undefined) {
      const opened = openCursor(scope, filter.cursor)
      const [at, key] = opened === null ? [] : opened.split('\u0000')
      if (at === undefined || key === undefined) throw new DomainError('invalid_cursor', 'invalid cursor: start from the first page')
      where.push('(at < ? OR (at = ? AND call_key < ?))')
      params.push(at, at, key)
    }
    const rows = statement(this.db, `${SELECT} WHERE ${where.join(' AND ')} ORDER BY at DESC, call_key DESC LIMIT ?`)
      .all(...params, filter.limit + 1) as Array<Omit<CallLogEntry, 'voicemail'> & { voicemail: number }>
    const calls = rows.slice(0, filter.limit).map((row) => ({ ...row, voicemail: row.voicemail === 1 }))
    const last = calls[calls.length - 1]
    return { calls, nextCursor: rows.length > filter.limit && last ? sealCursor(scope, `${last.at}\u0000${last.key}`) : null }
  }
}
