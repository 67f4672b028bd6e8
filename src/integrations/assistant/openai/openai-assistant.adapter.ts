/**
 * The assistant's model through OpenAI's official SDK: Chat Completions, streamed, with tools. Text
 * deltas are passed on as they arrive; a tool call's pieces (by `index`) are joined and passed on
 * whole when the stream ends. `baseURL` points the SDK elsewhere (a compatible server, or tests' fake).
 */
import OpenAI from 'openai'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'
import type { AssistantProvider, ChatMessage, TurnChunk, TurnRequest } from '../assistant-provider.port.ts'

export const DEFAULT_OPENAI_MODEL = 'gpt-4o-mini'

export interface OpenAiAssistantOptions {
  readonly apiKey: string
  readonly model?: string
  readonly baseUrl?: string
  /** The SDK's own request timeout; the engine also abandons a stalled turn by its signal. */
  readonly timeoutMs?: number
}

export function createOpenAiAssistant(options: OpenAiAssistantOptions): AssistantProvider {
  const client = new OpenAI({
    apiKey: options.apiKey, maxRetries: 0, timeout: options.timeoutMs ?? 30_000, ...(options.baseUrl !== undefined ? { baseURL: options.baseUrl } : {}),
  })
  const model = options.model ?? DEFAULT_OPENAI_MODEL
  return {
    name: 'openai',
    model,
    scripted: false,
    async *turn(request: TurnRequest): AsyncIterable<TurnChunk> {
      const tools: ChatCompletionTool[] = request.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: { ...t.parameters } } }))
      const stream = await client.chat.completions.create(
        { model, stream: true, messages: [{ role: 'system', content: request.system }, ...request.messages.map(toOpenAi)], tools, temperature: 0.3, max_completion_tokens: 300 },
        { signal: request.signal },
      )
      const calls = new Map<number, { id: string; name: string; arguments: string }>()
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta
        if (!delta) continue
        if (typeof delta.content === 'string' && delta.content !== '') yield { type: 'text', text: delta.content }
        for (const part of delta.tool_calls ?? []) {
          const call = calls.get(part.index) ?? { id: '', name: '', arguments: '' }
          if (part.id) call.id = part.id
          if (part.function?.name) call.name += part.function.name
          if (part.function?.arguments) call.arguments += part.function.arguments
          calls.set(part.index, call)
        }
      }
      for (const [index, call] of [...calls.entries()].sort(([a], [b]) => a - b)) {
        yield { type: 'tool_call', call: { id: call.id || `call_${index}`, name: call.name, arguments: call.arguments } }
      }
    },
  }
}

function toOpenAi(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.text }
    case 'assistant':
      return message.toolCalls.length === 0
        ? { role: 'assistant', content: message.text }
        : {
          role: 'assistant',
          content: message.text === '' ? null : message.text,
          tool_calls: message.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
        }
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.result }
  }
}
