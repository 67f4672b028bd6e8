/**
 * The array half of the egress filters (recordings, sealed secrets): an element the filter turns into
 * DROP goes, a changed one is replaced, and an array with nothing to change is returned as it is,
 * without an allocation (the filters run on every tool answer, most of which hold nothing to remove).
 */

/** What a filter answers for a value that must go. */
export const DROP: unique symbol = Symbol('drop')

export function filterArray(value: readonly unknown[], filter: (item: unknown) => unknown): readonly unknown[] {
  let kept: unknown[] | null = null
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i]
    const filtered = filter(item)
    if (kept === null) {
      if (filtered === item) continue
      kept = value.slice(0, i)
    }
    if (filtered !== DROP) kept.push(filtered)
  }
  return kept ?? value
}
