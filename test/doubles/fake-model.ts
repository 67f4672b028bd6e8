/**
 * TEST DOUBLE: a fake language model API on 127.0.0.1, reached by the official `openai` and
 * `@anthropic-ai/sdk` clients through their `baseURL`. Not a mock of our code: an HTTP server that
 * streams Server-Sent Events as the real APIs do.
 *
 * - `POST /v1/chat/completions` (OpenAI Chat Completions, `stream: true`): `chat.completion.chunk`
 *   events with `delta.content` pieces and `delta.tool_calls` pieces (by `index`, the arguments split
 *   across chunks), a final chunk with `finish_reason`, then `data: [DONE]`.
 * - `POST /v1/messages` (Anthropic Messages, `stream: true`): `message_start`, a `text` content block
 *   of `text_delta`s, `tool_use` blocks of `input_json_delta`s, `message_delta` with `stop_reason`,
 *   `message_stop`.
 * Each request takes the next programmed reply, in order (the same queue for both APIs): text pieces
 * and tool calls, or a fault: an HTTP error status with the API's error body, or a hang (headers and
 * nothing more, until the client gives up). Every request body is kept for the test to read.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export type ModelReply =
  | { readonly text?: readonly string[]; readonly tools?: ReadonlyArray<{ readonly name: string; readonly args: Record<string, unknown> }> }
  | { readonly fault: 'hang' }
  | { readonly fault: 'status'; readonly status: number }

export interface FakeModel {
  /** OpenAI's base URL (`…/v1`). */
  readonly openaiUrl: string
  /** Anthropic's base URL (the SDK adds `/v1`). */
  readonly anthropicUrl: string
  /** Programs the next replies. */
  reply(...replies: ModelReply[]): void
  /** Every request body, in order. */
  readonly requests: Array<{ readonly api: 'openai' | 'anthropic'; readonly body: Record<string, unknown>; readonly authorization: string | null }>
  close(): Promise<void>
}

export async function startFakeModel(): Promise<FakeModel> {
  const queue: ModelReply[] = []
  const requests: FakeModel['requests'] = []
  const hanging = new Set<http.ServerResponse>()
  let ids = 0
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const api = req.url?.endsWith('/chat/completions') ? 'openai' : req.url?.endsWith('/messages') ? 'anthropic' : null
      if (api === null || req.method !== 'POST') {
        res.writeHead(404).end()
        return
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>
      const authorization = (req.headers['x-api-key'] ?? req.headers.authorization) as string | undefined
      requests.push({ api, body, authorization: authorization ?? null })
      const reply = queue.shift() ?? { text: ['(no reply programmed)'] }
      if ('fault' in reply) {
        if (reply.fault === 'hang') {
          res.writeHead(200, { 'content-type': 'text/event-stream' })
          res.flushHeaders()
          hanging.add(res)
          res.on('close', () => hanging.delete(res))
          return
        }
        const error = api === 'openai'
          ? { error: { message: 'The server had an error', type: 'server_error', code: null } }
          : { type: 'error', error: { type: 'api_error', message: 'Internal server error' } }
        res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(error))
        return
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      const id = ++ids
      if (api === 'openai') openAiStream(res, id, reply)
      else anthropicStream(res, id, reply)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    openaiUrl: `http://127.0.0.1:${port}/v1`,
    anthropicUrl: `http://127.0.0.1:${port}`,
    reply: (...replies) => void queue.push(...replies),
    requests,
    async close() {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

type Answer = Extract<ModelReply, { text?: unknown }>

/** JSON text split in pieces, as the APIs stream tool arguments. */
function pieces(json: string): string[] {
  const out: string[] = []
  for (let i = 0; i < json.length; i += 7) out.push(json.slice(i, i + 7))
  return out
}

function openAiStream(res: http.ServerResponse, id: number, reply: Answer): void {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    res.write(`data: ${JSON.stringify({ id: `chatcmpl-${id}`, object: 'chat.completion.chunk', created: 1_700_000_000, model: 'fake-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`)
  chunk({ role: 'assistant', content: '' })
  for (const text of reply.text ?? []) chunk({ content: text })
  for (const [index, tool] of (reply.tools ?? []).entries()) {
    chunk({ tool_calls: [{ index, id: `call_${id}_${index}`, type: 'function', function: { name: tool.name, arguments: '' } }] })
    for (const piece of pieces(JSON.stringify(tool.args))) chunk({ tool_calls: [{ index, function: { arguments: piece } }] })
  }
  chunk({}, (reply.tools ?? []).length > 0 ? 'tool_calls' : 'stop')
  res.end('data: [DONE]\n\n')
}

function anthropicStream(res: http.ServerResponse, id: number, reply: Answer): void {
  const event = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
  event('message_start', { message: { id: `msg_${id}`, type: 'message', role: 'assistant', content: [], model: 'fake-model', stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } })
  let index = 0
  if ((reply.text ?? []).length > 0) {
    event('content_block_start', { index, content_block: { type: 'text', text: '' } })
    for (const text of reply.text ?? []) event('content_block_delta', { index, delta: { type: 'text_delta', text } })
    event('content_block_stop', { index })
    index++
  }
  for (const tool of reply.tools ?? []) {
    event('content_block_start', { index, content_block: { type: 'tool_use', id: `toolu_${id}_${index}`, name: tool.name, input: {} } })
    for (const piece of pieces(JSON.stringify(tool.args))) event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } })
    event('content_block_stop', { index })
    index++
  }
  event('message_delta', { delta: { stop_reason: (reply.tools ?? []).length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 20 } })
  event('message_stop', {})
  res.end()
}
