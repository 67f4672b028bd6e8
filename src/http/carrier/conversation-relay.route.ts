/**
 * The carriers' live-conversation sockets: `GET /api/carrier/<name>/relay` upgraded to a WebSocket
 * (Twilio's ConversationRelay for `--on-answer assistant`). The open carrier checks the handshake
 * (its signature) before the upgrade, so a forged or unsigned request gets a plain `403` and never a
 * socket, and nothing is recorded; then the carrier's relay holds the protocol and this route only
 * moves text frames and the close between the socket and it.
 */
import type { FastifyPluginAsync } from 'fastify'
import websocket from '@fastify/websocket'
import { CARRIER_CALLBACK_PATH, type CarrierCallbackContext, type RelayHandshake } from '../../integrations/carrier/carrier.port.ts'
import { z } from 'zod'
import { sendError } from '../errors.ts'
import { formFields } from '../route-schemas.ts'

/** Larger frames are not a carrier's relay: the socket is closed with 1009. */
const MAX_FRAME_BYTES = 64 * 1024

type Fields = RelayHandshake['query']

export const conversationRelayRoutes: FastifyPluginAsync = async (fastify) => {
  await fastify.register(websocket, { options: { maxPayload: MAX_FRAME_BYTES } })
  // ws:// or wss://: the scheme Twilio was given, which is what it signs.
  const socketBase = fastify.publicUrl.replace(/^http(s?):\/\//i, (_, s: string) => `ws${s}://`)

  function handshakeOf(url: string, headers: RelayHandshake['headers'], query: unknown): RelayHandshake {
    return { url: `${socketBase}${url}`, headers, query: (query ?? {}) as Fields }
  }

  fastify.get<{ Params: { carrier: string } }>(
    `${CARRIER_CALLBACK_PATH}/:carrier/relay`,
    {
      websocket: true,
      // A WebSocket, which OpenAPI cannot describe: Twilio opens it with the URL Leadline gave it in the call's TwiML.
      schema: { hide: true, params: z.object({ carrier: z.string() }), querystring: formFields },
      // Before the upgrade: a refused handshake is answered over HTTP and never becomes a socket.
      preValidation: async (request, reply) => {
        const carrier = fastify.leadline.carrier
        if (request.params.carrier !== carrier.name || !carrier.relay) return sendError(reply, 'not_found', `no relay for ${request.params.carrier} on this server`)
        if (!request.ws) return sendError(reply, 'not_found', 'the relay is a WebSocket')
        if (!carrier.relay.accepts(handshakeOf(request.url, request.headers, request.query))) {
          request.log.warn({ carrier: carrier.name }, 'rejected a relay handshake with a bad signature')
          return sendError(reply, 'invalid_signature')
        }
        return undefined
      },
    },
    (socket, request) => {
      const relay = fastify.leadline.carrier.relay
      if (!relay) return socket.close(1011, 'no relay')
      const reports = fastify.leadline.callReports
      const context: CarrierCallbackContext = {
        ...reports,
        publicUrl: fastify.publicUrl,
        warn: (fields, message) => request.log.warn(fields, message),
      }
      const session = relay.open(
        { send: (data) => socket.send(data), close: (code, reason) => socket.close(code, reason) },
        handshakeOf(request.url, request.headers, request.query),
        context,
      )
      socket.on('message', (data, isBinary) => {
        if (!isBinary) session.receive(data.toString())
      })
      socket.on('close', (code) => session.closed(code))
      return undefined
    },
  )
}
