/**
 * A subscriber on 127.0.0.1 for the outbound events tests: records every request and checks its
 * signature with the `standardwebhooks` package's own Webhook.verify, as a subscriber would. What it
 * answers is the test's script: a status, or `hang` (never answers).
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

export interface Received {
  readonly webhookId: string
  readonly body: string
  readonly payload: { type: string; timestamp: string; data: Record<string, unknown> }
  /** Whether Webhook.verify accepted it with the secret the test gave. */
  readonly verified: boolean
  /** What the receiver answered (`hang`: nothing). */
  readonly answered: number | 'hang'
}

export interface Receiver {
  readonly url: string
  readonly received: Received[]
  /** The secret requests are verified with (the one `subscribe` showed). */
  secret: string
  close(): Promise<void>
}

export async function startReceiver(answer: (n: number, payload: Received['payload']) => number | 'hang' = () => 200): Promise<Receiver> {
  const received: Received[] = []
  const hanging = new Set<http.ServerResponse>()
  const receiver: Receiver = {
    url: '',
    received,
    secret: '',
    close: async () => {
      for (const response of hanging) response.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]))
      let verified = false
      try {
        new Webhook(receiver.secret).verify(body, headers)
        verified = true
      } catch {
        verified = false
      }
      const payload = JSON.parse(body) as Received['payload']
      const answered = answer(received.length + 1, payload)
      received.push({ webhookId: headers['webhook-id'] ?? '', body, payload, verified, answered })
      if (answered === 'hang') {
        hanging.add(response)
        return
      }
      response.writeHead(answered, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  server.keepAliveTimeout = 100
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  ;(receiver as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
  return receiver
}
