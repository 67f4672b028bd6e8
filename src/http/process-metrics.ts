/**
 * What a soak run (bench/soak.ts) and an operator watch on a running server: memory, and how late
 * the event loop runs (perf_hooks.monitorEventLoopDelay, lateness beyond its sampling interval). Delay is kept per window of
 * `windowMs`, so a number describes the last few seconds, not the whole life of the process.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks'

export interface DelayStats {
  readonly p50: number
  readonly p99: number
  readonly max: number
  readonly mean: number
}

export interface ProcessMetrics {
  readonly uptimeSeconds: number
  readonly rssBytes: number
  readonly heapUsedBytes: number
  /** What V8 has reserved for the main thread's heap: used, garbage not yet collected, and room to allocate. */
  readonly heapTotalBytes: number
  /** Memory held outside the JavaScript heap by objects it owns (Buffers, native handles). */
  readonly externalBytes: number
  readonly arrayBuffersBytes: number
  /** Event-loop delay in ms over the last complete window (the current one before the first completes). */
  readonly eventLoopDelayMs: DelayStats & { readonly windowSeconds: number }
  /** The largest delay seen since the process started, in ms. */
  readonly eventLoopDelayMaxMs: number
}

const NS_PER_MS = 1e6
/** How often the histogram samples, in ms; each sample includes it, so it is taken off. */
const RESOLUTION_MS = 10

function statsOf(histogram: IntervalHistogram): DelayStats {
  const ms = (ns: number) => (Number.isFinite(ns) ? Math.max(0, Math.round((ns / NS_PER_MS - RESOLUTION_MS) * 100) / 100) : 0)
  return { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max), mean: ms(histogram.mean) }
}

export class EventLoopMonitor {
  private readonly histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
  private readonly timer: NodeJS.Timeout
  private last: DelayStats | null = null
  private lifetimeMax = 0

  constructor(private readonly windowMs = 10_000) {
    this.histogram.enable()
    this.timer = setInterval(() => this.roll(), windowMs)
    this.timer.unref()
  }

  private roll(): void {
    this.last = statsOf(this.histogram)
    this.lifetimeMax = Math.max(this.lifetimeMax, this.last.max)
    this.histogram.reset()
  }

  snapshot(): ProcessMetrics {
    const memory = process.memoryUsage()
    const current = this.last ?? statsOf(this.histogram)
    return {
      uptimeSeconds: Math.round(process.uptime()),
      rssBytes: memory.rss,
      heapUsedBytes: memory.heapUsed,
      heapTotalBytes: memory.heapTotal,
      externalBytes: memory.external,
      arrayBuffersBytes: memory.arrayBuffers,
      eventLoopDelayMs: { ...current, windowSeconds: this.windowMs / 1000 },
      eventLoopDelayMaxMs: Math.max(this.lifetimeMax, current.max),
    }
  }

  close(): void {
    clearInterval(this.timer)
    this.histogram.disable()
  }
}
