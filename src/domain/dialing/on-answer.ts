/**
 * What happens when a lead picks up: `bridge:+1…` (whisper the lead's name to the owner, then connect
 * the owner's number), `twiml:https://…` (hand the call to the account's own voice assistant), or
 * `greeting` (the default: a short spoken greeting, then the bridge when a bridge number is set).
 */
import { DomainError } from '../shared/decider.ts'

export type OnAnswer =
  | { readonly kind: 'greeting'; readonly ownerNumber: string | null }
  | { readonly kind: 'bridge'; readonly ownerNumber: string }
  | { readonly kind: 'twiml'; readonly url: string }

export const DEFAULT_ON_ANSWER = 'greeting'

export function parseOnAnswer(spec: string): OnAnswer {
  const text = spec.trim()
  const bridge = /^bridge:(\+[1-9]\d{6,14})$/.exec(text)
  if (bridge) return { kind: 'bridge', ownerNumber: bridge[1] as string }
  const greetingBridge = /^greeting(?:\+bridge:(\+[1-9]\d{6,14}))?$/.exec(text)
  if (greetingBridge) return { kind: 'greeting', ownerNumber: greetingBridge[1] ?? null }
  if (text.startsWith('twiml:')) {
    const url = text.slice('twiml:'.length)
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      throw new DomainError('invalid_on_answer', `invalid on-answer "${spec}": the TwiML URL is not a URL`)
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
      throw new DomainError('invalid_on_answer', `invalid on-answer "${spec}": the TwiML URL must be http(s)`)
    }
    return { kind: 'twiml', url: parsed.toString() }
  }
  throw new DomainError('invalid_on_answer', `invalid on-answer "${spec}": use greeting, greeting+bridge:+E164, bridge:+E164 or twiml:https://…`)
}

export function formatOnAnswer(onAnswer: OnAnswer): string {
  switch (onAnswer.kind) {
    case 'bridge':
      return `bridge:${onAnswer.ownerNumber}`
    case 'twiml':
      return `twiml:${onAnswer.url}`
    case 'greeting':
      return onAnswer.ownerNumber ? `greeting+bridge:${onAnswer.ownerNumber}` : 'greeting'
  }
}
