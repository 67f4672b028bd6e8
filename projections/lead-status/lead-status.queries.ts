/** Queries over where each lead stands: one account's, by lead, bounded. */
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'
import { statement } from '../../src/read-models/statement-cache.ts'
import type { LeadStatus } from './lead-status.projection.ts'

export interface LeadStatusRow {
  readonly leadId: string
  readonly status: LeadStatus
  /** The callback asked for or scheduled, while it waits (status `callback`). */
  readonly callbackAt: string | null
}

export class LeadStatusQueries {
  constructor(private readonly db: ViewsDatabase) {}

  /** The status of each of these leads of the account (a page of the list), by lead id. */
  ofLeads(accountId: string, leadIds: readonly string[]): ReadonlyMap<string, LeadStatusRow> {
    const found = new Map<string, LeadStatusRow>()
    const ask = statement(this.db, 'SELECT lead_id AS leadId, status, callback_at AS callbackAt FROM lead_status WHERE stream = (SELECT stream FROM inbound_leads WHERE lead_id = ?) AND account_id = ?')
    for (const leadId of leadIds) {
      const row = ask.get(leadId, accountId) as LeadStatusRow | undefined
      if (row) found.set(leadId, row)
    }
    return found
  }

  /** One lead's status (by its stream), or null before its first event is applied. */
  ofStream(accountId: string, stream: string): LeadStatusRow | null {
    return (statement(this.db, 'SELECT lead_id AS leadId, status, callback_at AS callbackAt FROM lead_status WHERE stream = ? AND account_id = ?').get(stream, accountId) as LeadStatusRow | undefined) ?? null
  }
}
