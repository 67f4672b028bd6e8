/** A one-line progress bar for long commands (replay): drawn on stderr only when it is a terminal. */

export interface Progress {
  /** Items done so far (events). */
  readonly done: number
  /** Where the work is, and where it ends (positions: the bar's fraction). */
  readonly position: number
  readonly end: number
  readonly elapsedMs: number
}

const WIDTH = 24

export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US')
}

export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000))
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`
}

/** `[██████░░░░]  42%  420,000 events  105,000 events/s  ETA 5s` */
export function formatProgress(label: string, progress: Progress): string {
  const fraction = progress.end > 0 ? Math.min(1, Math.max(0, progress.position / progress.end)) : 1
  const filled = Math.round(fraction * WIDTH)
  const rate = progress.elapsedMs > 0 ? (progress.done / progress.elapsedMs) * 1000 : 0
  const eta = fraction > 0 && fraction < 1 ? formatDuration((progress.elapsedMs * (1 - fraction)) / fraction) : fraction >= 1 ? '0s' : '?'
  return `${label} [${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}] ${String(Math.floor(fraction * 100)).padStart(3)}%  ${formatCount(progress.done)} events  ${formatCount(rate)} events/s  ETA ${eta}`
}

/** Redraws at most every `intervalMs`; `finish()` clears the line so the summary that follows stands alone. */
export class ProgressBar {
  private last = 0

  constructor(
    private readonly label: string,
    private readonly write: (text: string) => void,
    private readonly intervalMs = 100,
  ) {}

  update(progress: Progress): void {
    const now = performance.now()
    if (now - this.last < this.intervalMs && progress.position < progress.end) return
    this.last = now
    this.write(`\r${formatProgress(this.label, progress)}\u001b[K`)
  }

  finish(): void {
    if (this.last > 0) this.write('\r\u001b[K')
  }
}
