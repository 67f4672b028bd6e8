/**
 * What an inbound text says for the sender's consent, as the one consent classifier decides it
 * (src/domain/consent/: keywords in any spelling and plain-language revocation, FCC 24-18).
 * `opt_out` makes the lead do-not-call; `help` asks who is texting and how to stop; `opt_in` (START,
 * UNSTOP) is recorded and changes nothing (only the operator clears do-not-call, see
 * docs/texting.md). Any other text is a reply, `null` here as it is recorded on `TextReceived`.
 */
import { classifyConsent } from '../../consent/consent-classifier.ts'

export type TextKeyword = 'opt_out' | 'help' | 'opt_in'

/** What the text is for consent (`"STOP!!!"`, `"please stop texting me"`), or null for a reply. */
export function textKeyword(body: string): TextKeyword | null {
  const { verdict } = classifyConsent(body)
  return verdict === 'reply' ? null : verdict
}

/** The one confirmation of an opt-out: who, what stops, nothing else (no marketing). */
export function optOutConfirmationText(business: string): string {
  return `${business}: you are unsubscribed and will not be called or texted again. No more messages will be sent.`
}

/** The answer to HELP or INFO: who is texting and how to stop. */
export function helpText(business: string): string {
  return `${business}: reply STOP to stop all calls and texts from us.`
}
