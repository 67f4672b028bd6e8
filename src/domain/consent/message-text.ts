/**
 * A message as the consent classifier reads it: Unicode NFKC (fullwidth and styled letters become
 * plain ones), zero-width, format and control characters removed, accents folded, case folded,
 * apostrophes dropped ("don't" → "dont"), every other run of punctuation, symbols and whitespace one
 * space. Each step is one pass of a single character class, so the work is linear in the length.
 */

/** Zero-width joiners, bidi marks, soft hyphens (format, Cf) and control characters other than line breaks (Cc). */
const INVISIBLE = /[\p{Cf}\u0000-\u0008\u000E-\u001F\u007F-\u0084\u0086-\u009F]/gu
const COMBINING_MARKS = /\p{M}/gu
const APOSTROPHES = /['\u2018\u2019\u02BC\u0060\u00B4]/g
const NOT_A_WORD = /[^\p{L}\p{N}]+/gu
/** Where one sentence ends and another begins, for "Stop. I'm not interested". */
const SENTENCE_BREAK = /[.!?;,:\n\r\u2026\u3002\u00A1\u00BF]+/u

/** NFKC with invisible characters removed, accents folded and case folded; punctuation and spacing kept. */
export function visibleText(body: string): string {
  return body.normalize('NFKC').replace(INVISIBLE, '').normalize('NFD').replace(COMBINING_MARKS, '').normalize('NFC').toLowerCase()
}

/** Words only: `"  S\u200dTOP!!!  "` → `"stop"`, `"Don't call me."` → `"dont call me"`. */
export function words(text: string): string {
  return text.replace(APOSTROPHES, '').replace(NOT_A_WORD, ' ').trim()
}

/** The message as words: `visibleText`, then `words`. */
export function normalizeMessage(body: string): string {
  return words(visibleText(body))
}

/** The message's sentences, each as words, empty ones left out. */
export function sentences(body: string): string[] {
  return visibleText(body)
    .split(SENTENCE_BREAK)
    .map(words)
    .filter((sentence) => sentence !== '')
}
