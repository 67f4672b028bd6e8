/**
 * The scripted assistant: no model, no key. It runs the conversation from the account's brief by
 * simple rules: after the greeting, each question in turn (recorded with record_answer), then a
 * person (transfer_to_person, when the brief has a transfer number) or a callback (book_callback at
 * the time the lead names, read by spoken-answers.ts). It uses the same tools a model does, so
 * Leadline checks them the same way. Where it is in the script is its own `mark` on each reply.
 */
import { DateTime } from 'luxon'
import type { AssistantProvider, ChatMessage, ToolCall, TurnChunk, TurnRequest } from '../assistant-provider.port.ts'
import { notInterested, spokenTimeAt, wantsPerson, wrongNumber, yesOrNo } from './spoken-answers.ts'

/** Where the script stands after a reply: what it asked last. */
const READY = 'ready'
const TRANSFER = 'transfer'
const CALLBACK = 'callback'
const question = (i: number): string => `question:${i}`

/** The greeting's last sentence, which the script's first step answers. */
export const READY_QUESTION = 'Is now a good time for a few quick questions?'

export function createScriptedAssistant(): AssistantProvider {
  return {
    name: 'scripted',
    model: null,
    scripted: true,
    turn: (request) => scriptedTurn(request),
  }
}

async function* scriptedTurn(request: TurnRequest): AsyncIterable<TurnChunk> {
  for (const chunk of nextStep(request)) yield chunk
}

function nextStep({ messages, facts }: TurnRequest): TurnChunk[] {
  const last = messages.at(-1)
  const mark = lastMark(messages)
  const answered = messages.filter((m) => m.role === 'tool' && m.name === 'record_answer' && m.result.startsWith('ok')).length
  const say = (text: string, next: string): TurnChunk[] => [{ type: 'text', text }, { type: 'mark', mark: next }]
  const tool = (name: string, args: Record<string, unknown>, text = ''): TurnChunk[] => [
    ...(text === '' ? [] : [{ type: 'text' as const, text }]),
    { type: 'tool_call', call: toolCall(messages, name, args) },
  ]
  const closing = (): TurnChunk[] =>
    facts.canTransfer
      ? say(`Thank you, that is all my questions. Would you like to speak with someone from ${facts.businessName} now?`, TRANSFER)
      : say(`Thank you, that is all my questions. When is a good time for someone from ${facts.businessName} to call you back?`, CALLBACK)
  const ask = (i: number): TurnChunk[] => {
    const q = facts.questions[i]
    return q === undefined ? closing() : say(q.question, question(i))
  }
  const end = (disposition: string, text: string): TurnChunk[] => tool('end_call', { disposition }, text)

  if (last?.role === 'tool') {
    if (last.name === 'book_callback') {
      if (last.result.startsWith('ok')) {
        const at = /at (\S+)/.exec(last.result)?.[1]
        const when = at === undefined ? '' : ` ${DateTime.fromISO(at).setZone(facts.timeZone).toFormat("cccc 'at' h:mm a")}`
        return end('callback_booked', `Thank you. We will call you back${when}. Goodbye.`)
      }
      return say('Sorry, we cannot call you at that time. What other day and time suits you, during business hours?', CALLBACK)
    }
    // An answer recorded (or refused): on to the next question.
    const asked = /^question:(\d+)$/.exec(mark)
    return ask(asked ? Number(asked[1]) + 1 : answered)
  }
  const said = last?.role === 'user' ? last.text : ''
  if (wrongNumber(said)) return end('wrong_number', 'Sorry for the trouble. Goodbye.')
  if (notInterested(said)) return end('not_interested', 'Understood. Thank you for your time. Goodbye.')
  if (facts.canTransfer && wantsPerson(said) && mark !== TRANSFER) return tool('transfer_to_person', {}, 'Of course. Connecting you now.')
  const asked = /^question:(\d+)$/.exec(mark)
  if (asked) return tool('record_answer', { question: String(Number(asked[1]) + 1), answer: said.slice(0, 200) })
  const answer = yesOrNo(said)
  switch (mark) {
    case TRANSFER:
      if (answer === 'yes') return tool('transfer_to_person', {}, 'Connecting you now.')
      if (answer === 'no') return say(`No problem. When is a good time for someone from ${facts.businessName} to call you back?`, CALLBACK)
      return say('Sorry, I did not catch that. Would you like to speak with someone now? Please say yes or no.', TRANSFER)
    case CALLBACK: {
      const at = spokenTimeAt(said, facts.timeZone, facts.now)
      if (at !== null) return tool('book_callback', { at: at.toISO({ suppressMilliseconds: true }) })
      if (answer === 'no') return end(answered >= facts.questions.length && facts.questions.length > 0 ? 'qualified' : 'not_interested', 'No problem. Thank you for your time. Goodbye.')
      return say('Sorry, what day and time should we call you? For example, tomorrow at 3 pm.', CALLBACK)
    }
    default:
      if (answer === 'yes') return ask(0)
      if (answer === 'no') return say('No problem. When would be a better time to call you back?', CALLBACK)
      return say(`Sorry, I did not catch that. ${READY_QUESTION}`, READY)
  }
}

function lastMark(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as ChatMessage
    if (m.role === 'assistant' && m.mark !== undefined) return m.mark
  }
  return READY
}

function toolCall(messages: readonly ChatMessage[], name: string, args: Record<string, unknown>): ToolCall {
  return { id: `scripted-${messages.length}`, name, arguments: JSON.stringify(args) }
}
