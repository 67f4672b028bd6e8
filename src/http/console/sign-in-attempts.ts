/**
 * Sign-in attempts per key (an email at an address, an address) in fixed windows, in this process's
 * memory. An attempt is taken before its password is checked, all of a request's keys at once, so
 * guesses that arrive together cannot all slip past the count; a successful sign-in gives its
 * attempt back, so only failures (and attempts still being checked) use up the limit.
 */
const MAX_KEYS = 100_000

interface Window {
  count: number
  readonly startedAt: number
}

export class SignInAttempts {
  private readonly windows = new Map<string, Window>()

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /**
   * Takes one attempt from every key, or from none when any is at its limit: 0 when the attempt may
   * go ahead, otherwise the milliseconds until the fullest key's window ends.
   */
  take(limits: ReadonlyArray<readonly [key: string, max: number]>): number {
    const now = this.now()
    let waitMs = 0
    for (const [key, max] of limits) {
      const window = this.live(key, now)
      if (window !== undefined && window.count >= max) waitMs = Math.max(waitMs, window.startedAt + this.windowMs - now)
    }
    if (waitMs > 0) return waitMs
    for (const [key] of limits) {
      const window = this.live(key, now)
      if (window) window.count++
      else this.open(key, now)
    }
    return 0
  }

  /** Gives back an attempt taken by `take` (a right password, or one never checked). */
  giveBack(keys: readonly string[]): void {
    const now = this.now()
    for (const key of keys) {
      const window = this.live(key, now)
      if (window && window.count > 0) window.count--
    }
  }

  private live(key: string, now: number): Window | undefined {
    const window = this.windows.get(key)
    return window !== undefined && now - window.startedAt < this.windowMs ? window : undefined
  }

  private open(key: string, now: number): void {
    this.windows.delete(key)
    if (this.windows.size >= MAX_KEYS) {
      for (const [k, w] of this.windows) if (now - w.startedAt >= this.windowMs) this.windows.delete(k)
      // Still full of live windows: the oldest go (an attacker needs thousands of addresses for that).
      for (const k of this.windows.keys()) {
        if (this.windows.size < MAX_KEYS) break
        this.windows.delete(k)
      }
    }
    this.windows.set(key, { count: 1, startedAt: now })
  }
}
