/**
 * How big a tool's answer may get. Every output is JSON of at most MAX_OUTPUT_BYTES (the response
 * carries it twice, as `content[0].text` and as `structuredContent`); the tools that return many
 * things (list_leads, get_lead_history) fill a page up to PAGE_BYTES and hand a cursor for the rest,
 * so a book of leads with bulky extra fields is paged rather than held in memory all at once.
 */

/** The most JSON one tool output may be; over it the call is answered `answer_too_large` (docs/limits.md). */
export const MAX_OUTPUT_BYTES = 1024 * 1024

/** What a page of leads or events fills up to before it stops and hands a cursor for the rest. */
export const PAGE_BYTES = 512 * 1024

// Characters JSON writes escaped: `"` and `\` take two bytes, controls up to six (\u0001).
function escapedExtra(code: number): number {
  if (code === 0x22 || code === 0x5c) return 1
  if (code < 0x20) return code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 1 : 5
  return 0
}

function stringBytes(text: string): number {
  let extra = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x20 || code === 0x22 || code === 0x5c) extra += escapedExtra(code)
  }
  return Buffer.byteLength(text, 'utf8') + 2 + extra
}

/**
 * The UTF-8 bytes of `JSON.stringify(value)`, counted without making the string (an upper bound: a
 * lone surrogate is counted as the three bytes of U+FFFD, JSON writes it as six).
 */
export function jsonBytes(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return stringBytes(value)
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4
    case 'boolean':
      return value ? 4 : 5
    case 'bigint':
    case 'function':
    case 'symbol':
    case 'undefined':
      return 4
  }
  if (value === null) return 4
  const toJSON = (value as { toJSON?: unknown }).toJSON
  if (typeof toJSON === 'function') return jsonBytes((toJSON as () => unknown).call(value))
  if (Array.isArray(value)) {
    let bytes = 2 + Math.max(0, value.length - 1)
    for (const item of value) bytes += jsonBytes(item)
    return bytes
  }
  let bytes = 2
  let members = 0
  for (const [name, member] of Object.entries(value as Record<string, unknown>)) {
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue
    bytes += stringBytes(name) + 1 + jsonBytes(member)
    members++
  }
  return bytes + Math.max(0, members - 1)
}

/**
 * The first items whose JSON together fits in `budget` bytes (always at least one: a single item is
 * bounded on its own), and whether any were left out.
 */
export function withinBudget<T>(items: readonly T[], budget: number, size: (item: T) => number = jsonBytes): { kept: T[]; cut: boolean } {
  let bytes = 0
  for (let i = 0; i < items.length; i++) {
    bytes += size(items[i] as T) + 1
    if (bytes > budget && i > 0) return { kept: items.slice(0, i), cut: true }
  }
  return { kept: [...items], cut: false }
}
