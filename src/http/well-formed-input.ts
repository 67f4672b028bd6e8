/**
 * Makes a parsed request body safe to record. Two shapes of input are valid JSON yet cannot become an
 * event (both found by the fuzzer, both were 500s that lost the lead for good, since a retry fails
 * the same way):
 *
 * - a string with a lone UTF-16 surrogate (`"\ud83d"`, half an emoji cut by a form tool): the log's
 *   canonical JSON refuses it, so it is replaced by U+FFFD, as a UTF-8 decoder does with broken bytes;
 * - nesting deeper than any lead form has (`[[[[…]]]]`): serialising it overflows the stack, and a
 *   stored one would break every later read of the lead, so the request is refused.
 *
 * Walks only as deep as `maxDepth`, so the walk itself cannot overflow; copies only what holds a
 * string that had to be repaired (the webhook is benchmarked: a well-formed body is returned as it came).
 */
declare global {
  // ES2024, in Node since 20; the project's lib is ES2023.
  interface String {
    isWellFormed(): boolean
    toWellFormed(): string
  }
}

export type WellFormed = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: 'too_deep' }

const TOO_DEEP = Symbol('too deep')

function repair(value: unknown, depth: number, maxDepth: number): unknown {
  if (typeof value === 'string') return value.isWellFormed() ? value : value.toWellFormed()
  if (typeof value !== 'object' || value === null) return value
  if (depth >= maxDepth) return TOO_DEEP
  if (Array.isArray(value)) {
    let out: unknown[] | null = null
    for (let i = 0; i < value.length; i++) {
      const item = repair(value[i], depth + 1, maxDepth)
      if (item === TOO_DEEP) return TOO_DEEP
      if (item !== value[i]) (out ??= value.slice())[i] = item
    }
    return out ?? value
  }
  if (Buffer.isBuffer(value)) return value
  const keys = Object.keys(value)
  let entries: Array<[string, unknown]> | null = null
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string
    const original = (value as Record<string, unknown>)[key]
    const item = repair(original, depth + 1, maxDepth)
    if (item === TOO_DEEP) return TOO_DEEP
    const fixedKey = key.isWellFormed() ? key : key.toWellFormed()
    if (entries === null && (item !== original || fixedKey !== key)) {
      entries = keys.slice(0, i).map((k) => [k, (value as Record<string, unknown>)[k]])
    }
    entries?.push([fixedKey, item])
  }
  // fromEntries defines own properties: a `__proto__` key stays data, never a prototype.
  return entries ? Object.fromEntries(entries) : value
}

/** The body with lone surrogates replaced, or `too_deep` when objects and arrays nest past `maxDepth`. */
export function wellFormedInput(value: unknown, maxDepth: number): WellFormed {
  const repaired = repair(value, 0, maxDepth)
  return repaired === TOO_DEEP ? { ok: false, reason: 'too_deep' } : { ok: true, value: repaired }
}
