/**
 * Per-account pacing: each account's calls start in arrival order, at most `callsPerSecond` a second;
 * one account's burst never delays another account's calls (each account has its own queue).
 */
export class Pacer {
  private readonly lanes = new Map<string, { nextAt: number; tail: Promise<void> }>()

  constructor(private readonly clock: () => number = Date.now) {}

  /** Runs `task` in the account's lane when its turn comes; resolves with the task's result. */
  schedule<T>(accountId: string, callsPerSecond: number, task: () => Promise<T>): Promise<T> {
    const lane = this.lanes.get(accountId) ?? { nextAt: 0, tail: Promise.resolve() }
    const spacing = 1000 / callsPerSecond
    const result = lane.tail.then(async () => {
      const wait = lane.nextAt - this.clock()
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      lane.nextAt = Math.max(this.clock(), lane.nextAt) + spacing
      return task()
    })
    lane.tail = result.then(
      () => undefined,
      () => undefined,
    )
    this.lanes.set(accountId, lane)
    void lane.tail.then(() => {
      // A drained lane is forgotten once its spacing has passed, so idle accounts cost nothing.
      if (this.lanes.get(accountId) === lane && lane.nextAt <= this.clock()) this.lanes.delete(accountId)
    })
    return result
  }

  get activeLanes(): number {
    return this.lanes.size
  }
}
