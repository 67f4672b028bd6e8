/**
 * Liveness and readiness. Ready means the store answers and no event on the log has waited for the
 * read models longer than `readyLagMs` (LEADLINE_READY_LAG_MS). A node under load always has a few
 * milliseconds of events not yet applied (read models follow the log a moment later, see LINGER_MS):
 * were that "not ready", a load balancer would take busy nodes out of rotation. A node catching up
 * from far behind, or whose read models are stuck (a full disk), has older events waiting: 503.
 * `/metrics`: memory and event-loop delay of this process, as JSON (docs/reliability.md).
 */
import type { FastifyPluginAsync } from 'fastify'
import { DEFAULT_READY_LAG_MS } from '../config/config.ts'
import { EventLoopMonitor } from './process-metrics.ts'

export interface HealthRoutesOptions {
  /** How long an event may wait for the read models before the node stops taking traffic. */
  readonly readyLagMs?: number
}

export const healthRoutes: FastifyPluginAsync<HealthRoutesOptions> = async (fastify, options) => {
  const readyLagMs = options.readyLagMs ?? DEFAULT_READY_LAG_MS
  fastify.get('/healthz', async () => ({ status: 'ok' }))

  const monitor = new EventLoopMonitor()
  fastify.addHook('onClose', async () => monitor.close())
  fastify.get('/metrics', async (_request, reply) => reply.header('cache-control', 'no-store').send(monitor.snapshot()))

  fastify.get('/readyz', async (_request, reply) => {
    const { store, runner, clock } = fastify.leadline
    try {
      const head = await store.headPosition()
      const checkpoint = runner.lowestCheckpoint()
      // The oldest event the read models have not applied, and how long it has waited.
      const [waiting] = checkpoint >= head ? [] : await store.readAll({ fromPosition: checkpoint + 1, limit: 1 })
      const lagMs = waiting === undefined ? 0 : Math.max(0, clock().getTime() - Date.parse(waiting.recordedAt))
      const ready = lagMs <= readyLagMs
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'catching_up', store: store.kind, head, checkpoint, lagMs })
    } catch (error) {
      fastify.log.warn({ err: error }, 'readiness check failed')
      return reply.code(503).send({ status: 'store_unreachable', store: store.kind })
    }
  })
}
