/**
 * What the OAuth authorization server (oidc-provider) keeps between requests: clients it registered,
 * sign-in interactions, authorization codes, access and refresh tokens. One table in the views
 * database, not a projection: nothing here is decided by the log. A grant itself, the owner's consent,
 * is an event on the account's stream (OAuthGrantCreated/Revoked) and is what every token's use is
 * checked against.
 *
 * Every record is found by the SHA-256 of its id: a token, a code or a session id is a bearer secret,
 * so the table never holds one in the clear (a token's `jti`, its own value, is dropped from the
 * stored payload and put back from the id asked for). A client's secret is sealed by the caller.
 *
 * A rebuild of the read models forgets these records: OAuth clients then sign in again; their grants,
 * on the log, stay listed and revocable.
 */
import type { Statement } from 'better-sqlite3'
import { createHash } from 'node:crypto'
import type { ViewsDatabase } from './views-database.ts'

export type OAuthPayload = Record<string, unknown>

function hashed(id: string): string {
  return createHash('sha256').update(id).digest('hex')
}

export class OAuthRecords {
  private readonly upsertRow: Statement
  private readonly selectRow: Statement
  private readonly selectByUid: Statement
  private readonly consumeRow: Statement
  private readonly deleteRow: Statement
  private readonly deleteByGrant: Statement
  private readonly deleteExpired: Statement

  constructor(db: ViewsDatabase, private readonly clock: () => Date = () => new Date()) {
    db.exec(`CREATE TABLE IF NOT EXISTS oauth_records (
      model TEXT NOT NULL, id_hash TEXT NOT NULL, payload TEXT NOT NULL, grant_id TEXT, uid TEXT,
      expires_at INTEGER NOT NULL, consumed_at INTEGER,
      PRIMARY KEY (model, id_hash))`)
    db.exec('CREATE INDEX IF NOT EXISTS oauth_records_grant ON oauth_records (grant_id) WHERE grant_id IS NOT NULL')
    db.exec('CREATE INDEX IF NOT EXISTS oauth_records_uid ON oauth_records (model, uid) WHERE uid IS NOT NULL')
    this.upsertRow = db.prepare(`INSERT INTO oauth_records (model, id_hash, payload, grant_id, uid, expires_at, consumed_at) VALUES (?, ?, ?, ?, ?, ?, NULL)
      ON CONFLICT (model, id_hash) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid, expires_at = excluded.expires_at`)
    this.selectRow = db.prepare('SELECT payload, consumed_at AS consumedAt FROM oauth_records WHERE model = ? AND id_hash = ? AND expires_at > ?')
    this.selectByUid = db.prepare('SELECT payload, consumed_at AS consumedAt FROM oauth_records WHERE model = ? AND uid = ? AND expires_at > ?')
    this.consumeRow = db.prepare('UPDATE oauth_records SET consumed_at = ? WHERE model = ? AND id_hash = ? AND consumed_at IS NULL')
    this.deleteRow = db.prepare('DELETE FROM oauth_records WHERE model = ? AND id_hash = ?')
    this.deleteByGrant = db.prepare('DELETE FROM oauth_records WHERE grant_id = ?')
    this.deleteExpired = db.prepare('DELETE FROM oauth_records WHERE expires_at <= ?')
  }

  private now(): number {
    return Math.floor(this.clock().getTime() / 1000)
  }

  upsert(model: string, id: string, payload: OAuthPayload, expiresInSeconds: number): void {
    const { jti: _jti, ...kept } = payload
    const grantId = typeof payload.grantId === 'string' ? payload.grantId : null
    const uid = typeof payload.uid === 'string' ? payload.uid : null
    this.upsertRow.run(model, hashed(id), JSON.stringify(kept), grantId, uid, this.now() + Math.max(1, Math.ceil(expiresInSeconds)))
  }

  find(model: string, id: string): OAuthPayload | undefined {
    const row = this.selectRow.get(model, hashed(id), this.now()) as { payload: string; consumedAt: number | null } | undefined
    return row === undefined ? undefined : this.revive(row, model === 'Client' ? {} : { jti: id })
  }

  findByUid(model: string, uid: string): OAuthPayload | undefined {
    const row = this.selectByUid.get(model, uid, this.now()) as { payload: string; consumedAt: number | null } | undefined
    return row === undefined ? undefined : this.revive(row, {})
  }

  /** Marks a code or refresh token used: oidc-provider refuses it afterwards (and revokes its grant). */
  consume(model: string, id: string): void {
    this.consumeRow.run(this.now(), model, hashed(id))
  }

  destroy(model: string, id: string): void {
    this.deleteRow.run(model, hashed(id))
  }

  /** Every code and token of a grant, whatever their model. */
  revokeByGrantId(grantId: string): void {
    this.deleteByGrant.run(grantId)
  }

  /** Drops expired records (find ignores them already); called now and then. */
  sweep(): void {
    this.deleteExpired.run(this.now())
  }

  private revive(row: { payload: string; consumedAt: number | null }, extra: OAuthPayload): OAuthPayload {
    const payload = { ...(JSON.parse(row.payload) as OAuthPayload), ...extra }
    return row.consumedAt === null ? payload : { ...payload, consumed: row.consumedAt }
  }
}
