/**
 * The last webhook deliveries of each account, for the console's Lead webhook page: when, the HTTP
 * status, the lead or the error, and how the token came. Not a projection: a rejected request
 * appends nothing to the log (nothing happened to any lead), yet the owner needs to see it. So the
 * webhook route notes one row per authenticated request, and the rows are written into the views
 * database together, one transaction every FLUSH_MS (or every FLUSH_ROWS rows), not one commit per
 * request on the hot path; reading the list writes what is pending first. Older rows are pruned to
 * the last DELIVERIES_SHOWN per account, and rows a flush would prune at once are never written. Like every read model it is disposable: rebuilding the views database
 * forgets past deliveries, and a crash forgets the last FLUSH_MS of them.
 */
import type { Statement } from 'better-sqlite3'
import type { Logger } from 'pino'
import { BUSY_RETRY_MS, writeUnlessBusy, type ViewsDatabase } from './views-database.ts'

export const DELIVERIES_SHOWN = 20
/** Rows written between two prunes of the whole table. */
const PRUNE_EVERY = 1000
/** How long a noted delivery may wait to be written, and how many may wait. */
export const FLUSH_MS = 100
const FLUSH_ROWS = 500

type Row = [accountId: string, at: string, status: number, leadId: string | null, error: string | null, via: DeliveryVia, userAgent: string | null]

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
  private pending: Row[] = []
  private timer: NodeJS.Timeout | null = null

  constructor(
    private readonly db: ViewsDatabase,
    private readonly logger?: Pick<Logger, 'warn'>,
  ) {
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

  /** Notes a delivery; it is written with the others within FLUSH_MS. */
  record(accountId: string, at: Date, status: number, leadId: string | null, error: string | null, via: DeliveryVia, userAgent: string | undefined): void {
    this.pending.push([accountId, at.toISOString(), status, leadId, error, via, userAgent === undefined ? null : userAgent.slice(0, 120)])
    if (this.pending.length >= FLUSH_ROWS) this.flush({ wait: false })
    else if (this.timer === null) this.schedule(FLUSH_MS)
  }

  /**
   * Writes the pending deliveries in one transaction. A failure (a full or read-only disk) drops
   * them with a warning: the list is a convenience, and a lead is never refused for it. The timer's
   * flush does not wait for the views database's write lock (another process, such as the CLI, may
   * hold it while it applies a batch to the read models, and SQLite's busy wait would block the event loop): when
   * it is held, the rows wait for the next try, BUSY_RETRY_MS later.
   */
  flush(options: { wait?: boolean } = {}): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    const rows = newestPerAccount(this.pending, DELIVERIES_SHOWN)
    this.pending = []
    if (rows.length === 0) return
    const write = (): void => {
      for (const row of rows) this.insert.run(...row)
      const before = this.written
      this.written += rows.length
      if (Math.floor(this.written / PRUNE_EVERY) > Math.floor(before / PRUNE_EVERY)) this.pruneAll.run(DELIVERIES_SHOWN)
    }
    try {
      if (options.wait ?? true) this.db.transaction(write).immediate()
      else if (!writeUnlessBusy(this.db, write)) {
        this.pending = rows.concat(this.pending)
        this.schedule(BUSY_RETRY_MS)
      }
    } catch (error) {
      this.logger?.warn({ err: error, deliveries: rows.length }, 'webhook deliveries not recorded')
    }
  }

  private schedule(ms: number): void {
    if (this.timer !== null) return
    this.timer = setTimeout(() => this.flush({ wait: false }), ms)
    this.timer.unref()
  }

  /** The account's last deliveries, newest first (what is pending included). */
  last(accountId: string, limit = DELIVERIES_SHOWN): WebhookDelivery[] {
    this.flush()
    this.pruneAccount.run(accountId, accountId, DELIVERIES_SHOWN - 1)
    return this.latest.all(accountId, limit) as WebhookDelivery[]
  }
}

/** The last `keep` rows of each account, in their order: under load most of a flush is older than what is shown. */
function newestPerAccount(rows: readonly Row[], keep: number): Row[] {
  const kept = new Map<string, number>()
  const newest: Row[] = []
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i] as Row
    const count = kept.get(row[0]) ?? 0
    if (count >= keep) continue
    kept.set(row[0], count + 1)
    newest.push(row)
  }
  return newest.reverse()
}
