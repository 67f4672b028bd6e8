/** Queries over Inbound Leads: always within one account, newest first, with cursor pagination. */
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'
import { DomainError } from '../../src/domain/shared/decider.ts'

export interface InboundLead {
  readonly leadId: string
  readonly phone: string
  readonly fullName: string | null
  readonly firstName: string | null
  readonly lastName: string | null
  readonly email: string | null
  readonly state: string | null
  readonly age: number | null
  readonly dob: string | null
  readonly source: string | null
  readonly vendor: string | null
  readonly leadDate: string | null
  readonly city: string | null
  readonly zip: string | null
  readonly address: string | null
  readonly doNotCall: boolean
  readonly industryFields: Record<string, string>
  readonly extraFields: Array<{ name: string; value: unknown }>
  readonly submissions: number
  readonly receivedAt: string
  readonly updatedAt: string
}

export interface InboundLeadsFilter {
  readonly source?: string
  readonly vendor?: string
  /** ISO time: only leads received at or after it. */
  readonly since?: string
  readonly doNotCall?: boolean
  readonly limit?: number
  readonly cursor?: string
}

export interface InboundLeadsPage {
  readonly leads: InboundLead[]
  /** Pass back as `cursor` for the next page; null on the last page. */
  readonly nextCursor: string | null
}

export const DEFAULT_PAGE_SIZE = 50
export const MAX_PAGE_SIZE = 500

interface Row {
  lead_id: string
  phone: string
  full_name: string | null
  first_name: string | null
  last_name: string | null
  email: string | null
  state: string | null
  age: number | null
  dob: string | null
  source: string | null
  vendor: string | null
  lead_date: string | null
  city: string | null
  zip: string | null
  address: string | null
  do_not_call: number
  industry_fields: string
  extra_fields: string
  submissions: number
  received_at: string
  updated_at: string
  received_position: number
}

function toLead(row: Row): InboundLead {
  return {
    leadId: row.lead_id,
    phone: row.phone,
    fullName: row.full_name,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    state: row.state,
    age: row.age,
    dob: row.dob,
    source: row.source,
    vendor: row.vendor,
    leadDate: row.lead_date,
    city: row.city,
    zip: row.zip,
    address: row.address,
    doNotCall: row.do_not_call === 1,
    industryFields: JSON.parse(row.industry_fields) as Record<string, string>,
    extraFields: JSON.parse(row.extra_fields) as Array<{ name: string; value: unknown }>,
    submissions: row.submissions,
    receivedAt: row.received_at,
    updatedAt: row.updated_at,
  }
}

function encodeCursor(position: number): string {
  return Buffer.from(JSON.stringify({ p: position })).toString('base64url')
}

function decodeCursor(cursor: string): number {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { p?: unknown }
    if (typeof value.p === 'number' && Number.isSafeInteger(value.p) && value.p > 0) return value.p
  } catch {
    // fall through to the error below
  }
  throw new DomainError('invalid_cursor', 'invalid cursor: pass back the nextCursor of a previous page')
}

export class InboundLeadsQueries {
  private readonly byLeadId
  private readonly byLast10
  private readonly countStatement

  constructor(private readonly db: ViewsDatabase) {
    this.byLeadId = db.prepare('SELECT * FROM inbound_leads WHERE account_id = ? AND lead_id = ?')
    this.byLast10 = db.prepare('SELECT * FROM inbound_leads WHERE account_id = ? AND phone_last10 = ?')
    this.countStatement = db.prepare('SELECT count(*) AS n FROM inbound_leads WHERE account_id = ? AND listed = 1')
  }

  list(accountId: string, filter: InboundLeadsFilter = {}): InboundLeadsPage {
    const limit = Math.min(Math.max(Math.trunc(filter.limit ?? DEFAULT_PAGE_SIZE), 1), MAX_PAGE_SIZE)
    const where = ['account_id = ?', 'listed = 1']
    const params: unknown[] = [accountId]
    if (filter.source !== undefined) {
      where.push('source = ? COLLATE NOCASE')
      params.push(filter.source)
    }
    if (filter.vendor !== undefined) {
      where.push('vendor = ? COLLATE NOCASE')
      params.push(filter.vendor)
    }
    if (filter.since !== undefined) {
      const since = new Date(filter.since)
      if (Number.isNaN(since.getTime())) throw new DomainError('invalid_since', 'since must be an ISO-8601 time')
      where.push('received_at >= ?')
      params.push(since.toISOString())
    }
    if (filter.doNotCall !== undefined) {
      where.push('do_not_call = ?')
      params.push(filter.doNotCall ? 1 : 0)
    }
    if (filter.cursor !== undefined) {
      where.push('received_position < ?')
      params.push(decodeCursor(filter.cursor))
    }
    const rows = this.db
      .prepare(`SELECT * FROM inbound_leads WHERE ${where.join(' AND ')} ORDER BY received_position DESC LIMIT ?`)
      .all(...params, limit + 1) as Row[]
    const page = rows.slice(0, limit)
    const last = page[page.length - 1]
    return { leads: page.map(toLead), nextCursor: rows.length > limit && last ? encodeCursor(last.received_position) : null }
  }

  count(accountId: string): number {
    return (this.countStatement.get(accountId) as { n: number }).n
  }

  get(accountId: string, by: { leadId: string } | { phoneLast10: string }): InboundLead | null {
    const row = ('leadId' in by ? this.byLeadId.get(accountId, by.leadId) : this.byLast10.get(accountId, by.phoneLast10)) as Row | undefined
    return row ? toLead(row) : null
  }
}
