// How a raw webhook value (any JSON or form type) is read as text.
// Senders post strings, numbers, booleans, arrays (form libraries and lead-ads
// `values` lists) and occasionally nested objects; intake must never throw on
// any of them, so every field goes through this one reader.

/** What a raw value amounts to for a text field. */
export type FieldValue =
  | { kind: 'absent' } // undefined, null, '', whitespace, or an array of only those
  | { kind: 'text'; text: string; number?: number } // a scalar, stringified, untrimmed (`number`: it was a JSON number)
  | { kind: 'object' } // an object (or an array whose first usable element is one)

/** Longest text kept in any string field, so one sender cannot bloat the lead log. */
export const MAX_FIELD_LENGTH = 1000

// Arrays nest only in malformed payloads; a small bound keeps hostile input cheap.
const MAX_ARRAY_DEPTH = 4

/** Read a raw value: scalars are stringified, arrays yield their first non-empty scalar. */
export function readFieldValue(raw: unknown): FieldValue {
  return read(raw, 0)
}

function read(raw: unknown, depth: number): FieldValue {
  switch (typeof raw) {
    case 'string':
      return raw.trim() === '' ? ABSENT : { kind: 'text', text: raw }
    case 'number':
      return { kind: 'text', text: String(raw), number: raw }
    case 'bigint':
    case 'boolean':
      return { kind: 'text', text: String(raw) }
    case 'object': {
      if (raw === null) return ABSENT
      if (!Array.isArray(raw)) return OBJECT
      if (depth >= MAX_ARRAY_DEPTH) return ABSENT
      for (const element of raw) {
        const value = read(element, depth + 1)
        if (value.kind !== 'absent') return value
      }
      return ABSENT
    }
    default:
      // undefined, functions and symbols cannot come from JSON or forms.
      return ABSENT
  }
}

/** Whether a raw value is sent at all: not undefined, null, blank, or an array of only those. */
export function isPresent(raw: unknown): boolean {
  return read(raw, 0).kind !== 'absent'
}

const ABSENT: FieldValue = { kind: 'absent' }
const OBJECT: FieldValue = { kind: 'object' }

/**
 * Trim and cap a text value. Truncation counts code points so a cut never
 * splits a surrogate pair into an unpaired half.
 */
export function boundText(text: string): { text: string; truncated: boolean } {
  const trimmed = text.trim()
  if (trimmed.length <= MAX_FIELD_LENGTH) return { text: trimmed, truncated: false }
  const codePoints = Array.from(trimmed)
  if (codePoints.length <= MAX_FIELD_LENGTH) return { text: trimmed, truncated: false }
  return { text: codePoints.slice(0, MAX_FIELD_LENGTH).join('').trimEnd(), truncated: true }
}
