/**
 * Which account holds each sender (a phone number or a Messaging Service SID), from the claim
 * streams: for listing an account's numbers and finding settings that have no claim yet (an
 * upgrade). Routing an inbound text reads the claim stream itself, never this copy. Beside it, the
 * numbers bought through Leadline and how each purchase went (the Phone numbers page; the simulated
 * carrier's own numbers are these).
 */
import type { Database } from 'better-sqlite3'
import type { RecordedEvent } from '../../src/domain/event.ts'
import type { NumberClaimEvent } from '../../src/domain/numbers/number-claim.events.ts'
import type { NumberPurchaseEvent } from '../../src/domain/numbers/number-purchase.events.ts'
import type { Projection } from '../../src/read-models/projection.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

export const numbersProjection: Projection = {
  name: 'numbers',
  version: 2,
  handles: [
    ...(['NumberClaimed', 'NumberReleased'] satisfies ReadonlyArray<NumberClaimEvent['type']>),
    ...(['NumberPurchaseDecided', 'NumberPurchaseStarted', 'NumberPurchased', 'NumberPurchaseFailed', 'NumberPurchaseOutcomeUnknown'] satisfies ReadonlyArray<NumberPurchaseEvent['type']>),
  ],
  tables: ['number_claims', 'number_purchases'],

  setup(db: Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS number_claims (
        sender TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        account_id TEXT NOT NULL,
        use TEXT NOT NULL,
        claimed_at TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS number_claims_by_account ON number_claims (account_id, sender);
      CREATE TABLE IF NOT EXISTS number_purchases (
        number TEXT PRIMARY KEY,
        purchase_id TEXT NOT NULL,
        account_id TEXT NOT NULL,
        carrier TEXT NOT NULL,
        stage TEXT NOT NULL,
        carrier_sid TEXT,
        message TEXT,
        decided_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS number_purchases_by_carrier ON number_purchases (carrier, stage, number);
    `)
  },

  apply(db: Database, recorded: RecordedEvent) {
    const event = recorded as unknown as NumberClaimEvent | NumberPurchaseEvent
    const stage = (stage: string, at: string, extra: { carrierSid?: string; message?: string } = {}) =>
      statement(db, 'UPDATE number_purchases SET stage = ?, carrier_sid = coalesce(?, carrier_sid), message = ?, updated_at = ? WHERE purchase_id = ?')
        .run(stage, extra.carrierSid ?? null, extra.message ?? null, at, (event.data as { purchaseId: string }).purchaseId)
    switch (event.type) {
      case 'NumberPurchaseDecided': {
        const { number, purchaseId, accountId, carrier, decidedAt } = event.data
        statement(db, `INSERT OR REPLACE INTO number_purchases (number, purchase_id, account_id, carrier, stage, carrier_sid, message, decided_at, updated_at) VALUES (?, ?, ?, ?, 'decided', NULL, NULL, ?, ?)`)
          .run(number, purchaseId, accountId, carrier, decidedAt, decidedAt)
        return
      }
      case 'NumberPurchaseStarted':
        return void stage('claimed', event.data.startedAt)
      case 'NumberPurchased':
        return void stage('bought', event.data.purchasedAt, { carrierSid: event.data.carrierSid })
      case 'NumberPurchaseFailed':
        return void stage('failed', event.data.at, { message: event.data.message })
      case 'NumberPurchaseOutcomeUnknown':
        return void stage('unknown', event.data.at, { message: event.data.reason })
      case 'NumberClaimed': {
        const { sender, kind, accountId, use, claimedAt } = event.data
        statement(db, 'INSERT OR REPLACE INTO number_claims (sender, kind, account_id, use, claimed_at) VALUES (?, ?, ?, ?, ?)').run(sender, kind, accountId, use, claimedAt)
        return
      }
      case 'NumberReleased':
        statement(db, 'DELETE FROM number_claims WHERE sender = ? AND account_id = ?').run(event.data.sender, event.data.accountId)
        return
      default:
        return
    }
  },
}
