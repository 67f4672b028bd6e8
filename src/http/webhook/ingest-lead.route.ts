/**
 * `POST /api/ingest/lead` (spec §4.1): the token authenticates before the body is read; the body may
 * be JSON, form-encoded, multipart fields or a lead-ads payload. 201 for a new lead, 200 for an update.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import formbody from '@fastify/formbody'
import multipart from '@fastify/multipart'
import type { WebhookPrincipal } from '../../services/accounts.service.ts'
import { sendError } from '../errors.ts'

export const WEBHOOK_BODY_LIMIT = 64 * 1024
const PATH = '/api/ingest/lead'

declare module 'fastify' {
  interface FastifyRequest {
    webhookPrincipal?: WebhookPrincipal
  }
}

function tokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-service-token']
  if (typeof header === 'string' && header !== '') return header.trim()
  const query = (request.query as Record<string, unknown> | undefined)?.token
  if (typeof query === 'string' && query !== '') return query.trim()
  return undefined
}

export const ingestLeadRoute: FastifyPluginAsync = async (fastify) => {
  // Only JSON, form-encoded and multipart bodies are leads; anything else is a 415.
  fastify.removeContentTypeParser(['text/plain'])
  await fastify.register(formbody, { bodyLimit: WEBHOOK_BODY_LIMIT })
  await fastify.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fieldSize: WEBHOOK_BODY_LIMIT, fields: 200, files: 20, fileSize: WEBHOOK_BODY_LIMIT, parts: 220 },
    // Fields only: uploaded files are read and dropped, never stored.
    async onFile(part) {
      for await (const _chunk of part.file) {
        // discard
      }
    },
  })

  fastify.route({
    method: 'POST',
    url: PATH,
    bodyLimit: WEBHOOK_BODY_LIMIT,
    async onRequest(request, reply) {
      const length = Number(request.headers['content-length'])
      const principal = await fastify.leadline.accounts.authenticateWebhookToken(tokenOf(request))
      if (!principal) return sendError(reply, 'invalid_token')
      if (length > WEBHOOK_BODY_LIMIT) return sendError(reply, 'payload_too_large', `the body is limited to ${WEBHOOK_BODY_LIMIT} bytes`)
      request.webhookPrincipal = principal
    },
    async handler(request, reply) {
      const principal = request.webhookPrincipal as WebhookPrincipal
      // No body at all carries no phone field (400 phone required); a JSON null is a scalar (400 body must be an object).
      const result = await fastify.leadline.intake.receive(principal.account, request.body === undefined ? {} : request.body, {
        actor: { kind: 'webhook_token', id: principal.tokenId },
        correlationId: request.id,
      })
      return reply.code(result.created ? 201 : 200).send({
        leadId: result.leadId,
        created: result.created,
        phone: result.phone,
        lists: result.lists,
        warnings: result.warnings,
      })
    },
  })

  fastify.route({
    method: ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
    url: PATH,
    exposeHeadRoute: false,
    handler: (_request, reply) => sendError(reply.header('allow', 'POST'), 'method_not_allowed', 'use POST'),
  })
}
