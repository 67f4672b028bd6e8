/**
 * Queries over the claims, each for one effect (its process's name): what an effect process resumes
 * after a start and what its sweep marks outcome unknown. Every query reads a partial index of the
 * open work, in the order the decisions were made.
 */
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'
import { statement } from '../../src/read-models/statement-cache.ts'

/** A decision no one has claimed. */
export interface UnclaimedDecision {
  /** The decision's id. */
  readonly id: string
  readonly stream: string
  readonly accountId: string
  /** Where the decision is on the log: the key of the next page. */
  readonly decidedPosition: number
}

/** A claim with no outcome: its decision's stream and id. */
export interface OpenClaim {
  readonly id: string
  readonly stream: string
}

const UNCLAIMED = 'SELECT id, stream, account_id AS accountId, decided_position AS decidedPosition FROM claims'

export class ClaimsQueries {
  constructor(private readonly db: ViewsDatabase) {}

  /** Accounts with decisions of `effect` no one has claimed. */
  accountsWithUnclaimed(effect: string): string[] {
    const rows = statement(this.db, "SELECT DISTINCT account_id AS accountId FROM claims WHERE effect = ? AND stage = 'decided'").all(effect) as Array<{ accountId: string }>
    return rows.map((row) => row.accountId)
  }

  /**
   * One page of an account's unclaimed decisions of `effect`, oldest first, decided after position
   * `after`: a caller pages through any number of them by passing the last row's `decidedPosition`.
   */
  unclaimed(effect: string, accountId: string, after: number, limit: number): UnclaimedDecision[] {
    return statement(
      this.db,
      `${UNCLAIMED} WHERE effect = ? AND stage = 'decided' AND account_id = ? AND decided_position > ? ORDER BY decided_position LIMIT ?`,
    ).all(effect, accountId, after, limit) as UnclaimedDecision[]
  }

  /** Decisions of `effect` made since `since` (ISO, the decision's own time) that no one has claimed, oldest first. */
  unclaimedSince(effect: string, since: string, limit = 500): UnclaimedDecision[] {
    return statement(this.db, `${UNCLAIMED} WHERE effect = ? AND stage = 'decided' AND decided_at >= ? ORDER BY decided_position LIMIT ?`).all(
      effect,
      since,
      limit,
    ) as UnclaimedDecision[]
  }

  /**
   * One page of the open decisions of `effect` (unclaimed, or claimed with no outcome) at or before log
   * position `upTo`, after position `after`, oldest first: what a restore from a backup taken at `upTo` expires.
   */
  openUpTo(effect: string, upTo: number, after: number, limit: number): UnclaimedDecision[] {
    return statement(
      this.db,
      `${UNCLAIMED} WHERE effect = ? AND stage IN ('decided', 'claimed') AND decided_position <= ? AND decided_position > ? ORDER BY decided_position LIMIT ?`,
    ).all(effect, upTo, after, limit) as UnclaimedDecision[]
  }

  /** Claims of `effect` made before `before` (ISO) that have no outcome. */
  claimedBefore(effect: string, before: string, limit = 1000): OpenClaim[] {
    return statement(this.db, "SELECT id, stream FROM claims WHERE effect = ? AND stage = 'claimed' AND claimed_at < ? ORDER BY decided_position LIMIT ?").all(
      effect,
      before,
      limit,
    ) as OpenClaim[]
  }

  /** True while some claim of `effect` has no outcome yet (its provider request is in flight). */
  hasClaimsInFlight(effect: string): boolean {
    return statement(this.db, "SELECT 1 FROM claims WHERE effect = ? AND stage = 'claimed' LIMIT 1").get(effect) !== undefined
  }
}
