/**
 * The one consent classifier (issue #40): what a person's words mean for their consent, whether they
 * texted them or said them to the voice assistant. `opt_out` withdraws consent (FCC 24-18: "by any
 * reasonable means"), `help` asks who is contacting them and how to stop, `opt_in` is the carriers'
 * START, and anything else is a `reply`. It errs toward `opt_out` on a request to stop contact and
 * keeps ordinary sentences that merely contain a keyword ("can you stop by at 5?") as replies.
 * The words and phrases are data, with their sources: consent-phrases.ts.
 */
import { FILLER_WORDS, KEYWORDS, OPT_OUT_PHRASES, type ConsentVerdict, type OptOutPhrase } from './consent-phrases.ts'
import { normalizeMessage, sentences } from './message-text.ts'

export type { ConsentVerdict } from './consent-phrases.ts'

export interface ConsentClassification {
  readonly verdict: ConsentVerdict
  /** What decided it: `keyword:<word>`, `sentence:<word>` or a phrase's id; null for a reply. */
  readonly rule: string | null
}

/** How far before and after a phrase its `unlessBefore`/`unlessAfter` look (characters of normalised text). */
const CONTEXT = 40

const KEYWORD_VERDICT = new Map<string, Exclude<ConsentVerdict, 'reply'>>(KEYWORDS.flatMap((row) => row.words.map((word) => [word, row.verdict] as const)))
const PRIORITY: readonly ConsentVerdict[] = ['opt_out', 'help', 'opt_in']
const REPLY: ConsentClassification = { verdict: 'reply', rule: null }
/** Each phrase's pattern made global once, to find every place it stands. */
const PHRASES = OPT_OUT_PHRASES.map((phrase) => ({ phrase, everywhere: new RegExp(phrase.pattern.source, 'g') }))

/** What this message means for the sender's consent. */
export function classifyConsent(body: string): ConsentClassification {
  const text = normalizeMessage(body)
  if (text === '') return REPLY
  // "S T O P", "S.T.O.P", "opt-out": the letters alone are the keyword.
  const compact = text.replaceAll(' ', '')
  const whole = KEYWORD_VERDICT.get(compact)
  if (whole !== undefined) return { verdict: whole, rule: `keyword:${compact}` }
  const onlyKeywords = keywordsAlone(text)
  if (onlyKeywords !== null) return onlyKeywords
  // "Stop. I'm not interested", "Not interested. STOP!!": a sentence that is an opt-out keyword alone.
  for (const sentence of sentences(body)) {
    const alone = keywordsAlone(sentence)
    if (alone?.verdict === 'opt_out') return { verdict: 'opt_out', rule: `sentence:${alone.rule?.slice('keyword:'.length)}` }
  }
  for (const { phrase, everywhere } of PHRASES) {
    if (phraseIn(phrase, everywhere, text)) return { verdict: 'opt_out', rule: phrase.id }
  }
  return REPLY
}

/** The verdict of words that are keywords with fillers around them ("ok STOP now thanks"), or null. */
function keywordsAlone(text: string): ConsentClassification | null {
  let found: ConsentClassification | null = null
  for (const word of text.split(' ')) {
    const verdict = KEYWORD_VERDICT.get(word)
    if (verdict === undefined) {
      if (!FILLER_WORDS.has(word)) return null
      continue
    }
    if (found === null || PRIORITY.indexOf(verdict) < PRIORITY.indexOf(found.verdict)) found = { verdict, rule: `keyword:${word}` }
  }
  return found
}

/** Whether the phrase stands in the text at a place its exceptions do not rule out. */
function phraseIn(phrase: OptOutPhrase, everywhere: RegExp, text: string): boolean {
  for (const match of text.matchAll(everywhere)) {
    const before = text.slice(Math.max(0, match.index - CONTEXT), match.index)
    const after = text.slice(match.index + match[0].length, match.index + match[0].length + CONTEXT)
    if (phrase.unlessBefore?.test(before)) continue
    if (phrase.unlessAfter?.test(after)) continue
    return true
  }
  return false
}
