/**
 * Text from outside (names, sources, messages) made safe to print on one line, and the small
 * formatting the events' one-line summaries share. A lead's data cannot move the cursor, rewrite a
 * terminal line or smuggle a line break into a row.
 */

// C0 and C1 controls, and the bidirectional overrides that can make text read differently from what it is.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g
export const MAX_TEXT = 60

/** Outside text made safe to print on one line: controls become U+FFFD, long text is clipped with "…". */
export function printable(value: unknown, max = MAX_TEXT): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))
  const clean = text.replace(UNPRINTABLE, '\uFFFD')
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean
}

export const quoted = (value: unknown): string => `"${printable(value)}"`
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`

/** An amount in a currency's smallest unit, as people write it: `50.00 USD`, `5000 JPY`. */
export function money(amountCents: number, currency: string): string {
  const code = printable(currency, 8).toUpperCase()
  try {
    const digits = new Intl.NumberFormat('en-US', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2
    return `${(amountCents / 10 ** digits).toFixed(digits)} ${code}`
  } catch {
    return `${amountCents} ${code} (smallest unit)`
  }
}

/** Changed fields as `name → "value"`, do-not-call as yes or no. */
export function changeList(changes: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(changes)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => (key === 'doNotCall' ? `do-not-call → ${value === true ? 'yes' : 'no'}` : `${key} → ${typeof value === 'string' ? quoted(value) : printable(value)}`))
}

/**
 * One readable line per event type, in the domain's words, for auditors: each slice declares its
 * own beside its events, so a new event without one is a type error there.
 */
export type EventSummaries<E extends { readonly type: string; readonly data: unknown }> = {
  readonly [T in E['type']]: (data: Extract<E, { type: T }>['data']) => string
}
