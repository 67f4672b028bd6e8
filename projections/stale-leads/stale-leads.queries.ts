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
}

const COLUMNS = `stream, lead_id AS leadId, name, phone, state, source, received_at AS receivedAt, last_touch_at AS lastTouchAt,
  last_contact_at AS lastContactAt, pending_since AS pendingSince, attempts`

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
