/**
 * The pause between retries of a loop that follows the log (the projection runner, the process
 * runner): doubling from `firstMs` up to `maxMs`, reset by a success, and cut short by `interrupt`
 * so a stopping runner does not wait out its pause.
 */
export class Backoff {
  private nextMs: number
  private interruptPause: (() => void) | null = null

  constructor(
    private readonly firstMs = 250,
    private readonly maxMs = 5000,
  ) {
    this.nextMs = firstMs
  }

  /** The pause the next `pause()` will take, in ms (for the log line before it). */
  get delayMs(): number {
    return this.nextMs
  }

  reset(): void {
    this.nextMs = this.firstMs
  }

  /** Waits the current delay (or until interrupted), then doubles it for next time. */
  async pause(): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.nextMs)
      this.interruptPause = () => {
        clearTimeout(timer)
        resolve()
      }
    })
    this.interruptPause = null
    this.nextMs = Math.min(this.nextMs * 2, this.maxMs)
  }

  interrupt(): void {
    this.interruptPause?.()
  }
}
