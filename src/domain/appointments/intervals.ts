/**
 * Half-open time intervals [start, end) in epoch milliseconds, and the two operations open slots are made
 * of: merging busy times, and subtracting them from bookable hours.
 */

export interface Span {
  readonly start: number
  readonly end: number
}

/** Sorted by start, overlapping or touching spans joined; empty spans dropped. */
export function mergeSpans(spans: readonly Span[]): Span[] {
  const sorted = spans.filter((s) => s.end > s.start).sort((a, b) => a.start - b.start || a.end - b.end)
  const out: Span[] = []
  for (const span of sorted) {
    const last = out[out.length - 1]
    if (last !== undefined && span.start <= last.end) out[out.length - 1] = { start: last.start, end: Math.max(last.end, span.end) }
    else out.push(span)
  }
  return out
}

/** Whether [start, end) meets any of the merged, sorted `busy` spans. */
export function overlapsAny(start: number, end: number, busy: readonly Span[]): boolean {
  let low = 0
  let high = busy.length
  // The first busy span ending after `start`; it overlaps when it also starts before `end`.
  while (low < high) {
    const mid = (low + high) >> 1
    if (busy[mid]!.end <= start) low = mid + 1
    else high = mid
  }
  const candidate = busy[low]
  return candidate !== undefined && candidate.start < end
}
