/**
 * Per-account pacing: each account's calls start in arrival order, at most `callsPerSecond` a second;
 * one account's burst never delays another account's calls (each account has its own queue).
 *
 * A task holds its lane until it says the call has `started` (the carrier request is going out) or
 * it settles, so calls leave in order, but a slow carrier answer does not slow the pace, and a task
 * that starts no call (a decision another node claimed) costs no slot. Time here is monotonic: a
 * wall clock moved back (or a test's clock) never stalls a lane.
 */
interface Lane {
  /** Monotonic ms before which the lane's next call may not start. */
  nextAt: number
  /** The spacing asked for by the last call: no wait is ever longer (a clock that went back). */
  spacingMs: number
  /** Resolves when the last queued task has started its call or settled. */
  tail: Promise<void>
  /** Tasks queued or running. */
  pending: number
}

/** Called by a task as its call goes out; the lane's next call waits `spacingMs` from now. */
export type Started = (spacingMs: number) => void

export class Pacer {
  private readonly lanes = new Map<string, Lane>()

  constructor(private readonly clock: () => number = () => performance.now()) {}

  /** Runs `task` in the account's lane when its turn comes; resolves with the task's result. */
  schedule<T>(accountId: string, task: (started: Started) => Promise<T>): Promise<T> {
    const lane = this.lanes.get(accountId) ?? { nextAt: Number.NEGATIVE_INFINITY, spacingMs: 0, tail: Promise.resolve(), pending: 0 }
    this.lanes.set(accountId, lane)
    lane.pending++
    let release!: () => void
    const turnDone = new Promise<void>((resolve) => {
      release = resolve
    })
    const previous = lane.tail
    lane.tail = turnDone
    const result = previous.then(async () => {
      // Timers run on the event loop's cached time and can fire a little early: wait until it is really time.
      // An injected clock that jumps back would otherwise hold the lane for the size of the jump.
      if (lane.nextAt - this.clock() > lane.spacingMs) lane.nextAt = this.clock() + lane.spacingMs
      for (let wait = lane.nextAt - this.clock(); wait > 0; wait = lane.nextAt - this.clock()) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.ceil(wait))))
      }
      let released = false
      const started: Started = (spacingMs) => {
        if (released) return
        released = true
        lane.spacingMs = spacingMs
        lane.nextAt = this.clock() + spacingMs
        release()
      }
      try {
        return await task(started)
      } finally {
        release()
      }
    })
    const done = () => {
      lane.pending--
      if (lane.pending > 0 || this.lanes.get(accountId) !== lane) return
      // A drained lane is forgotten once its spacing has passed, so idle accounts cost nothing.
      const forget = () => {
        if (lane.pending === 0 && this.lanes.get(accountId) === lane) this.lanes.delete(accountId)
      }
      const left = lane.nextAt - this.clock()
      if (left <= 0) forget()
      else setTimeout(forget, left).unref()
    }
    result.then(done, done)
    return result
  }

  get activeLanes(): number {
    return this.lanes.size
  }
}
