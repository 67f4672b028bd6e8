/**
 * Accounts and the credential index. The index maps a secret's hash to its account so a request can
 * be authenticated without scanning; whether that credential is still live is always checked against
 * the account's own stream (see src/commands/accounts.ts), so a rotation takes effect at once.
 */
import type { Database } from 'better-sqlite3'
import type { RecordedEvent } from '../../src/domain/event.ts'
import type { AccountEvent } from '../../src/domain/account/account.events.ts'
import type { Projection } from '../../src/read-models/projection.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

function accountIdOf(event: RecordedEvent): string {
  return event.stream.slice('account-'.length)
}

export const accountsProjection: Projection = {
  name: 'accounts',
  version: 3,
  handles: ['AccountCreated', 'AccountSettingsChanged', 'WebhookTokenIssued', 'ApiKeyCreated'],
  tables: ['accounts', 'credentials'],

  setup(db: Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS accounts (
        account_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        time_zone TEXT NOT NULL,
        speed_to_lead INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        created_position INTEGER NOT NULL,
        caller_id TEXT,
        messaging_service TEXT
      );
      CREATE INDEX IF NOT EXISTS accounts_by_caller_id ON accounts (caller_id);
      CREATE TABLE IF NOT EXISTS credentials (
        secret_hash TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        account_id TEXT NOT NULL,
        credential_id TEXT NOT NULL
      );
    `)
  },

  apply(db: Database, recorded: RecordedEvent) {
    const event = recorded as unknown as AccountEvent
    const accountId = accountIdOf(recorded)
    switch (event.type) {
      case 'AccountCreated':
        statement(db, 
          'INSERT OR REPLACE INTO accounts (account_id, name, time_zone, speed_to_lead, created_at, created_position, caller_id, messaging_service) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        ).run(accountId, event.data.name, event.data.settings.timeZone, event.data.settings.speedToLead ? 1 : 0, event.data.createdAt, recorded.position, event.data.settings.callerId ?? null, event.data.settings.messagingService ?? null)
        return
      case 'AccountSettingsChanged': {
        const { timeZone, speedToLead, callerId, messagingService } = event.data.changes
        if (timeZone !== undefined) statement(db, 'UPDATE accounts SET time_zone = ? WHERE account_id = ?').run(timeZone, accountId)
        if (speedToLead !== undefined) statement(db, 'UPDATE accounts SET speed_to_lead = ? WHERE account_id = ?').run(speedToLead ? 1 : 0, accountId)
        // What an upgrade checks for a claim (projections/numbers/); texts are routed by the claims themselves.
        if (callerId !== undefined) statement(db, 'UPDATE accounts SET caller_id = ? WHERE account_id = ?').run(callerId, accountId)
        if (messagingService !== undefined) statement(db, 'UPDATE accounts SET messaging_service = ? WHERE account_id = ?').run(messagingService, accountId)
        return
      }
      case 'WebhookTokenIssued':
        statement(db, 'INSERT OR REPLACE INTO credentials (secret_hash, kind, account_id, credential_id) VALUES (?, ?, ?, ?)').run(
          event.data.tokenHash, 'webhook_token', accountId, event.data.tokenId,
        )
        return
      case 'ApiKeyCreated':
        statement(db, 'INSERT OR REPLACE INTO credentials (secret_hash, kind, account_id, credential_id) VALUES (?, ?, ?, ?)').run(
          event.data.keyHash, 'api_key', accountId, event.data.keyId,
        )
        return
      default:
        return
    }
  },
}
