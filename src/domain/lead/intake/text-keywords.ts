/**
 * What an inbound text says, when it is one of the keywords carriers and the FCC (24-18) recognise:
 * the whole message, case, spaces and punctuation ignored. `opt_out` (STOP and its synonyms) makes
 * the lead do-not-call; `help` asks who is texting and how to stop; `opt_in` (START, UNSTOP) is
 * recorded and changes nothing (only the operator clears do-not-call, see docs/texting.md). Any
 * other text is a reply.
 */
export type TextKeyword = 'opt_out' | 'help' | 'opt_in'

export const OPT_OUT_KEYWORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'REVOKE', 'OPTOUT'] as const
export const HELP_KEYWORDS = ['HELP', 'INFO'] as const
export const OPT_IN_KEYWORDS = ['START', 'UNSTOP'] as const

const KEYWORDS = new Map<string, TextKeyword>([
  ...OPT_OUT_KEYWORDS.map((k) => [k, 'opt_out'] as const),
  ...HELP_KEYWORDS.map((k) => [k, 'help'] as const),
  ...OPT_IN_KEYWORDS.map((k) => [k, 'opt_in'] as const),
])

/** The keyword a whole message is (`" Stop. "`, `"opt out"`), or null for any other text. */
export function textKeyword(body: string): TextKeyword | null {
  if (body.length > 40) return null
  return KEYWORDS.get(body.normalize('NFKC').toUpperCase().replace(/[^A-Z]/g, '')) ?? null
}

/** The one confirmation of an opt-out: who, what stops, nothing else (no marketing). */
export function optOutConfirmationText(business: string): string {
  return `${business}: you are unsubscribed and will not be called or texted again. No more messages will be sent.`
}

/** The answer to HELP or INFO: who is texting and how to stop. */
export function helpText(business: string): string {
  return `${business}: reply STOP to stop all calls and texts from us.`
}
