/** Queries over Facebook Lead Ads: an account's pages, and its notified leads by how their fetch stands. */
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

export interface FacebookPageRow {
  readonly pageId: string
  readonly accountId: string
  readonly connectedAt: string
  /** When its page access token was last set (the connection, or a later connect with a new token). */
  readonly tokenSetAt: string
}

export interface FacebookLeadRow {
  readonly leadgenId: string
  readonly pageId: string
  readonly formId: string | null
  readonly adId: string | null
  readonly notifiedAt: string
  /** `due` (waiting for a fetch or its retry), `fetching`, `received`, `failed` (waits for a retry by hand). */
  readonly stage: 'due' | 'fetching' | 'received' | 'failed'
  readonly attempts: number
  /** The last failure, while the lead has not arrived. */
  readonly failure: string | null
  readonly message: string | null
  readonly leadId: string | null
  readonly updatedAt: string
}

const LEADS = `SELECT leadgen_id AS leadgenId, page_id AS pageId, form_id AS formId, ad_id AS adId, notified_at AS notifiedAt, stage, attempts,
  failure, message, lead_id AS leadId, updated_at AS updatedAt FROM facebook_leads`

export class FacebookLeadAdsQueries {
  constructor(private readonly db: ViewsDatabase) {}

  pages(accountId: string): FacebookPageRow[] {
    return statement(this.db, 'SELECT page_id AS pageId, account_id AS accountId, connected_at AS connectedAt, token_set_at AS tokenSetAt FROM facebook_pages WHERE account_id = ? ORDER BY page_id').all(
      accountId,
    ) as FacebookPageRow[]
  }

  /** The account's notified leads, newest first; only those at `stage` when given. */
  leads(accountId: string, options: { stage?: FacebookLeadRow['stage']; limit?: number } = {}): FacebookLeadRow[] {
    const limit = options.limit ?? 50
    return options.stage === undefined
      ? (statement(this.db, `${LEADS} WHERE account_id = ? ORDER BY notified_at DESC LIMIT ?`).all(accountId, limit) as FacebookLeadRow[])
      : (statement(this.db, `${LEADS} WHERE account_id = ? AND stage = ? ORDER BY notified_at DESC LIMIT ?`).all(accountId, options.stage, limit) as FacebookLeadRow[])
  }
}
