/**
 * The carriers' callbacks, one route for all: `POST /api/carrier/<name>/<hook>` goes to the open
 * carrier when it is `<name>` and answers callbacks (404 otherwise). The adapter checks the signature
 * with its own secret and says what to answer; this route lends it Leadline's state: recording a call
 * status, and the account and lead behind a call decision.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify'
import formbody from '@fastify/formbody'
import { recordCallStatus } from '../../commands/record-call-status.command.ts'
import { parseOnAnswer } from '../../domain/dialing/on-answer.ts'
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
  const { leadline } = fastify
  return {
    publicUrl: fastify.publicUrl,
    async recordCallStatus(update) {
      const known = await recordCallStatus(leadline, update)
      if (!known) request.log.warn({ callId: update.callId }, 'status callback for a call Leadline did not place')
      return known
    },
    async answeredCall(decisionId) {
      const call = leadline.calls.byDecisionId(decisionId) ?? (await leadline.runner.catchUp(), leadline.calls.byDecisionId(decisionId))
      if (!call) return null
      const account = await leadline.accounts.get(call.accountId)
      if (!account) return null
      const lead = leadline.inboundLeads.get(call.accountId, { leadId: call.leadId })
      return { decisionId: call.decisionId, businessName: account.name, leadName: lead?.fullName ?? lead?.firstName ?? null, onAnswer: parseOnAnswer(account.settings.onAnswer) }
    },
    warn: (fields, message) => request.log.warn(fields, message),
  }
}
