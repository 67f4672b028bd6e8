/**
 * Console users and the indexes sign-in needs: email → user, and the SHA-256 of a session or
 * set-password token → its user. Whether a session or link is still live is always checked against
 * the user's own stream (src/commands/users.ts), so a sign-out takes effect at once.
 */
import type { Database } from 'better-sqlite3'
import type { RecordedEvent } from '../../src/domain/event.ts'
import type { UserEvent } from '../../src/domain/user/user.events.ts'
import type { Projection } from '../../src/read-models/projection.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

/** `user-{accountId}-{userId}` → its account and user (account ids hold no hyphen). */
function idsOf(event: RecordedEvent): { accountId: string; userId: string } {
  const rest = event.stream.slice('user-'.length)
  const dash = rest.indexOf('-')
  return { accountId: rest.slice(0, dash), userId: rest.slice(dash + 1) }
}

export const usersProjection: Projection = {
  name: 'users',
  version: 1,
  handles: ['UserCreated', 'PasswordSetupIssued', 'SignedIn'],
  tables: ['users', 'user_secrets'],

  setup(db: Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS users (
        user_id TEXT NOT NULL,
        account_id TEXT NOT NULL,
        email TEXT NOT NULL,
        created_at TEXT NOT NULL,
        created_position INTEGER NOT NULL,
        PRIMARY KEY (account_id, user_id)
      );
      CREATE INDEX IF NOT EXISTS users_by_email ON users (email);
      CREATE TABLE IF NOT EXISTS user_secrets (
        secret_hash TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        account_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        secret_id TEXT NOT NULL
      );
    `)
  },

  apply(db: Database, recorded: RecordedEvent) {
    const event = recorded as unknown as UserEvent
    const { accountId, userId } = idsOf(recorded)
    const secret = (hash: string, kind: 'password_setup' | 'session', secretId: string) =>
      statement(db, 'INSERT OR REPLACE INTO user_secrets (secret_hash, kind, account_id, user_id, secret_id) VALUES (?, ?, ?, ?, ?)').run(hash, kind, accountId, userId, secretId)
    switch (event.type) {
      case 'UserCreated':
        statement(db, 'INSERT OR REPLACE INTO users (user_id, account_id, email, created_at, created_position) VALUES (?, ?, ?, ?, ?)').run(
          userId, accountId, event.data.email, event.data.createdAt, recorded.position,
        )
        return
      case 'PasswordSetupIssued':
        secret(event.data.tokenHash, 'password_setup', event.data.setupId)
        return
      case 'SignedIn':
        secret(event.data.tokenHash, 'session', event.data.sessionId)
        return
      default:
        return
    }
  },
}
