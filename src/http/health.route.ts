/**
 * Liveness, readiness and metrics. Ready means the store answers and no event on the log has waited for the
 * read models longer than `readyLagMs` (LEADLINE_READY_LAG_MS). A node under load always has a few
 * milliseconds of events not yet applied (read models follow the log a moment later):
 * were that "not ready", a load balancer would take busy nodes out of rotation. A node catching up
 * from far behind, or whose read models are stuck (a full disk), has older events waiting: 503.
 * Log positions are the operator's: `/readyz` tells anyone its status, and its details (head,
 * checkpoint, lag) only with an operator token, which `/metrics` (Prometheus text) always needs.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { DEFAULT_READY_LAG_MS } from '../config/config.ts'
import { errorBodySchema, sendError } from './errors.ts'
import { operatorAccess } from './operator/operator-token.ts'
import type { PrometheusMetrics } from './operator/prometheus-metrics.ts'

export interface HealthRoutesOptions {
  /** How long an event may wait for the read models before the node stops taking traffic. */
  readonly readyLagMs?: number
  /** SHA-256 hashes of the operator tokens (LEADLINE_OPERATOR_TOKEN_HASH); none: /metrics is closed to all. */
  readonly operatorTokenHashes?: readonly string[]
  readonly metrics: PrometheusMetrics
}

const readiness = z.object({
  status: z.enum(['ready', 'catching_up', 'store_unreachable']).describe('`ready`: the store answers and the read models keep up'),
  store: z.string().optional().describe('The log\'s kind (operator token only)'),
  head: z.number().optional().describe('The log\'s last position (operator token only)'),
  checkpoint: z.number().optional().describe('The position every read model has applied (operator token only)'),
  lagMs: z.number().optional().describe('How long the oldest unapplied event has waited (operator token only)'),
})

function refuse(reply: FastifyReply): FastifyReply {
  return sendError(reply.header('www-authenticate', 'Bearer realm="leadline operator"'), 'invalid_token', 'an operator token is needed: Authorization: Bearer llop_… (leadline operator-token)')
}

export const healthRoutes: FastifyPluginAsync<HealthRoutesOptions> = async (fastify, options) => {
  const readyLagMs = options.readyLagMs ?? DEFAULT_READY_LAG_MS
  const hashes = options.operatorTokenHashes ?? []
  const routes = fastify.withTypeProvider<ZodTypeProvider>()
  routes.get('/healthz', {
    schema: { summary: 'Liveness: the process answers', tags: ['health'], response: { 200: z.object({ status: z.literal('ok') }) } },
  }, async () => ({ status: 'ok' as const }))

  fastify.get('/metrics', {
    schema: {
      summary: 'Metrics in Prometheus\'s text format',
      description: 'For the operator\'s Prometheus: requests, leads, calls, the log and the read models (docs/deployment.md). Always needs an operator token.',
      tags: ['health'],
      security: [{ operatorToken: [] }],
      response: {
        200: { description: 'The metrics', content: { 'text/plain': { schema: z.string() } } },
        401: errorBodySchema.describe('`invalid token`: no operator token, or a wrong one'),
      },
    },
  }, async (request, reply) => {
    if (operatorAccess(request, hashes) !== 'granted') return refuse(reply)
    const { registry } = options.metrics
    return reply.header('cache-control', 'no-store').type(registry.contentType).send(await registry.metrics())
  })

  routes.get('/readyz', {
    schema: {
      summary: 'Readiness: the store answers and the read models keep up',
      description: 'Anyone gets the status; an operator token adds the log positions. 503 takes the node out of a load balancer\'s rotation.',
      tags: ['health'],
      security: [{}, { operatorToken: [] }],
      response: { 200: readiness, 401: errorBodySchema.describe('`invalid token`: an operator token was sent and is wrong'), 503: readiness },
    },
  }, async (request, reply) => {
    const { store, runner, clock } = fastify.leadline
    const access = operatorAccess(request, hashes)
    if (access === 'refused') return refuse(reply)
    reply.header('cache-control', 'no-store')
    try {
      const head = await store.headPosition()
      const checkpoint = runner.lowestCheckpoint()
      // The oldest event the read models have not applied, and how long it has waited.
      const [waiting] = checkpoint >= head ? [] : await store.readAll({ fromPosition: checkpoint + 1, limit: 1 })
      const lagMs = waiting === undefined ? 0 : Math.max(0, clock().getTime() - Date.parse(waiting.recordedAt))
      const ready = lagMs <= readyLagMs
      const status = ready ? 'ready' : 'catching_up'
      return reply.code(ready ? 200 : 503).send(access === 'granted' ? { status, store: store.kind, head, checkpoint, lagMs } : { status })
    } catch (error) {
      fastify.log.warn({ err: error }, 'readiness check failed')
      return reply.code(503).send(access === 'granted' ? { status: 'store_unreachable', store: store.kind } : { status: 'store_unreachable' })
    }
  })
}
