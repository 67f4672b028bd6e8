/**
 * The carriers' callbacks, one route for all: `POST /api/carrier/<name>/<hook>` goes to the open
 * carrier when it is `<name>` and answers callbacks (404 otherwise). The adapter checks the signature
 * with its own secret and says what to answer; this route lends it Leadline's call reports (the
 * composition root's commands: statuses, machine detection's verdicts, menu keys).
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify'
import formbody from '@fastify/formbody'
import { CARRIER_CALLBACK_PATH, type CarrierCallback, type CarrierCallbackContext } from '../../integrations/carrier/carrier.port.ts'
import { sendError } from '../errors.ts'

type Fields = CarrierCallback['params']

export const carrierCallbackRoutes: FastifyPluginAsync = async (fastify) => {
  await fastify.register(formbody, { bodyLimit: 64 * 1024 })

  fastify.post<{ Params: { carrier: string; hook: string } }>(`${CARRIER_CALLBACK_PATH}/:carrier/:hook`, async (request, reply) => {
    const carrier = fastify.leadline.carrier
    if (request.params.carrier !== carrier.name) return sendError(reply, 'not_found', `${request.params.carrier} is not configured on this server`)
    if (!carrier.handleCallback) return sendError(reply, 'not_found', `the ${carrier.name} carrier takes no callbacks`)
    const callback: CarrierCallback = {
      hook: request.params.hook,
      url: `${fastify.publicUrl}${request.url}`,
      headers: request.headers,
      params: (request.body ?? {}) as Fields,
      query: (request.query ?? {}) as Fields,
      receivedAt: fastify.leadline.clock(),
    }
    const answer = await carrier.handleCallback(callback, callbackContext(fastify, request))
    if (answer.kind === 'refused') return sendError(reply, answer.refusal, answer.detail)
    if (answer.contentType !== undefined) reply.type(answer.contentType)
    return reply.code(answer.status).send(answer.body)
  })
}

function callbackContext(fastify: FastifyInstance, request: FastifyRequest): CarrierCallbackContext {
  const reports = fastify.leadline.callReports
  return {
    ...reports,
    publicUrl: fastify.publicUrl,
    async recordCallStatus(update) {
      const known = await reports.recordCallStatus(update)
      if (!known) request.log.warn({ callId: update.callId }, 'status callback for a call Leadline did not place')
      return known
    },
    warn: (fields, message) => request.log.warn(fields, message),
  }
}
