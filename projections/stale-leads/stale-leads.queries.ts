/** Queries over the stale-leads view: always within one account, bounded, index-backed. */
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

export interface LeadActivityRow {
  readonly stream: string
  readonly leadId: string
  readonly name: string | null
  readonly phone: string
  readonly state: string | null
  readonly source: string | null
  readonly receivedAt: string
  readonly lastTouchAt: string
  readonly lastContactAt: string | null
  readonly pendingSince: string | null
  readonly attempts: number
  /** The callback the lead asked for, until a call is decided for it. */
  readonly callbackAt: string | null
  /** Who asked for the callback: `lead` (pressing 2, or to the voice assistant) or `account` (schedule_callback). */
  readonly callbackBy: 'lead' | 'account' | null
  /** When the lead pressed 1 and was not connected, until another call goes out. */
  readonly connectMissedAt: string | null
  /** When the voice assistant ended a call as qualified, until another call is decided. */
  readonly qualifiedAt: string | null
  /** When the lead last texted back, until a call goes out to the lead after it. */
  readonly repliedAt: string | null
  /** When the lead's missed inbound call came in, until a call goes out to them or a later call of theirs is taken. */
  readonly missedCallAt: string | null
}

const COLUMNS = `stream, lead_id AS leadId, name, phone, state, source, received_at AS receivedAt, last_touch_at AS lastTouchAt,
  last_contact_at AS lastContactAt, pending_since AS pendingSince, attempts, callback_at AS callbackAt, callback_by AS callbackBy, connect_missed_at AS connectMissedAt,
  replied_at AS repliedAt, qualified_at AS qualifiedAt, missed_call_at AS missedCallAt`

/** The lead_activity columns that mark a lead for get_next_actions until it is called again. */
type Mark = 'missed_call_at' | 'replied_at' | 'qualified_at' | 'connect_missed_at'

/** Counting stops here: a summary says "1,000+" rather than scanning a huge book on every call. */
export const COUNT_CAP = 1000

export class StaleLeadsQueries {
  constructor(private readonly db: ViewsDatabase) {}

  /** New leads never contacted, received at or before `cutoff`; freshest first. */
  neverContacted(accountId: string, cutoff: string, limit: number): LeadActivityRow[] {
    return statement(
      this.db,
      `SELECT ${COLUMNS} FROM lead_activity WHERE account_id = ? AND contacted = 0 AND do_not_call = 0 AND received_at <= ? ORDER BY received_at DESC LIMIT ?`,
    ).all(accountId, cutoff, limit) as LeadActivityRow[]
  }

  /** Contacted leads with no touch back since a contact at or before `cutoff`; longest waiting first. */
  contactedUntouched(accountId: string, cutoff: string, limit: number): LeadActivityRow[] {
    return statement(
      this.db,
      `SELECT ${COLUMNS} FROM lead_activity WHERE account_id = ? AND do_not_call = 0 AND pending_since IS NOT NULL AND pending_since <= ? ORDER BY pending_since LIMIT ?`,
    ).all(accountId, cutoff, limit) as LeadActivityRow[]
  }

  /** Leads that called in and were missed, not called back since; the latest call first. */
  missedCalls(accountId: string, limit: number): LeadActivityRow[] {
    return this.latestMarked('missed_call_at', accountId, limit)
  }

  countMissedCalls(accountId: string): number {
    return this.countMarked('missed_call_at', accountId)
  }

  /** Leads that texted back and were not called since; the latest reply first. */
  replied(accountId: string, limit: number): LeadActivityRow[] {
    return this.latestMarked('replied_at', accountId, limit)
  }

  countReplied(accountId: string): number {
    return this.countMarked('replied_at', accountId)
  }

  /** Leads the voice assistant qualified that no call has followed since; newest first. */
  qualified(accountId: string, limit: number): LeadActivityRow[] {
    return this.latestMarked('qualified_at', accountId, limit)
  }

  /** Leads that pressed 1 and were not connected, with no call out since; the latest first. */
  connectsMissed(accountId: string, limit: number): LeadActivityRow[] {
    return this.latestMarked('connect_missed_at', accountId, limit)
  }

  countConnectsMissed(accountId: string): number {
    return this.countMarked('connect_missed_at', accountId)
  }

  /** Leads (not do-not-call) with `column` set: each mark stays until the lead is called again. */
  private latestMarked(column: Mark, accountId: string, limit: number): LeadActivityRow[] {
    return statement(
      this.db,
      `SELECT ${COLUMNS} FROM lead_activity WHERE account_id = ? AND do_not_call = 0 AND ${column} IS NOT NULL ORDER BY ${column} DESC LIMIT ?`,
    ).all(accountId, limit) as LeadActivityRow[]
  }

  private countMarked(column: Mark, accountId: string): number {
    return (statement(
      this.db,
      `SELECT count(*) AS n FROM (SELECT 1 FROM lead_activity WHERE account_id = ? AND do_not_call = 0 AND ${column} IS NOT NULL LIMIT ?)`,
    ).get(accountId, COUNT_CAP) as { n: number }).n
  }

  /** These leads of the account (not do-not-call), by their streams: the leads of the appointments get_next_actions lists. */
  byStreams(accountId: string, streams: readonly string[]): LeadActivityRow[] {
    if (streams.length === 0) return []
    return statement(
      this.db,
      `SELECT ${COLUMNS} FROM lead_activity WHERE stream IN (SELECT value FROM json_each(?)) AND account_id = ? AND do_not_call = 0`,
    ).all(JSON.stringify(streams), accountId) as LeadActivityRow[]
  }

  /** Leads whose asked-for callback is due at `now`; the latest due first. */
  callbacksDue(accountId: string, now: string, limit: number): LeadActivityRow[] {
    return statement(
      this.db,
      `SELECT ${COLUMNS} FROM lead_activity WHERE account_id = ? AND do_not_call = 0 AND callback_at IS NOT NULL AND callback_at <= ? ORDER BY callback_at DESC LIMIT ?`,
    ).all(accountId, now, limit) as LeadActivityRow[]
  }

  countCallbacksDue(accountId: string, now: string): number {
    return (statement(
      this.db,
      'SELECT count(*) AS n FROM (SELECT 1 FROM lead_activity WHERE account_id = ? AND do_not_call = 0 AND callback_at IS NOT NULL AND callback_at <= ? LIMIT ?)',
    ).get(accountId, now, COUNT_CAP) as { n: number }).n
  }

  countNeverContacted(accountId: string, cutoff: string): number {
    return (statement(
      this.db,
      'SELECT count(*) AS n FROM (SELECT 1 FROM lead_activity WHERE account_id = ? AND contacted = 0 AND do_not_call = 0 AND received_at <= ? LIMIT ?)',
    ).get(accountId, cutoff, COUNT_CAP) as { n: number }).n
  }

  countContactedUntouched(accountId: string, cutoff: string): number {
    return (statement(
      this.db,
      'SELECT count(*) AS n FROM (SELECT 1 FROM lead_activity WHERE account_id = ? AND do_not_call = 0 AND pending_since IS NOT NULL AND pending_since <= ? LIMIT ?)',
    ).get(accountId, cutoff, COUNT_CAP) as { n: number }).n
  }
}
