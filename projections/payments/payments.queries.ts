/** Queries over the pay-link log. */
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

export interface PayLinkRow {
  readonly requestId: string
  readonly stream: string
  readonly accountId: string
  readonly leadId: string
  readonly amountCents: number
  readonly currency: string
  readonly description: string
  readonly provider: string
  readonly requestedAt: string
  readonly stage: string
  readonly sessionId: string | null
  readonly expiresAt: string | null
  readonly status: string
  readonly settledAt: string | null
}

const SELECT = `SELECT request_id AS requestId, stream, account_id AS accountId, lead_id AS leadId, amount_cents AS amountCents, currency,
  description, provider, requested_at AS requestedAt, stage, session_id AS sessionId, expires_at AS expiresAt,
  status, settled_at AS settledAt FROM pay_links`

export class PaymentsQueries {
  constructor(private readonly db: ViewsDatabase) {}

  bySessionId(sessionId: string): PayLinkRow | null {
    return (statement(this.db, `${SELECT} WHERE session_id = ?`).get(sessionId) as PayLinkRow | undefined) ?? null
  }

  byRequestId(requestId: string): PayLinkRow | null {
    return (statement(this.db, `${SELECT} WHERE request_id = ?`).get(requestId) as PayLinkRow | undefined) ?? null
  }
}
