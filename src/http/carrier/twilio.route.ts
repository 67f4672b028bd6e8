/**
 * Twilio's callbacks: call status (outcomes become events on the lead), and the TwiML for an answered
 * call (on-answer mode) and for the whisper to the owner. Every request must carry a valid
 * `X-Twilio-Signature` for LEADLINE_PUBLIC_URL + path (403 otherwise). Without Twilio configured, 404.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import formbody from '@fastify/formbody'
import { recordCallStatus } from '../../commands/record-call-status.command.ts'
import { parseOnAnswer } from '../../domain/dialing/on-answer.ts'
import { answerTwiml, whisperTwiml } from '../../integrations/carrier/twilio/index.ts'
import { parseTwilioStatusCallback, verifyTwilioSignature, type TwilioParams } from '../../integrations/carrier/twilio/index.ts'
import { sendError } from '../errors.ts'

export const twilioRoutes: FastifyPluginAsync = async (fastify) => {
  await fastify.register(formbody, { bodyLimit: 64 * 1024 })

  /** Signature check; answers 404/403 itself and returns false when the request must stop. */
  function signed(request: FastifyRequest, reply: FastifyReply): boolean {
    const token = fastify.leadline.twilioAuthToken
    if (!token) {
      sendError(reply, 'not_found', 'Twilio is not configured on this server')
      return false
    }
    const params = (request.body ?? {}) as TwilioParams
    const url = `${fastify.publicUrl}${request.url}`
    if (!verifyTwilioSignature(token, request.headers['x-twilio-signature'] as string | undefined, url, params)) {
      request.log.warn({ url: request.routeOptions.url }, 'rejected a Twilio callback with a bad signature')
      sendError(reply, 'invalid_signature')
      return false
    }
    return true
  }

  /** The lead and account behind a call decision, for the TwiML. */
  async function callContext(request: FastifyRequest) {
    const decision = (request.query as { decision?: unknown }).decision
    if (typeof decision !== 'string') return null
    const call = fastify.leadline.calls.byDecisionId(decision) ?? (await fastify.leadline.runner.catchUp(), fastify.leadline.calls.byDecisionId(decision))
    if (!call) return null
    const account = await fastify.leadline.accounts.get(call.accountId)
    const lead = fastify.leadline.inboundLeads.get(call.accountId, { leadId: call.leadId })
    return account ? { call, account, leadName: lead?.fullName ?? lead?.firstName ?? null } : null
  }

  fastify.post('/api/carrier/twilio/status', async (request, reply) => {
    if (!signed(request, reply)) return reply
    const update = parseTwilioStatusCallback((request.body ?? {}) as TwilioParams, fastify.leadline.clock())
    if (!update) return sendError(reply, 'invalid_request', 'not a call status callback (CallSid and CallStatus are required)')
    const known = await recordCallStatus(fastify.leadline, update)
    if (!known) request.log.warn({ callId: update.callId }, 'status callback for a call Leadline did not place')
    return reply.code(204).send()
  })

  fastify.post('/api/carrier/twilio/answer', async (request, reply) => {
    if (!signed(request, reply)) return reply
    const context = await callContext(request)
    if (!context) return sendError(reply, 'not_found', 'unknown call decision')
    const mode = parseOnAnswer(context.account.settings.onAnswer)
    const whisperUrl = `${fastify.publicUrl}/api/carrier/twilio/whisper?decision=${encodeURIComponent(context.call.decisionId)}`
    const xml = answerTwiml({ mode, leadName: context.leadName, businessName: context.account.name, whisperUrl })
    return reply.type('text/xml; charset=utf-8').send(xml)
  })

  fastify.post('/api/carrier/twilio/whisper', async (request, reply) => {
    if (!signed(request, reply)) return reply
    const context = await callContext(request)
    if (!context) return sendError(reply, 'not_found', 'unknown call decision')
    return reply.type('text/xml; charset=utf-8').send(whisperTwiml(context.leadName))
  })
}
