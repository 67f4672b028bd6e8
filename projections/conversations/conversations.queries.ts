/** The Inbox's queries: leads of one account with texts the owner has not read, newest first; bounded. */
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

export interface UnreadConversation {
  readonly leadId: string
  readonly name: string | null
  readonly phone: string | null
  /** Texts from the lead the owner has not read yet. */
  readonly unread: number
  readonly lastReceivedAt: string
}

/** Counting stops here: the navigation says "99+" rather than count a flood. */
export const UNREAD_COUNT_CAP = 100
export const INBOX_PAGE_SIZE = 50

export class ConversationsQueries {
  constructor(private readonly db: ViewsDatabase) {}

  /** Leads with unread texts, the latest text first. */
  unread(accountId: string, limit = INBOX_PAGE_SIZE): UnreadConversation[] {
    return statement(
      this.db,
      `SELECT c.lead_id AS leadId, coalesce(l.full_name, trim(coalesce(l.first_name, '') || ' ' || coalesce(l.last_name, ''))) AS name, l.phone AS phone,
         c.received - c.read AS unread, c.last_received_at AS lastReceivedAt
       FROM conversations c LEFT JOIN inbound_leads l ON l.stream = c.stream
       WHERE c.account_id = ? AND c.received > c.read ORDER BY c.last_received_at DESC LIMIT ?`,
    ).all(accountId, limit) as UnreadConversation[]
  }

  /** How many leads have unread texts, up to UNREAD_COUNT_CAP. */
  countUnread(accountId: string): number {
    return (statement(this.db, 'SELECT count(*) AS n FROM (SELECT 1 FROM conversations WHERE account_id = ? AND received > read LIMIT ?)').get(accountId, UNREAD_COUNT_CAP) as { n: number }).n
  }
}
