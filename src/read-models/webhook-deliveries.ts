/**
 * The last webhook deliveries of each account, for the console's Lead webhook page: when, the HTTP
 * status, the lead or the error, and how the token came. Not a projection: a rejected request
 * appends nothing to the log (nothing happened to any lead), yet the owner needs to see it. So the
 * webhook route writes one row per authenticated request straight into the views database (one
 * prepared INSERT on the hot path), and older rows are pruned to the last KEEP per account. Like
 * every read model it is disposable: rebuilding the views database forgets past deliveries.
 */
import type { Statement } from 'better-sqlite3'
import type { ViewsDatabase } from './views-database.ts'

export const DELIVERIES_SHOWN = 20
/** Rows written between two prunes of the whole table. */
const PRUNE_EVERY = 1000

export type DeliveryVia = 'header' | 'query' | 'console'

export interface WebhookDelivery {
  readonly at: string
  readonly status: number
  readonly leadId: string | null
  /** The error text of a refused request (`phone required`, …). */
  readonly error: string | null
  readonly via: DeliveryVia
  readonly userAgent: string | null
}

export class WebhookDeliveries {
  private readonly insert: Statement
  private readonly latest: Statement
  private readonly pruneAccount: Statement
  private readonly pruneAll: Statement
  private written = 0

  constructor(private readonly db: ViewsDatabase) {
    db.exec(`CREATE TABLE IF NOT EXISTS webhook_deliveries (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id TEXT NOT NULL,
      at TEXT NOT NULL,
      status INTEGER NOT NULL,
      lead_id TEXT,
      error TEXT,
      via TEXT NOT NULL,
      user_agent TEXT
    );
    CREATE INDEX IF NOT EXISTS webhook_deliveries_by_account ON webhook_deliveries (account_id, id);`)
    this.insert = db.prepare('INSERT INTO webhook_deliveries (account_id, at, status, lead_id, error, via, user_agent) VALUES (?, ?, ?, ?, ?, ?, ?)')
    this.latest = db.prepare(
      'SELECT at, status, lead_id AS leadId, error, via, user_agent AS userAgent FROM webhook_deliveries WHERE account_id = ? ORDER BY id DESC LIMIT ?',
    )
    this.pruneAccount = db.prepare(
      'DELETE FROM webhook_deliveries WHERE account_id = ? AND id < (SELECT id FROM webhook_deliveries WHERE account_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)',
    )
    this.pruneAll = db.prepare(
      `DELETE FROM webhook_deliveries WHERE id IN (
        SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY account_id ORDER BY id DESC) AS n FROM webhook_deliveries) WHERE n > ?)`,
    )
  }

  record(accountId: string, at: Date, status: number, leadId: string | null, error: string | null, via: DeliveryVia, userAgent: string | undefined): void {
    this.insert.run(accountId, at.toISOString(), status, leadId, error, via, userAgent === undefined ? null : userAgent.slice(0, 120))
    if (++this.written % PRUNE_EVERY === 0) this.pruneAll.run(DELIVERIES_SHOWN)
  }

  /** The account's last deliveries, newest first. */
  last(accountId: string, limit = DELIVERIES_SHOWN): WebhookDelivery[] {
    this.pruneAccount.run(accountId, accountId, DELIVERIES_SHOWN - 1)
    return this.latest.all(accountId, limit) as WebhookDelivery[]
  }
}
