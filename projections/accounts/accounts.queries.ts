/** Queries over the accounts read model. */
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'

export interface AccountRow {
  readonly accountId: string
  readonly name: string
  readonly timeZone: string
  readonly speedToLead: boolean
  readonly createdAt: string
}

export interface CredentialRow {
  readonly kind: 'webhook_token' | 'api_key'
  readonly accountId: string
  readonly credentialId: string
}

export class AccountsQueries {
  private readonly byHash
  private readonly all
  private readonly byCredentialId

  constructor(db: ViewsDatabase) {
    this.byHash = db.prepare('SELECT kind, account_id AS accountId, credential_id AS credentialId FROM credentials WHERE secret_hash = ?')
    this.byCredentialId = db.prepare('SELECT account_id AS accountId FROM credentials WHERE credential_id = ?')
    this.all = db.prepare(
      'SELECT account_id AS accountId, name, time_zone AS timeZone, speed_to_lead AS speedToLead, created_at AS createdAt FROM accounts ORDER BY created_position',
    )
  }

  credentialByHash(hash: string): CredentialRow | undefined {
    return this.byHash.get(hash) as CredentialRow | undefined
  }

  accountOfCredential(credentialId: string): string | undefined {
    return (this.byCredentialId.get(credentialId) as { accountId: string } | undefined)?.accountId
  }

  list(): AccountRow[] {
    return (this.all.all() as Array<Omit<AccountRow, 'speedToLead'> & { speedToLead: number }>).map((row) => ({ ...row, speedToLead: row.speedToLead === 1 }))
  }
}
