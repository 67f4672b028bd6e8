/** Percentiles of a distribution held as (value, count) pairs, by the nearest-rank method: exact values, never interpolated. */

export interface Counted {
  readonly value: number
  readonly count: number
}

/**
 * The `p`-th percentile (0 < p ≤ 100): the smallest value at or below which at least p % of the
 * items fall, i.e. the item of rank ⌈p/100 × n⌉ in ascending order. Null for no items.
 */
export function nearestRank(sortedAscending: readonly Counted[], p: number): number | null {
  const total = sortedAscending.reduce((sum, c) => sum + c.count, 0)
  if (total === 0) return null
  const rank = Math.max(1, Math.ceil((p / 100) * total))
  let seen = 0
  for (const c of sortedAscending) {
    seen += c.count
    if (seen >= rank) return c.value
  }
  return null
}
