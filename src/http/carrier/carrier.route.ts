/**
 * The carriers' callbacks, one route for all: `POST /api/carrier/<name>/<hook>` goes to the open
 * carrier when it is `<name>` and answers callbacks (404 otherwise). The adapter checks the signature
 * with its own secret and says what to answer; this route lends it Leadline's call reports (the
 * composition root's commands: statuses, machine detection's verdicts, menu keys).
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import formbody from '@fastify/formbody'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { CARRIER_CALLBACK_PATH, type CarrierCallback, type CarrierCallbackContext } from '../../integrations/carrier/carrier.port.ts'
import { errorBodySchema, sendError } from '../errors.ts'
import { answersAsWritten, formFields } from '../route-schemas.ts'

/** What the route takes: any form fields, read and signature-checked by the open carrier's adapter. */
const callbackSchema = {
  summary: 'A carrier\'s callback about a call or a text',
  description: 'Where the open carrier (Twilio) posts a call\'s progress, fetches what to say when it is answered, and posts texts to the accounts\' numbers (docs/dialing.md). Leadline gives the carrier these URLs with each call; the carrier signs each request (Twilio: `X-Twilio-Signature` with the auth token), and the adapter checks it before reading a field.',
  tags: ['callbacks'],
  consumes: ['application/x-www-form-urlencoded'],
  params: z.object({
    carrier: z.string().describe('The open carrier\'s name (`twilio`); any other is 404'),
    hook: z.string().describe('What the callback is about: `status`, `answer`, `machine`, `menu`, `sms`, … (the carrier\'s own)'),
  }),
  querystring: formFields.describe('What Leadline put in the callback URL (`decision=dec_…`)'),
  body: formFields.optional().describe('The carrier\'s fields (Twilio: `CallSid`, `CallStatus`, `Digits`, …)'),
  response: {
    '2xx': { description: 'Taken: what the carrier is told to do (Twilio: TwiML), or nothing to say', content: { 'text/xml': { schema: z.string() } } },
    400: errorBodySchema.describe('`invalid request`: a callback the carrier would never send'),
    403: errorBodySchema.describe('`invalid signature`: not signed by the open carrier'),
    404: errorBodySchema.describe('`not found`: no such carrier on this server, or it takes no callbacks'),
    413: errorBodySchema.describe('`payload too large`: more than 64 KiB'),
  },
}

export const carrierCallbackRoutes: FastifyPluginAsync = async (fastify) => {
  await fastify.register(formbody, { bodyLimit: 64 * 1024 })

  fastify.withTypeProvider<ZodTypeProvider>().post(`${CARRIER_CALLBACK_PATH}/:carrier/:hook`, { schema: callbackSchema, serializerCompiler: answersAsWritten }, async (request, reply) => {
    const carrier = fastify.leadline.carrier
    if (request.params.carrier !== carrier.name) return sendError(reply, 'not_found', `${request.params.carrier} is not configured on this server`)
    if (!carrier.handleCallback) return sendError(reply, 'not_found', `the ${carrier.name} carrier takes no callbacks`)
    const callback: CarrierCallback = {
      hook: request.params.hook,
      url: `${fastify.publicUrl}${request.url}`,
      headers: request.headers,
      params: request.body ?? {},
      query: request.query,
      receivedAt: fastify.leadline.clock(),
    }
    const answer = await carrier.handleCallback(callback, callbackContext(fastify, request))
    if (answer.kind === 'refused') return sendError(reply, answer.refusal, answer.detail)
    // The adapter's own status (a 2xx): the response schema describes the kinds, not each carrier's codes.
    const answered: FastifyReply = reply
    if (answer.contentType !== undefined) answered.type(answer.contentType)
    return answered.code(answer.status).send(answer.body)
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
