/**
 * How fast leads are arriving: the lead webhook counts each request as it arrives. Background work
 * that yields to intake asks it (not the loop's load, which that work itself raises).
 */
const WINDOW_MS = 250

export class IntakeGauge {
  private bucketStart = Number.NEGATIVE_INFINITY
  private current = 0
  private previous = 0

  constructor(private readonly now: () => number = () => performance.now()) {}

  arrived(): void {
    this.roll()
    this.current++
  }

  /** Leads a second arriving, over the last quarter to half second. */
  get perSecond(): number {
    this.roll()
    const counted = this.previous + this.current
    return counted === 0 ? 0 : (counted * 1000) / (WINDOW_MS + (this.now() - this.bucketStart))
  }

  private roll(): void {
    const elapsed = this.now() - this.bucketStart
    if (elapsed < WINDOW_MS) return
    this.previous = elapsed < 2 * WINDOW_MS ? this.current : 0
    this.current = 0
    this.bucketStart = this.now()
  }
}
