/**
 * Rate limits as in-memory token buckets, one per credential (per server process): the tool
 * endpoint's per API key, the webhook's per token. A credential may make `burst` requests at once
 * and `ratePerSecond` on average.
 */
const MAX_BUCKETS = 100_000

interface Bucket {
  tokens: number
  at: number
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>()

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes one token for `key`: 0 when the request may go ahead, otherwise the whole seconds to wait. */
  take(key: string): number {
    const now = this.now()
    let bucket = this.buckets.get(key)
    if (bucket) {
      bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.ratePerSecond)
      bucket.at = now
    } else {
      if (this.buckets.size >= MAX_BUCKETS) this.prune(now)
      bucket = { tokens: this.burst, at: now }
      this.buckets.set(key, bucket)
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1
      return 0
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond))
  }

  /** Forgets keys whose bucket has refilled: they are exactly as a new key would be. */
  private prune(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.ratePerSecond >= this.burst) this.buckets.delete(key)
    }
  }

  get size(): number {
    return this.buckets.size
  }
}
