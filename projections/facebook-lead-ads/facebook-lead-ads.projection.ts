/**
 * Facebook Lead Ads: the pages connected to each account (never their tokens), and each notified
 * lead with how its fetch stands (due, fetching, received, failed and why), for the operator's
 * `leadline source facebook list` and the owner's view of what did not arrive.
 */
import type { Database } from 'better-sqlite3'
import type { RecordedEvent } from '../../src/domain/event.ts'
import { parseFacebookLeadStream, type FacebookLeadEvent } from '../../src/domain/facebook-lead-ads/facebook-lead.events.ts'
import type { FacebookPageEvent } from '../../src/domain/facebook-lead-ads/facebook-page.events.ts'
import type { Projection } from '../../src/read-models/projection.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

const HANDLES: ReadonlyArray<FacebookLeadEvent['type'] | FacebookPageEvent['type']> = [
  'FacebookPageConnected', 'FacebookPageDisconnected',
  'FacebookLeadNotified', 'FacebookLeadFetchDue', 'FacebookLeadFetchStarted', 'FacebookLeadFetchFailed', 'FacebookLeadReceived',
]

export const facebookLeadAdsProjection: Projection = {
  name: 'facebook-lead-ads',
  version: 1,
  handles: HANDLES,
  tables: ['facebook_pages', 'facebook_leads'],

  setup(db: Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS facebook_pages (
        page_id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        connected_at TEXT NOT NULL,
        token_set_at TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS facebook_pages_by_account ON facebook_pages (account_id, page_id);
      CREATE TABLE IF NOT EXISTS facebook_leads (
        account_id TEXT NOT NULL,
        leadgen_id TEXT NOT NULL,
        page_id TEXT NOT NULL,
        form_id TEXT,
        ad_id TEXT,
        notified_at TEXT NOT NULL,
        stage TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        failure TEXT,
        message TEXT,
        lead_id TEXT,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (account_id, leadgen_id)
      );
      CREATE INDEX IF NOT EXISTS facebook_leads_by_stage ON facebook_leads (account_id, stage, notified_at);
    `)
  },

  apply(db: Database, recorded: RecordedEvent) {
    const event = recorded as unknown as FacebookLeadEvent | FacebookPageEvent
    switch (event.type) {
      case 'FacebookPageConnected': {
        const { pageId, accountId, connectedAt, replaced } = event.data
        if (replaced) statement(db, 'UPDATE facebook_pages SET token_set_at = ? WHERE page_id = ?').run(connectedAt, pageId)
        else statement(db, 'INSERT OR REPLACE INTO facebook_pages (page_id, account_id, connected_at, token_set_at) VALUES (?, ?, ?, ?)').run(pageId, accountId, connectedAt, connectedAt)
        return
      }
      case 'FacebookPageDisconnected':
        statement(db, 'DELETE FROM facebook_pages WHERE page_id = ?').run(event.data.pageId)
        return
    }
    const accountId = parseFacebookLeadStream(recorded.stream)?.accountId
    if (accountId === undefined) return
    const update = (set: string, ...values: unknown[]) =>
      statement(db, `UPDATE facebook_leads SET ${set}, updated_at = ? WHERE account_id = ? AND leadgen_id = ?`).run(...values, recorded.recordedAt, accountId, event.data.leadgenId)
    switch (event.type) {
      case 'FacebookLeadNotified': {
        const d = event.data
        statement(
          db,
          `INSERT OR IGNORE INTO facebook_leads (account_id, leadgen_id, page_id, form_id, ad_id, notified_at, stage, attempts, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'due', 0, ?)`,
        ).run(accountId, d.leadgenId, d.pageId, d.formId, d.adId, d.notifiedAt, d.notifiedAt)
        return
      }
      case 'FacebookLeadFetchDue':
        return void update("stage = 'due'")
      case 'FacebookLeadFetchStarted':
        return void update("stage = 'fetching', attempts = attempts + 1")
      case 'FacebookLeadFetchFailed':
        return void update('stage = ?, failure = ?, message = ?', event.data.willRetry ? 'due' : 'failed', event.data.failure, event.data.message)
      case 'FacebookLeadReceived':
        return void update("stage = 'received', failure = NULL, message = NULL, lead_id = ?", event.data.leadId)
    }
  },
}
