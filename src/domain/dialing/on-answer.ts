/**
 * What happens when a lead picks up: `bridge:+1…` (whisper the lead's name to the owner, then connect
 * the owner's number), `twiml:https://…` (hand the call to the account's own voice assistant), or
 * `greeting` (the default: a short spoken greeting, then the bridge when a bridge number is set), or
 * `agent-first:+1…[,+1…]` (ring the owner's numbers in turn first; the lead is dialed only once a
 * person there pressed 1, so the lead's phone never rings before someone is on the line), with
 * `;then=assistant` dialing the lead anyway when no owner accepts, for the assistant to talk to, or
 * `assistant` (Leadline's own voice assistant holds the conversation: docs/assistant.md).
 */
import { DomainError } from '../shared/decider.ts'

export type OnAnswer =
  | { readonly kind: 'greeting'; readonly ownerNumber: string | null }
  | { readonly kind: 'bridge'; readonly ownerNumber: string }
  | { readonly kind: 'twiml'; readonly url: string }
  /** 1 to MAX_AGENT_NUMBERS numbers, rung one at a time in this order. */
  | { readonly kind: 'agent-first'; readonly ownerNumbers: readonly string[]; readonly fallback: AgentFirstFallback }
  /** Leadline's voice assistant (ConversationRelay and the account's brief). */
  | { readonly kind: 'assistant' }

/** What agent-first does when no owner number accepted: nothing more (null), or the assistant calls the lead. */
export type AgentFirstFallback = 'assistant' | null

export const DEFAULT_ON_ANSWER = 'greeting'
/** Agent-first rings at most this many owner numbers for one call, one after the other. */
export const MAX_AGENT_NUMBERS = 5
const E164 = /^\+[1-9]\d{6,14}$/

export function parseOnAnswer(spec: string): OnAnswer {
  const text = spec.trim()
  const bridge = /^bridge:(\+[1-9]\d{6,14})$/.exec(text)
  if (bridge) return { kind: 'bridge', ownerNumber: bridge[1] as string }
  const greetingBridge = /^greeting(?:\+bridge:(\+[1-9]\d{6,14}))?$/.exec(text)
  if (greetingBridge) return { kind: 'greeting', ownerNumber: greetingBridge[1] ?? null }
  if (text === 'assistant') return { kind: 'assistant' }
  if (text.startsWith('agent-first:')) {
    const [list = '', ...options] = text.slice('agent-first:'.length).split(';')
    return { kind: 'agent-first', ownerNumbers: agentNumbers(spec, list), fallback: agentFallback(spec, options) }
  }
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
  throw new DomainError('invalid_on_answer', `invalid on-answer "${spec}": use greeting, greeting+bridge:+E164, bridge:+E164, agent-first:+E164[,+E164][;then=assistant], assistant or twiml:https://…`)
}

function agentNumbers(spec: string, list: string): string[] {
  const numbers = list.split(',').map((n) => n.trim())
  const bad = numbers.find((n) => !E164.test(n))
  if (bad !== undefined) throw new DomainError('invalid_on_answer', `invalid on-answer "${spec}": "${bad}" is not an E.164 number (+15551234567)`)
  if (numbers.length > MAX_AGENT_NUMBERS) throw new DomainError('invalid_on_answer', `invalid on-answer "${spec}": at most ${MAX_AGENT_NUMBERS} numbers`)
  if (new Set(numbers).size !== numbers.length) throw new DomainError('invalid_on_answer', `invalid on-answer "${spec}": a number is listed twice`)
  return numbers
}

function agentFallback(spec: string, options: readonly string[]): AgentFirstFallback {
  if (options.length === 0) return null
  if (options.length === 1 && options[0]?.trim() === 'then=assistant') return 'assistant'
  throw new DomainError('invalid_on_answer', `invalid on-answer "${spec}": after the numbers only ";then=assistant" may follow`)
}

/** Whether the account's calls may reach the assistant: on answer, or after agent-first found no owner. */
export function usesAssistant(onAnswer: OnAnswer): boolean {
  return onAnswer.kind === 'assistant' || (onAnswer.kind === 'agent-first' && onAnswer.fallback === 'assistant')
}

/** The owner numbers agent-first rings, in turn; null when the account answers another way. */
export function agentFirstNumbers(spec: string): readonly string[] | null {
  const onAnswer = parseOnAnswer(spec)
  return onAnswer.kind === 'agent-first' ? onAnswer.ownerNumbers : null
}

export function formatOnAnswer(onAnswer: OnAnswer): string {
  switch (onAnswer.kind) {
    case 'bridge':
      return `bridge:${onAnswer.ownerNumber}`
    case 'twiml':
      return `twiml:${onAnswer.url}`
    case 'agent-first':
      return `agent-first:${onAnswer.ownerNumbers.join(',')}${onAnswer.fallback === 'assistant' ? ';then=assistant' : ''}`
    case 'assistant':
      return 'assistant'
    case 'greeting':
      return onAnswer.ownerNumber ? `greeting+bridge:${onAnswer.ownerNumber}` : 'greeting'
  }
}

/**
 * The owner's phones, as the account's on-answer names them: agent-first's numbers (in turn), or the
 * number a bridge connects to. Click-to-call rings these first; empty when the account named none.
 */
export function ownerPhones(spec: string): readonly string[] {
  const onAnswer = parseOnAnswer(spec)
  if (onAnswer.kind === 'agent-first') return onAnswer.ownerNumbers
  if (onAnswer.kind === 'bridge') return [onAnswer.ownerNumber]
  if (onAnswer.kind === 'greeting' && onAnswer.ownerNumber !== null) return [onAnswer.ownerNumber]
  return []
}
