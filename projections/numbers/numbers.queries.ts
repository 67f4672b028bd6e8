/** Queries over the number claims read model (and, for an upgrade, the accounts' settings beside it). */
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'
import type { SenderKind, SenderUse } from '../../src/domain/numbers/number-claim.events.ts'

export interface NumberClaimRow {
  readonly sender: string
  readonly kind: SenderKind
  readonly accountId: string
  readonly use: SenderUse
  readonly claimedAt: string
}

/** An account whose caller ID or Messaging Service setting has no claim of its own (set before claims existed). */
export interface UnclaimedSetting {
  readonly accountId: string
  readonly callerId: string | null
  readonly messagingService: string | null
}

/** A number bought (or being bought) through Leadline, and how its latest purchase went. */
export interface NumberPurchaseRow {
  readonly number: string
  readonly purchaseId: string
  readonly accountId: string
  readonly carrier: string
  readonly stage: 'decided' | 'claimed' | 'bought' | 'failed' | 'unknown'
  readonly carrierSid: string | null
  readonly message: string | null
  readonly decidedAt: string
  readonly updatedAt: string
}

const PURCHASE_COLUMNS = 'number, purchase_id AS purchaseId, account_id AS accountId, carrier, stage, carrier_sid AS carrierSid, message, decided_at AS decidedAt, updated_at AS updatedAt'

export class NumbersQueries {
  private readonly byAccount
  private readonly unclaimed
  private readonly byCarrier
  private readonly holder

  constructor(db: ViewsDatabase) {
    this.holder = db.prepare('SELECT account_id AS accountId FROM number_claims WHERE sender = ?')
    this.byCarrier = db.prepare(`SELECT ${PURCHASE_COLUMNS} FROM number_purchases WHERE carrier = ? ORDER BY number`)
    this.byAccount = db.prepare('SELECT sender, kind, account_id AS accountId, use, claimed_at AS claimedAt FROM number_claims WHERE account_id = ? ORDER BY sender')
    // Oldest account first: the order an upgrade gives shared numbers away in.
    this.unclaimed = db.prepare(`
      SELECT a.account_id AS accountId,
        CASE WHEN a.caller_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM number_claims c WHERE c.sender = a.caller_id AND c.account_id = a.account_id) THEN a.caller_id END AS callerId,
        CASE WHEN a.messaging_service IS NOT NULL AND NOT EXISTS (SELECT 1 FROM number_claims c WHERE c.sender = a.messaging_service AND c.account_id = a.account_id) THEN a.messaging_service END AS messagingService
      FROM accounts a
      WHERE (a.caller_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM number_claims c WHERE c.sender = a.caller_id AND c.account_id = a.account_id))
         OR (a.messaging_service IS NOT NULL AND NOT EXISTS (SELECT 1 FROM number_claims c WHERE c.sender = a.messaging_service AND c.account_id = a.account_id))
      ORDER BY a.created_position`)
  }

  /** The senders an account holds, by sender. */
  claimsOf(accountId: string): NumberClaimRow[] {
    return this.byAccount.all(accountId) as NumberClaimRow[]
  }

  /** Accounts whose caller ID or Messaging Service has no claim for them, oldest first. */
  unclaimedSettings(): UnclaimedSetting[] {
    return this.unclaimed.all() as UnclaimedSetting[]
  }

  /** Every number whose purchase from `carrier` was decided through Leadline, by number, with its latest purchase's stage. */
  purchasesFrom(carrier: string): NumberPurchaseRow[] {
    return this.byCarrier.all(carrier) as NumberPurchaseRow[]
  }

  /** The account holding `sender` in the read model (a page's listing; routing and claims read the claim stream). */
  holderOf(sender: string): string | null {
    return (this.holder.get(sender) as { accountId: string } | undefined)?.accountId ?? null
  }
}
