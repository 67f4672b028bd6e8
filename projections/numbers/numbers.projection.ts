/**
 * Which account holds each sender (a phone number or a Messaging Service SID), from the claim
 * streams: for listing an account's numbers and finding settings that have no claim yet (an
 * upgrade). Routing an inbound text reads the claim stream itself, never this copy.
 */
import type { Database } from 'better-sqlite3'
import type { RecordedEvent } from '../../src/domain/event.ts'
import type { NumberClaimEvent } from '../../src/domain/numbers/number-claim.events.ts'
import type { Projection } from '../../src/read-models/projection.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

export const numbersProjection: Projection = {
  name: 'numbers',
  version: 1,
  handles: ['NumberClaimed', 'NumberReleased'] satisfies ReadonlyArray<NumberClaimEvent['type']>,
  tables: ['number_claims'],

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
    `)
  },

  apply(db: Database, recorded: RecordedEvent) {
    const event = recorded as unknown as NumberClaimEvent
    switch (event.type) {
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
