/**
 * A bound on the heavy reads (list_leads, get_lead_history) one server process runs at once: each
 * may hold a page of up to PAGE_BYTES while it is read, filtered and encoded, so their number, not
 * only their size, bounds memory. Calls beyond `running` wait in turn, up to `waiting` of them; one
 * more is refused at once with `busy` and when to try again, rather than queue without end.
 */
import { RPC_CODES, RpcError } from './json-rpc.ts'

export class HeavyReads {
  private active = 0
  private readonly queue: Array<() => void> = []

  constructor(
    private readonly running: number,
    private readonly waiting: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.running) {
      if (this.queue.length >= this.waiting) {
        throw new RpcError(
          RPC_CODES.toolFailed,
          'busy',
          `the server is answering ${this.running} large reads with ${this.waiting} waiting; try again in a second`,
          { retry_after_seconds: 1 },
        )
      }
      // The slot is handed over by the call that frees it, so `active` never drops in between.
      await new Promise<void>((resolve) => this.queue.push(resolve))
    } else {
      this.active++
    }
    try {
      return await work()
    } finally {
      const next = this.queue.shift()
      if (next) next()
      else this.active--
    }
  }
}
