/** Queries over the users read model. */
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'

export interface UserRow {
  readonly userId: string
  readonly accountId: string
  readonly email: string
  readonly createdAt: string
}

export interface UserSecretRow {
  readonly kind: 'session' | 'password_setup'
  readonly accountId: string
  readonly userId: string
  readonly secretId: string
}

export class UsersQueries {
  private readonly byEmail
  private readonly byAccount
  private readonly secret

  constructor(db: ViewsDatabase) {
    const columns = 'user_id AS userId, account_id AS accountId, email, created_at AS createdAt'
    this.byEmail = db.prepare(`SELECT ${columns} FROM users WHERE email = ? ORDER BY created_position`)
    this.byAccount = db.prepare(`SELECT ${columns} FROM users WHERE account_id = ? ORDER BY created_position`)
    this.secret = db.prepare('SELECT kind, account_id AS accountId, user_id AS userId, secret_id AS secretId FROM user_secrets WHERE secret_hash = ?')
  }

  /** Every user with this (normalised) email, in any account. */
  withEmail(email: string): UserRow[] {
    return this.byEmail.all(email) as UserRow[]
  }

  ofAccount(accountId: string): UserRow[] {
    return this.byAccount.all(accountId) as UserRow[]
  }

  secretByHash(hash: string): UserSecretRow | undefined {
    return this.secret.get(hash) as UserSecretRow | undefined
  }
}
