/** Queries over Inbound Leads: always within one account, newest first, with cursor pagination. */
import type { Statement } from 'better-sqlite3'
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'
import { DomainError } from '../../src/domain/shared/decider.ts'
import { openCursor, sealCursor } from '../../src/domain/shared/opaque-cursor.ts'

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
  /** Where the lead stands (the lead-status read model's `status`: new, calling, replied, …). */
  readonly status?: string
  /** Words found in the name or email, or digits found in the phone (the console's search box). */
  readonly search?: string
  readonly limit?: number
  readonly cursor?: string
  /**
   * Stop reading rows once their text passes this many bytes (at least one row is read): a page of
   * leads with bulky extra fields ends early, with a cursor for the rest, rather than be held in
   * memory whole.
   */
  readonly maxBytes?: number
}

export interface InboundLeadsPage {
  readonly leads: InboundLead[]
  /** Pass back as `cursor` for the next page; null on the last page. */
  readonly nextCursor: string | null
}

export const DEFAULT_PAGE_SIZE = 50
export const MAX_PAGE_SIZE = 500

// The columns a lead is read from, in the order toLead takes them (rows are read raw, as arrays).
const COLUMNS =
  'lead_id, phone, full_name, first_name, last_name, email, state, age, dob, source, vendor, lead_date, city, zip, address, ' +
  'do_not_call, industry_fields, extra_fields, submissions, received_at, updated_at'

type Row = [
  leadId: string,
  phone: string,
  fullName: string | null,
  firstName: string | null,
  lastName: string | null,
  email: string | null,
  state: string | null,
  age: number | null,
  dob: string | null,
  source: string | null,
  vendor: string | null,
  leadDate: string | null,
  city: string | null,
  zip: string | null,
  address: string | null,
  doNotCall: number,
  industryFields: string,
  extraFields: string,
  submissions: number,
  receivedAt: string,
  updatedAt: string,
]

/** The bytes of a row's text (its JSON columns are most of it when a lead is big). */
function rowBytes(row: Row): number {
  let bytes = 0
  for (const cell of row) bytes += typeof cell === 'string' ? Buffer.byteLength(cell, 'utf8') : 8
  return bytes
}

function toLead(row: Row): InboundLead {
  return {
    leadId: row[0],
    phone: row[1],
    fullName: row[2],
    firstName: row[3],
    lastName: row[4],
    email: row[5],
    state: row[6],
    age: row[7],
    dob: row[8],
    source: row[9],
    vendor: row[10],
    leadDate: row[11],
    city: row[12],
    zip: row[13],
    address: row[14],
    doNotCall: row[15] === 1,
    // Most leads have none: skip the parse for the empty forms the projection writes.
    industryFields: row[16] === '{}' ? {} : (JSON.parse(row[16]) as Record<string, string>),
    extraFields: row[17] === '[]' ? [] : (JSON.parse(row[17]) as Array<{ name: string; value: unknown }>),
    submissions: row[18],
    receivedAt: row[19],
    updatedAt: row[20],
  }
}

/** A page's cursor names the last lead on it, sealed for the account: nothing of the shared log is in it. */
const cursorScope = (accountId: string) => `inbound-leads\u0000${accountId}`

function invalidCursor(): DomainError {
  return new DomainError('invalid_cursor', "invalid cursor: pass back the next cursor of a previous page of this account's list")
}

export class InboundLeadsQueries {
  private readonly byLeadId
  private readonly byLast10
  private readonly countStatement
  private readonly positionOfLead
  /** One prepared statement per combination of filters, made on first use. */
  private readonly pages = new Map<string, Statement>()

  constructor(private readonly db: ViewsDatabase) {
    this.byLeadId = db.prepare(`SELECT ${COLUMNS} FROM inbound_leads WHERE account_id = ? AND lead_id = ?`).raw()
    this.byLast10 = db.prepare(`SELECT ${COLUMNS} FROM inbound_leads WHERE account_id = ? AND phone_last10 = ?`).raw()
    this.countStatement = db.prepare('SELECT listed AS n FROM inbound_lead_counts WHERE account_id = ?')
    this.positionOfLead = db.prepare('SELECT received_position FROM inbound_leads WHERE account_id = ? AND lead_id = ?').pluck()
  }

  /** Where a cursor's page starts: the position of the lead it names, looked up in this account only. */
  private decodeCursor(accountId: string, cursor: string): number {
    const leadId = openCursor(cursorScope(accountId), cursor)
    const position = leadId === null ? undefined : (this.positionOfLead.get(accountId, leadId) as number | undefined)
    if (position === undefined) throw invalidCursor()
    return position
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
    if (filter.search !== undefined && filter.search.trim() !== '') {
      const text = filter.search.trim().slice(0, 100)
      const digits = text.replace(/\D/g, '')
      // Digits and phone punctuation only: a phone search; anything else: name or email.
      if (digits.length >= 3 && /^[\d\s().+-]+$/.test(text)) {
        where.push("phone LIKE ? ESCAPE '\\'")
        params.push(`%${digits}%`)
      } else {
        const like = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
        where.push("(full_name LIKE ? ESCAPE '\\' OR (coalesce(first_name, '') || ' ' || coalesce(last_name, '')) LIKE ? ESCAPE '\\' OR email LIKE ? ESCAPE '\\')")
        params.push(like, like, like)
      }
    }
    if (filter.cursor !== undefined) {
      where.push('received_position < ?')
      params.push(this.decodeCursor(accountId, filter.cursor))
    }
    // By status (the lead-status read model): its index walks that status's leads newest first, each found here by its stream.
    const from = filter.status === undefined
      ? 'inbound_leads'
      : '(SELECT stream AS status_stream, received_position AS status_position FROM lead_status WHERE account_id = ? AND status = ?) AS by_status CROSS JOIN inbound_leads ON inbound_leads.stream = by_status.status_stream'
    if (filter.status !== undefined) params.unshift(accountId, filter.status)
    const order = filter.status === undefined ? 'received_position' : 'by_status.status_position'
    const sql = `SELECT ${COLUMNS} FROM ${from} WHERE ${where.join(' AND ')} ORDER BY ${order} DESC LIMIT ?`
    let statement = this.pages.get(sql)
    if (statement === undefined) {
      statement = this.db.prepare(sql).raw()
      this.pages.set(sql, statement)
    }
    const page: Row[] = []
    let bytes = 0
    let more = false
    // Row by row, so a page cut by size never reads the rows after it.
    for (const row of statement.iterate(...params, limit + 1) as IterableIterator<Row>) {
      bytes += rowBytes(row)
      if (page.length === limit || (filter.maxBytes !== undefined && bytes > filter.maxBytes && page.length > 0)) {
        more = true
        break
      }
      page.push(row)
    }
    const last = page[page.length - 1]
    return { leads: page.map(toLead), nextCursor: more && last ? this.cursorAfter(accountId, last[0]) : null }
  }

  /** The cursor of the page that follows this lead of the account (for a page its caller cut shorter still). */
  cursorAfter(accountId: string, leadId: string): string {
    return sealCursor(cursorScope(accountId), leadId)
  }

  count(accountId: string): number {
    return (this.countStatement.get(accountId) as { n: number } | undefined)?.n ?? 0
  }

  get(accountId: string, by: { leadId: string } | { phoneLast10: string }): InboundLead | null {
    const row = ('leadId' in by ? this.byLeadId.get(accountId, by.leadId) : this.byLast10.get(accountId, by.phoneLast10)) as Row | undefined
    return row ? toLead(row) : null
  }
}
