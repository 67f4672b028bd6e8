/**
 * The assistant's model through Anthropic's official SDK: the Messages API, streamed, with tools.
 * Text deltas are passed on as they arrive; a `tool_use` block's input (its `input_json_delta`
 * pieces) is passed on whole when the block stops. `baseURL` points the SDK elsewhere (tests' fake).
 */
import Anthropic from '@anthropic-ai/sdk'
import type { AssistantProvider, ChatMessage, TurnChunk, TurnRequest } from '../assistant-provider.port.ts'

export const DEFAULT_ANTHROPIC_MODEL = 'claude-3-5-haiku-latest'

export interface AnthropicAssistantOptions {
  readonly apiKey: string
  readonly model?: string
  readonly baseUrl?: string
  readonly timeoutMs?: number
}

type Param = Anthropic.MessageParam

export function createAnthropicAssistant(options: AnthropicAssistantOptions): AssistantProvider {
  const client = new Anthropic({
    apiKey: options.apiKey, maxRetries: 0, timeout: options.timeoutMs ?? 30_000, ...(options.baseUrl !== undefined ? { baseURL: options.baseUrl } : {}),
  })
  const model = options.model ?? DEFAULT_ANTHROPIC_MODEL
  return {
    name: 'anthropic',
    model,
    scripted: false,
    async *turn(request: TurnRequest): AsyncIterable<TurnChunk> {
      const tools: Anthropic.Tool[] = request.tools.map((t) => ({ name: t.name, description: t.description, input_schema: { ...t.parameters, type: 'object' } }))
      const stream = await client.messages.create(
        { model, max_tokens: 300, system: request.system, messages: toAnthropic(request.messages), tools, stream: true },
        { signal: request.signal },
      )
      const blocks = new Map<number, { id: string; name: string; json: string }>()
      for await (const event of stream) {
        if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') {
          blocks.set(event.index, { id: event.content_block.id, name: event.content_block.name, json: '' })
        } else if (event.type === 'content_block_delta') {
          if (event.delta.type === 'text_delta' && event.delta.text !== '') yield { type: 'text', text: event.delta.text }
          else if (event.delta.type === 'input_json_delta') {
            const block = blocks.get(event.index)
            if (block) block.json += event.delta.partial_json
          }
        } else if (event.type === 'content_block_stop') {
          const block = blocks.get(event.index)
          if (block) yield { type: 'tool_call', call: { id: block.id, name: block.name, arguments: block.json } }
        }
      }
    },
  }
}

/** Our messages as the Messages API wants them: alternating roles, tool results as the user's `tool_result` blocks. */
function toAnthropic(messages: readonly ChatMessage[]): Param[] {
  const out: Param[] = []
  const push = (role: 'user' | 'assistant', block: Anthropic.ContentBlockParam) => {
    const last = out.at(-1)
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(block)
    else out.push({ role, content: [block] })
  }
  for (const m of messages) {
    switch (m.role) {
      case 'user':
        push('user', { type: 'text', text: m.text === '' ? '(silence)' : m.text })
        break
      case 'assistant':
        if (m.text !== '') push('assistant', { type: 'text', text: m.text })
        for (const c of m.toolCalls) push('assistant', { type: 'tool_use', id: c.id, name: c.name, input: parsed(c.arguments) })
        break
      case 'tool':
        push('user', { type: 'tool_result', tool_use_id: m.toolCallId, content: m.result })
        break
    }
  }
  // The conversation opens with our greeting: the API wants a user turn first.
  if (out[0]?.role === 'assistant') out.unshift({ role: 'user', content: [{ type: 'text', text: '(the lead picked up the phone)' }] })
  return out
}

function parsed(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json === '' ? '{}' : json)
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}
