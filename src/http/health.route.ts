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
import { DEFAULT_READY_LAG_MS } from '../config/config.ts'
import { sendError } from './errors.ts'
import { operatorAccess } from './operator/operator-token.ts'
import type { PrometheusMetrics } from './operator/prometheus-metrics.ts'

export interface HealthRoutesOptions {
  /** How long an event may wait for the read models before the node stops taking traffic. */
  readonly readyLagMs?: number
  /** SHA-256 hashes of the operator tokens (LEADLINE_OPERATOR_TOKEN_HASH); none: /metrics is closed to all. */
  readonly operatorTokenHashes?: readonly string[]
  readonly metrics: PrometheusMetrics
}

function refuse(reply: FastifyReply): FastifyReply {
  return sendError(reply.header('www-authenticate', 'Bearer realm="leadline operator"'), 'invalid_token', 'an operator token is needed: Authorization: Bearer llop_… (leadline operator-token)')
}

export const healthRoutes: FastifyPluginAsync<HealthRoutesOptions> = async (fastify, options) => {
  const readyLagMs = options.readyLagMs ?? DEFAULT_READY_LAG_MS
  const hashes = options.operatorTokenHashes ?? []
  fastify.get('/healthz', async () => ({ status: 'ok' }))

  fastify.get('/metrics', async (request, reply) => {
    if (operatorAccess(request, hashes) !== 'granted') return refuse(reply)
    const { registry } = options.metrics
    return reply.header('cache-control', 'no-store').type(registry.contentType).send(await registry.metrics())
  })

  fastify.get('/readyz', async (request, reply) => {
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
