/**
 * When each API key was last used, for the console's key list. Not an event: a request that only
 * reads changes nothing, and one event per tool call would grow the log with noise. The tool endpoint
 * notes a key's use here, in the views database, at most once a minute per key (a Map look-up on
 * every other request). Disposable like every read model: a rebuild forgets it until the next use.
 */
import type { Statement } from 'better-sqlite3'
import type { ViewsDatabase } from './views-database.ts'

/** Uses closer together than this are not written again. */
export const USAGE_RESOLUTION_MS = 60_000
const MAX_REMEMBERED = 100_000

export class ApiKeyUsage {
  private readonly upsert: Statement
  private readonly select: Statement
  /** keyId → when its use was last written (ms). */
  private readonly written = new Map<string, number>()

  constructor(db: ViewsDatabase, private readonly clock: () => Date = () => new Date()) {
    db.exec('CREATE TABLE IF NOT EXISTS api_key_usage (key_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, last_used_at TEXT NOT NULL)')
    this.upsert = db.prepare(
      'INSERT INTO api_key_usage (key_id, account_id, last_used_at) VALUES (?, ?, ?) ON CONFLICT (key_id) DO UPDATE SET last_used_at = excluded.last_used_at',
    )
    this.select = db.prepare('SELECT key_id AS keyId, last_used_at AS lastUsedAt FROM api_key_usage WHERE account_id = ?')
  }

  used(accountId: string, keyId: string): void {
    const now = this.clock()
    const last = this.written.get(keyId)
    if (last !== undefined && now.getTime() - last < USAGE_RESOLUTION_MS) return
    if (this.written.size >= MAX_REMEMBERED) this.written.clear()
    try {
      this.upsert.run(keyId, accountId, now.toISOString())
      this.written.set(keyId, now.getTime())
    } catch {
      // A note for the console, never a reason to refuse the call: on a full or read-only disk (or
      // a busy views database) the tool call goes on, and the next use tries the note again.
    }
  }

  /** keyId → ISO time of its last use, for one account. */
  lastUsed(accountId: string): Map<string, string> {
    return new Map((this.select.all(accountId) as Array<{ keyId: string; lastUsedAt: string }>).map((r) => [r.keyId, r.lastUsedAt]))
  }
}
