/**
 * An upload far over a body limit, through a real socket, without `Expect: 100-continue`, from the
 * clients people upload with: Node's fetch (undici) and node:http. Both write the whole body before
 * they read the answer, so they must get the 413 (or the MCP error), never EPIPE, ECONNRESET or
 * "socket hang up" from a connection closed under them. The server is `leadline serve` in its own
 * process: with client and server sharing one event loop the close rarely overtakes the writes.
 */
import http from 'node:http'
import net from 'node:net'
import path from 'node:path'
import Fastify from 'fastify'
import t from 'tap'
import { WEBHOOK_BODY_LIMIT } from '../../src/http/webhook/ingest-lead.route.ts'
import { awaitUnreadBody } from '../../src/http/unread-body.ts'
import { runLeadline, startServer } from '../helpers/cli.ts'

/** 20 MiB: 320 times the webhook's limit, 20 times the tool endpoint's. */
const SIZE = 20 * 1024 * 1024
const BIG = 'x'.repeat(SIZE)
const JSON_BODY = JSON.stringify({ phone: '312-555-0142', notes: BIG })
const FORM_BODY = `phone=312-555-0142&notes=${BIG}`
const BOUNDARY = 'leadline-test-boundary'
const MULTIPART_BODY = `--${BOUNDARY}\r\ncontent-disposition: form-data; name="phone"\r\n\r\n312-555-0142\r\n--${BOUNDARY}\r\ncontent-disposition: form-data; name="notes"\r\n\r\n${BIG}\r\n--${BOUNDARY}--\r\n`

interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  readonly body: string
}

function failure(error: unknown): string {
  const parts: string[] = []
  for (let e = error as { code?: string; message?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) parts.push(`${e.code ?? ''} ${e.message ?? ''}`.trim())
  return parts.join(' / ')
}

async function viaFetch(url: string, init: RequestInit): Promise<Answer> {
  try {
    const response = await fetch(url, { method: 'POST', ...init })
    return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() }
  } catch (error) {
    throw new Error(`fetch failed instead of answering: ${failure(error)}`)
  }
}

/** A body as a stream, so fetch sends it chunked, without content-length. */
function chunkedStream(text: string): ReadableStream<Uint8Array> {
  const bytes = Buffer.from(text)
  let at = 0
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close()
      controller.enqueue(bytes.subarray(at, at + 64 * 1024))
      at += 64 * 1024
    },
  })
}

/** node:http, writing the body in 64 KiB pieces as fast as the socket takes them (chunked unless content-length is set). */
function viaHttp(url: string, headers: http.OutgoingHttpHeaders, body: string, options: { chunked?: boolean; agent?: false } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const bytes = Buffer.from(body)
    const request = http.request(url, {
      method: 'POST',
      headers: options.chunked ? headers : { ...headers, 'content-length': bytes.length },
      ...(options.agent === false ? { agent: false } : {}),
    })
    request.on('error', (error) => reject(new Error(`node:http failed instead of answering: ${failure(error)}`)))
    request.on('response', (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (d: string) => (text += d))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }))
      response.on('error', (error) => reject(new Error(`node:http's answer broke off: ${failure(error)}`)))
    })
    let at = 0
    const pump = () => {
      while (at < bytes.length) {
        const ok = request.write(bytes.subarray(at, at + 64 * 1024))
        at += 64 * 1024
        if (!ok) return void request.once('drain', pump)
      }
      request.end()
    }
    pump()
  })
}

const env = { LEADLINE_STORE: `sqlite:${path.join(t.testdir(), 'leadline.db')}`, LOG_LEVEL: 'warn' }
const created = await runLeadline(['account', 'create', '--name', 'Uploads', '--json'], env)
const token = (JSON.parse(created.stdout) as { webhookToken: { token: string } }).webhookToken.token
const server = await startServer(env)
t.teardown(() => server.stop())
const base = server.url

t.test('the webhook answers 413 JSON to every client and body kind, and records nothing', async (t) => {
  const url = `${base}/api/ingest/lead`
  const auth = { 'x-service-token': token }
  const json = { ...auth, 'content-type': 'application/json' }
  const form = { ...auth, 'content-type': 'application/x-www-form-urlencoded' }
  const multipart = { ...auth, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }
  const formData = () => {
    const data = new FormData()
    data.set('phone', '312-555-0142')
    data.set('notes', BIG)
    return data
  }
  const cases: Array<[string, () => Promise<Answer>]> = [
    ['fetch, JSON', () => viaFetch(url, { headers: json, body: JSON_BODY })],
    ['fetch, JSON streamed (chunked)', () => viaFetch(url, { headers: json, body: chunkedStream(JSON_BODY), duplex: 'half' } as RequestInit)],
    ['fetch, form-encoded', () => viaFetch(url, { headers: form, body: FORM_BODY })],
    ['fetch, form-encoded streamed (chunked)', () => viaFetch(url, { headers: form, body: chunkedStream(FORM_BODY), duplex: 'half' } as RequestInit)],
    ['fetch, multipart (FormData)', () => viaFetch(url, { headers: auth, body: formData() })],
    ['fetch, multipart streamed (chunked)', () => viaFetch(url, { headers: multipart, body: chunkedStream(MULTIPART_BODY), duplex: 'half' } as RequestInit)],
    ['node:http, JSON', () => viaHttp(url, json, JSON_BODY)],
    ['node:http, JSON chunked', () => viaHttp(url, json, JSON_BODY, { chunked: true })],
    ['node:http, JSON chunked, Connection: close', () => viaHttp(url, json, JSON_BODY, { chunked: true, agent: false })],
    ['node:http, form-encoded', () => viaHttp(url, form, FORM_BODY)],
    ['node:http, form-encoded chunked', () => viaHttp(url, form, FORM_BODY, { chunked: true })],
    ['node:http, multipart', () => viaHttp(url, multipart, MULTIPART_BODY)],
    ['node:http, multipart chunked', () => viaHttp(url, multipart, MULTIPART_BODY, { chunked: true })],
  ]
  for (const [name, send] of cases) {
    const answer = await send().catch((error: Error) => error)
    if (answer instanceof Error) {
      t.fail(`${name}: ${answer.message}`)
      continue
    }
    t.equal(answer.status, 413, `${name}: 413`)
    t.match(answer.headers['content-type'], /^application\/json/, `${name}: a JSON body`)
    t.same(JSON.parse(answer.body), { error: 'payload too large', detail: `the body is limited to ${WEBHOOK_BODY_LIMIT} bytes` }, `${name}: the documented error`)
  }
  // Same phone as every refused body: 201, not 200, so none of them was recorded.
  const after = await viaFetch(url, { headers: json, body: JSON.stringify({ phone: '312-555-0142' }) })
  t.equal(after.status, 201, 'no refused upload was recorded, and a lead within the limit is taken after them')
})

t.test('the console and the tool endpoint answer too', async (t) => {
  const form = { 'content-type': 'application/x-www-form-urlencoded' }
  const consoleCases: Array<[string, () => Promise<Answer>]> = [
    ['fetch', () => viaFetch(`${base}/app/sign-in`, { headers: form, body: FORM_BODY })],
    ['node:http', () => viaHttp(`${base}/app/sign-in`, form, FORM_BODY)],
    ['node:http chunked', () => viaHttp(`${base}/app/sign-in`, form, FORM_BODY, { chunked: true })],
  ]
  for (const [name, send] of consoleCases) {
    const answer = await send().catch((error: Error) => error)
    if (answer instanceof Error) {
      t.fail(`console form, ${name}: ${answer.message}`)
      continue
    }
    t.equal(answer.status, 413, `console form, ${name}: 413`)
    t.same(JSON.parse(answer.body), { error: 'payload too large', detail: 'the form is too large: nothing was changed' }, `console form, ${name}: its JSON`)
  }
  const mcp = { authorization: 'Bearer ll_live_00000000000000000000000000000000', 'content-type': 'application/json' }
  const mcpCases: Array<[string, () => Promise<Answer>]> = [
    ['fetch', () => viaFetch(`${base}/api/mcp`, { headers: mcp, body: JSON_BODY })],
    ['node:http', () => viaHttp(`${base}/api/mcp`, mcp, JSON_BODY)],
    ['node:http chunked', () => viaHttp(`${base}/api/mcp`, mcp, JSON_BODY, { chunked: true })],
  ]
  for (const [name, send] of mcpCases) {
    const answer = await send().catch((error: Error) => error)
    if (answer instanceof Error) {
      t.fail(`tool endpoint, ${name}: ${answer.message}`)
      continue
    }
    t.equal(answer.status, 200, `tool endpoint, ${name}: JSON-RPC errors are 200`)
    t.match(JSON.parse(answer.body), { jsonrpc: '2.0', error: { code: -32600, data: { code: 'payload_too_large' } } }, `tool endpoint, ${name}: payload_too_large`)
  }
})

/** Writes a request head and part of its body on a raw socket, then stops sending; resolves with what comes back. */
function stalledUpload(port: number, declared: number, send: number): Promise<{ text: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`POST /upload HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\n\r\n`)
      socket.write(Buffer.alloc(send, 'x'))
    })
    let text = ''
    socket.on('data', (d) => (text += String(d)))
    socket.on('error', reject)
    socket.on('close', () => resolve({ text, closedAfterMs: Date.now() - started }))
  })
}

t.test('a refused upload is waited for only so long, and only so much of it is read', async (t) => {
  const fastify = Fastify()
  awaitUnreadBody(fastify, { maxBytes: 256 * 1024, maxMs: 400 })
  fastify.post('/upload', { bodyLimit: 1024 }, async () => 'unreachable')
  await fastify.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => fastify.close())
  const { port } = fastify.server.address() as net.AddressInfo

  const slow = await stalledUpload(port, 10 * 1024 * 1024, 10 * 1024)
  t.match(slow.text, /^HTTP\/1\.1 413 /, 'a sender that stalls gets its 413')
  t.match(slow.text, /\r\nconnection: close\r\n/i, 'and the connection is closed')
  t.ok(slow.closedAfterMs >= 350 && slow.closedAfterMs < 3_000, `once the rest of the body was waited for up to the time bound (${slow.closedAfterMs} ms)`)

  const flood = await stalledUpload(port, 64 * 1024 * 1024, 2 * 1024 * 1024)
  t.match(flood.text, /^HTTP\/1\.1 413 /, 'past the byte bound the 413 goes out before the body is over')
  t.match(flood.text, /\r\nconnection: close\r\n/i, 'on a connection then closed')
  t.ok(flood.closedAfterMs < 300, `without waiting for the time bound (${flood.closedAfterMs} ms)`)
})
