/**
 * A response ready before its request's body has all arrived (a 413 for an upload over a limit, a
 * 401 ahead of a large body) waits while the rest of the body is read and discarded. Node's fetch
 * and node:http write the whole body before they read the answer: had the connection been closed
 * under them (fastify closes it after a body error), they would report EPIPE or ECONNRESET instead
 * of the 413. Bounded like nginx's lingering close: past `maxBytes` discarded or `maxMs` waited, the
 * answer goes out at once on a connection then closed.
 */
import type { FastifyInstance } from 'fastify'

export interface UnreadBodyBounds {
  /** Bytes of a refused body read and discarded before the answer goes out anyway. */
  readonly maxBytes: number
  /** How long the answer waits for the rest of the body. */
  readonly maxMs: number
}

/** 64 MiB and 30 seconds (the server's time to receive a whole request): docs/limits.md. */
export const UNREAD_BODY_BOUNDS: UnreadBodyBounds = { maxBytes: 64 * 1024 * 1024, maxMs: 30_000 }

/** Adds the `onSend` hook to `fastify` (and the routes registered inside it). */
export function awaitUnreadBody(fastify: FastifyInstance, bounds: UnreadBodyBounds = UNREAD_BODY_BOUNDS): void {
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw
    // `complete` is false only on a real socket whose request is still arriving (inject has none).
    if (raw.complete !== false || raw.destroyed) return done(null, payload)
    let discarded = 0
    let settled = false
    const settle = (closeConnection: boolean) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      raw.off('data', onData)
      raw.off('end', onEnd)
      raw.off('close', onEnd)
      if (closeConnection) reply.header('connection', 'close')
      done(null, payload)
    }
    const onData = (chunk: Buffer) => {
      discarded += chunk.length
      if (discarded > bounds.maxBytes) settle(true)
    }
    const onEnd = () => settle(false)
    const timer = setTimeout(() => settle(true), bounds.maxMs)
    raw.on('data', onData)
    raw.once('end', onEnd)
    raw.once('close', onEnd)
    // A body parser that gave up left the stream paused or flowing into nothing: either way, drain it.
    raw.resume()
  })
}
