/**
 * Answers of read tools, shared while nothing they are made of has moved. An agent polling
 * `get_next_actions`, or fifty of them paging `list_leads`, ask the same question again and again;
 * the answer is computed once and handed to every caller until one of these changes:
 *
 * - the log's head (anything appended, by this process or another: a lead, a call, a setting);
 * - the read models' position (they caught up with something);
 * - the account's state (settings, keys: the object is replaced on every account event);
 * - the clock's second (stale-after cutoffs and calling hours move with time).
 *
 * Only tools that read nothing but the log are shared: one that reads the world outside it
 * (`list_open_slots` asks the owner's calendar: `openWorldHint`) is computed for every call.
 *
 * So an answer is never older than the data it reads, and at most a second older than the clock;
 * `next_allowed_at` for a lead callable now may then be up to a second in the past, which still
 * reads "now". Entries are per account, tool and parsed arguments (defaults filled in), so one
 * account never sees another's answer. Calls that arrive while the answer is being computed wait
 * for it rather than compute it again. Failures are not kept. Bounded by total size, oldest first.
 */
import type { AccountState } from '../../domain/account/account.decider.ts'
import type { ToolCallResult } from './json-rpc.ts'

/** What an answer depends on besides the account and the arguments. */
export interface ReadStamp {
  readonly head: number
  readonly views: number
  readonly second: number
}

interface Entry {
  readonly account: AccountState
  readonly stamp: ReadStamp
  readonly result: Promise<ToolCallResult>
  /** Characters of the answer once known (0 while it is being computed). */
  size: number
}

export const READ_CACHE_MAX_CHARS = 8 * 1024 * 1024

export class ReadCache {
  private readonly entries = new Map<string, Entry>()
  private chars = 0

  constructor(
    private readonly stamp: () => Promise<ReadStamp>,
    private readonly maxChars = READ_CACHE_MAX_CHARS,
  ) {}

  /** The kept answer for this account, tool and arguments if it still holds; otherwise `compute()`'s, kept. */
  async answer(account: AccountState, tool: string, args: unknown, compute: () => Promise<ToolCallResult>): Promise<ToolCallResult> {
    const key = `${account.accountId}\u0000${tool}\u0000${JSON.stringify(args)}`
    const stamp = await this.stamp()
    const kept = this.entries.get(key)
    if (kept && kept.account === account && sameStamp(kept.stamp, stamp)) return kept.result
    if (kept) this.forget(key, kept)
    const entry: Entry = { account, stamp, result: compute(), size: 0 }
    this.entries.set(key, entry)
    entry.result.then(
      (result) => {
        if (this.entries.get(key) !== entry) return
        // The output's text and the encoded response every caller is sent.
        entry.size = key.length + result.text.length + result.tail.length
        this.chars += entry.size
        this.trim()
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key)
      },
    )
    return entry.result
  }

  /** Entries kept (tests, metrics). */
  get size(): number {
    return this.entries.size
  }

  private forget(key: string, entry: Entry): void {
    this.entries.delete(key)
    this.chars -= entry.size
  }

  private trim(): void {
    for (const [key, entry] of this.entries) {
      if (this.chars <= this.maxChars) return
      this.forget(key, entry)
    }
  }
}

function sameStamp(a: ReadStamp, b: ReadStamp): boolean {
  return a.head === b.head && a.views === b.views && a.second === b.second
}
