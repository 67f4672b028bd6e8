/**
 * The pay-link log: one row per payment request (which lead, how far its link and text got, how it
 * settled, the provider's session id). The simulated pay page and the provider's events find their
 * request by session id. (The pay-link sender's unfinished work is in the claims read model.)
 */
import type { Database } from 'better-sqlite3'
import type { RecordedEvent } from '../../src/domain/event.ts'
import { parseLeadStream } from '../../src/domain/lead/lead.events.ts'
import type { PaymentEvent } from '../../src/domain/lead/payments/payments.events.ts'
import type { Projection } from '../../src/read-models/projection.ts'
import { sqlTemplate, statement } from '../../src/read-models/statement-cache.ts'

const setSql = sqlTemplate((columns) => `UPDATE pay_links SET ${columns} WHERE request_id = ?`)

/** Sets the columns of a payment request's row. Not a closure made per event (see setStage in calls.projection.ts). */
function set(db: Database, requestId: string, columns: string, ...values: unknown[]): void {
  statement(db, setSql(columns)).run(...values, requestId)
}

export const paymentsProjection: Projection = {
  name: 'payments',
  version: 2,
  handles: [
    'PaymentRequested', 'PayLinkCreated', 'PayLinkFailed', 'PayLinkTextAttempted', 'PayLinkTexted', 'PayLinkTextFailed',
    'PayLinkTextOutcomeUnknown', 'PaymentRequestExpired', 'PaymentSettled', 'PaymentFailed', 'PaymentLinkExpired',
  ],
  tables: ['pay_links'],

  setup(db: Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS pay_links (
        request_id TEXT PRIMARY KEY,
        stream TEXT NOT NULL,
        account_id TEXT NOT NULL,
        lead_id TEXT NOT NULL,
        amount_cents INTEGER NOT NULL,
        currency TEXT NOT NULL,
        description TEXT NOT NULL,
        provider TEXT NOT NULL,
        requested_at TEXT NOT NULL,
        stage TEXT NOT NULL,
        session_id TEXT,
        expires_at TEXT,
        status TEXT NOT NULL DEFAULT 'open',
        settled_at TEXT
      );
      CREATE INDEX IF NOT EXISTS pay_links_by_session ON pay_links (session_id);
    `)
  },

  apply(db: Database, recorded: RecordedEvent) {
    const event = recorded as unknown as PaymentEvent
    switch (event.type) {
      case 'PaymentRequested': {
        const d = event.data
        statement(
          db,
          `INSERT OR IGNORE INTO pay_links (request_id, stream, account_id, lead_id, amount_cents, currency, description, provider, requested_at, stage)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'requested')`,
        ).run(d.requestId, recorded.stream, parseLeadStream(recorded.stream)?.accountId ?? '', d.leadId, d.amountCents, d.currency, d.description, d.provider, d.requestedAt)
        return
      }
      case 'PayLinkCreated':
        set(db, event.data.requestId, "stage = 'linked', session_id = ?, expires_at = ?", event.data.sessionId, event.data.expiresAt)
        return
      case 'PayLinkFailed':
        set(db, event.data.requestId, "stage = 'link_failed'")
        return
      case 'PayLinkTextAttempted':
        set(db, event.data.requestId, "stage = 'texting'")
        return
      case 'PayLinkTexted':
        set(db, event.data.requestId, "stage = 'texted'")
        return
      case 'PayLinkTextFailed':
        set(db, event.data.requestId, "stage = 'text_failed'")
        return
      case 'PayLinkTextOutcomeUnknown':
        set(db, event.data.requestId, "stage = 'text_unknown'")
        return
      case 'PaymentRequestExpired':
        set(db, event.data.requestId, "stage = 'expired'")
        return
      case 'PaymentSettled':
        set(db, event.data.requestId, "status = 'settled', settled_at = ?, session_id = ?", event.data.at, event.data.sessionId)
        return
      case 'PaymentFailed':
        set(db, event.data.requestId, "status = 'failed'")
        return
      case 'PaymentLinkExpired':
        set(db, event.data.requestId, "status = 'expired'")
        return
      default:
        return
    }
  },
}
