/**
 * The Inbox (issue #44): per lead, how many texts it sent and how many of them the owner has read in
 * the console (ConversationRead), and when it last texted. Never what a text said: that stays on the
 * log (TextReceived, kept like a transcript) and is read from there for the lead's own page only.
 */
import type { Database } from 'better-sqlite3'
import type { RecordedEvent } from '../../src/domain/event.ts'
import { parseLeadStream, type LeadEvent } from '../../src/domain/lead/lead.events.ts'
import type { Projection } from '../../src/read-models/projection.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

export const conversationsProjection: Projection = {
  name: 'conversations',
  version: 2,
  // A lead has a row from its first text only: most leads never text, and intake pays for every row.
  handles: ['TextReceived', 'ConversationRead'],
  tables: ['conversations'],

  setup(db: Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS conversations (
        stream TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        lead_id TEXT NOT NULL,
        received INTEGER NOT NULL DEFAULT 0,
        read INTEGER NOT NULL DEFAULT 0,
        last_received_at TEXT
      );
      CREATE INDEX IF NOT EXISTS conversations_unread ON conversations (account_id, last_received_at) WHERE received > read;
    `)
  },

  apply(db: Database, recorded: RecordedEvent) {
    const event = recorded as unknown as LeadEvent
    switch (event.type) {
      case 'TextReceived': {
        const lead = parseLeadStream(recorded.stream)
        if (lead === null) return
        statement(
          db,
          `INSERT INTO conversations (stream, account_id, lead_id, received, last_received_at) VALUES (?, ?, ?, 1, ?)
           ON CONFLICT (stream) DO UPDATE SET received = received + 1, last_received_at = excluded.last_received_at`,
        ).run(recorded.stream, lead.accountId, event.data.leadId, event.data.receivedAt)
        return
      }
      case 'ConversationRead':
        // Read through the lead's latest text as it was decided: every text applied so far precedes it on the stream.
        statement(db, 'UPDATE conversations SET read = received WHERE stream = ?').run(recorded.stream)
        return
    }
  },
}
