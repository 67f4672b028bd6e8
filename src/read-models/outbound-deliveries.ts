/**
 * The outbound events' deliveries: one row per event and subscription, with its status and attempts,
 * in the views database. Not a projection: it holds what the delivery process did (attempts, answers)
 * as well as what the log said, and it is written by that process. Rows are inserted before the
 * process runner's checkpoint passes their event, so a stop of any kind loses none: after a restart,
 * every pending row is delivered again with its stable `webhook-id`. Like the process checkpoint it
 * sits beside, it goes with the views database: deleting that file forgets pending deliveries.
 *
 * A lane is one subscription's events of one lead: only its oldest pending row may be sent, so a
 * lead's events arrive in log order, while other leads and accounts go on (no head-of-line blocking).
 */
import type { Statement } from 'better-sqlite3'
import type { ViewsDatabase } from './views-database.ts'
import { statement } from './statement-cache.ts'

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled'

export interface NewDelivery {
  readonly webhookId: string
  readonly accountId: string
  readonly subscriptionId: string
  readonly lane: string
  readonly position: number
  readonly eventId: string
  readonly type: string
  readonly payload: string
}

export interface Delivery extends NewDelivery {
  readonly id: number
  readonly status: DeliveryStatus
  readonly attempts: number
  /** Epoch ms: when the 24-hour retry window began (the event's arrival, or a retry by hand). */
  readonly windowStart: number
  readonly nextAttemptAt: number
  readonly lastAttemptAt: string | null
  readonly lastStatus: number | null
  readonly lastError: string | null
  readonly createdAt: string
}

export interface DeliveryAttempt {
  readonly attempt: number
  readonly at: string
  /** The receiver's HTTP status; null when there was none (a timeout, a refused connection). */
  readonly status: number | null
  readonly error: string | null
  readonly durationMs: number
}

const COLUMNS = `id, webhook_id AS webhookId, account_id AS accountId, subscription_id AS subscriptionId, lane, position, event_id AS eventId, type, payload,
  status, attempts, window_start AS windowStart, next_attempt_at AS nextAttemptAt, last_attempt_at AS lastAttemptAt, last_status AS lastStatus, last_error AS lastError, created_at AS createdAt`

/** Attempts kept per delivery (the first ones and the last ones are what an owner looks at). */
const ATTEMPTS_KEPT = 20

export class OutboundDeliveries {
  private readonly insert: Statement

  constructor(private readonly db: ViewsDatabase) {
    db.exec(`CREATE TABLE IF NOT EXISTS outbound_deliveries (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      webhook_id TEXT NOT NULL UNIQUE,
      account_id TEXT NOT NULL,
      subscription_id TEXT NOT NULL,
      lane TEXT NOT NULL,
      position INTEGER NOT NULL,
      event_id TEXT NOT NULL,
      type TEXT NOT NULL,
      payload TEXT NOT NULL,
      status TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      window_start INTEGER NOT NULL,
      next_attempt_at INTEGER NOT NULL,
      last_attempt_at TEXT,
      last_status INTEGER,
      last_error TEXT,
      created_at TEXT NOT NULL
    );
    DROP INDEX IF EXISTS outbound_deliveries_due;
    CREATE INDEX IF NOT EXISTS outbound_deliveries_due_in_order ON outbound_deliveries (next_attempt_at, position) WHERE status = 'pending';
    CREATE INDEX IF NOT EXISTS outbound_deliveries_lane ON outbound_deliveries (subscription_id, lane, position) WHERE status = 'pending';
    CREATE INDEX IF NOT EXISTS outbound_deliveries_by_account ON outbound_deliveries (account_id, id);
    CREATE TABLE IF NOT EXISTS outbound_attempts (
      delivery_id INTEGER NOT NULL,
      attempt INTEGER NOT NULL,
      at TEXT NOT NULL,
      status INTEGER,
      error TEXT,
      duration_ms INTEGER NOT NULL,
      PRIMARY KEY (delivery_id, attempt)
    ) WITHOUT ROWID;`)
    this.insert = db.prepare(
      `INSERT INTO outbound_deliveries (webhook_id, account_id, subscription_id, lane, position, event_id, type, payload, status, window_start, next_attempt_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?) ON CONFLICT (webhook_id) DO NOTHING`,
    )
  }

  /** Inserts the new deliveries (a redelivered event's rows are already there: nothing changes); call inside a transaction. */
  add(rows: readonly NewDelivery[], now: Date): void {
    const at = now.getTime()
    const iso = now.toISOString()
    for (const r of rows) this.insert.run(r.webhookId, r.accountId, r.subscriptionId, r.lane, r.position, r.eventId, r.type, r.payload, at, at, iso)
  }

  /**
   * Pending deliveries due by `now` that head their lane (no older pending row of the same
   * subscription and lead), soonest first.
   */
  due(now: number, limit: number): Delivery[] {
    return statement(
      this.db,
      `SELECT ${COLUMNS} FROM outbound_deliveries d
       WHERE d.status = 'pending' AND d.next_attempt_at <= ?
         AND NOT EXISTS (SELECT 1 FROM outbound_deliveries e WHERE e.status = 'pending' AND e.subscription_id = d.subscription_id AND e.lane = d.lane AND e.position < d.position)
       ORDER BY d.next_attempt_at, d.position LIMIT ?`,
    ).all(now, limit) as Delivery[]
  }

  /** When the next pending delivery falls due (epoch ms), or null when none is pending. */
  nextDueAt(): number | null {
    const row = statement(this.db, "SELECT MIN(next_attempt_at) AS at FROM outbound_deliveries WHERE status = 'pending'").get() as { at: number | null }
    return row.at
  }

  /** Records attempts, in one transaction (see recordAttempt). */
  recordAttempts(outcomes: ReadonlyArray<{ id: number; attempt: DeliveryAttempt; next: { status: DeliveryStatus; nextAttemptAt: number } }>): void {
    this.db.transaction(() => {
      for (const { id, attempt, next } of outcomes) this.recordAttempt(id, attempt, next)
    }).immediate()
  }

  /** Records an attempt and what follows it: delivered, failed for good, or pending until `nextAttemptAt`. */
  recordAttempt(id: number, attempt: DeliveryAttempt, next: { status: DeliveryStatus; nextAttemptAt: number }): void {
    this.db.transaction(() => {
      statement(this.db, 'INSERT OR REPLACE INTO outbound_attempts (delivery_id, attempt, at, status, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?)').run(
        id, attempt.attempt, attempt.at, attempt.status, attempt.error, attempt.durationMs,
      )
      statement(this.db, 'DELETE FROM outbound_attempts WHERE delivery_id = ? AND attempt <= ?').run(id, attempt.attempt - ATTEMPTS_KEPT)
      statement(
        this.db,
        'UPDATE outbound_deliveries SET attempts = ?, status = ?, next_attempt_at = ?, last_attempt_at = ?, last_status = ?, last_error = ? WHERE id = ?',
      ).run(attempt.attempt, next.status, next.nextAttemptAt, attempt.at, attempt.status, attempt.error, id)
    }).immediate()
  }

  /** Ends a delivery without an attempt (its subscription was removed). */
  cancel(id: number, reason: string): void {
    statement(this.db, "UPDATE outbound_deliveries SET status = 'cancelled', last_error = ? WHERE id = ? AND status = 'pending'").run(reason, id)
  }

  /**
   * Sends failed deliveries again, from now, with a new 24-hour window and the same `webhook-id`:
   * one by its id, or every failed one of the account (of one subscription). Returns how many.
   */
  retry(accountId: string, which: { deliveryId?: number; subscriptionId?: string }, now: number): number {
    if (which.deliveryId !== undefined) {
      return statement(this.db, "UPDATE outbound_deliveries SET status = 'pending', window_start = ?, next_attempt_at = ? WHERE id = ? AND account_id = ? AND status = 'failed'")
        .run(now, now, which.deliveryId, accountId).changes
    }
    if (which.subscriptionId !== undefined) {
      return statement(this.db, "UPDATE outbound_deliveries SET status = 'pending', window_start = ?, next_attempt_at = ? WHERE account_id = ? AND subscription_id = ? AND status = 'failed'")
        .run(now, now, accountId, which.subscriptionId).changes
    }
    return statement(this.db, "UPDATE outbound_deliveries SET status = 'pending', window_start = ?, next_attempt_at = ? WHERE account_id = ? AND status = 'failed'")
      .run(now, now, accountId).changes
  }

  /** The account's latest deliveries, newest first (optionally of one subscription or status). */
  latest(accountId: string, filter: { subscriptionId?: string; status?: DeliveryStatus; limit?: number } = {}): Delivery[] {
    return statement(
      this.db,
      `SELECT ${COLUMNS} FROM outbound_deliveries WHERE account_id = ? AND (? IS NULL OR subscription_id = ?) AND (? IS NULL OR status = ?) ORDER BY id DESC LIMIT ?`,
    ).all(accountId, filter.subscriptionId ?? null, filter.subscriptionId ?? null, filter.status ?? null, filter.status ?? null, filter.limit ?? 20) as Delivery[]
  }

  /** A delivery's kept attempts, oldest first. */
  attempts(id: number): DeliveryAttempt[] {
    return statement(this.db, 'SELECT attempt, at, status, error, duration_ms AS durationMs FROM outbound_attempts WHERE delivery_id = ? ORDER BY attempt').all(id) as DeliveryAttempt[]
  }

  /** Forgets delivered and cancelled rows older than `before` (ISO); failed ones stay until retried or for `failedBefore`. */
  prune(before: string, failedBefore: string): void {
    this.db.transaction(() => {
      statement(this.db, "DELETE FROM outbound_attempts WHERE delivery_id IN (SELECT id FROM outbound_deliveries WHERE (status IN ('delivered', 'cancelled') AND created_at < ?) OR (status = 'failed' AND created_at < ?))").run(before, failedBefore)
      statement(this.db, "DELETE FROM outbound_deliveries WHERE (status IN ('delivered', 'cancelled') AND created_at < ?) OR (status = 'failed' AND created_at < ?)").run(before, failedBefore)
    }).immediate()
  }
}
