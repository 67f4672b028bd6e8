/**
 * Liveness and readiness. Ready means the store answers and every read model has caught up with the
 * log. `/metrics`: memory and event-loop delay of this process, as JSON (docs/reliability.md).
 */
import type { FastifyPluginAsync } from 'fastify'
import { EventLoopMonitor } from './process-metrics.ts'

export const healthRoutes: FastifyPluginAsync = async (fastify) => {
  fastify.get('/healthz', async () => ({ status: 'ok' }))

  const monitor = new EventLoopMonitor()
  fastify.addHook('onClose', async () => monitor.close())
  fastify.get('/metrics', async (_request, reply) => reply.header('cache-control', 'no-store').send(monitor.snapshot()))

  fastify.get('/readyz', async (_request, reply) => {
    const { store, runner } = fastify.leadline
    try {
      const head = await store.headPosition()
      const checkpoint = runner.lowestCheckpoint()
      const ready = checkpoint >= head
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'catching_up', store: store.kind, head, checkpoint })
    } catch (error) {
      fastify.log.warn({ err: error }, 'readiness check failed')
      return reply.code(503).send({ status: 'store_unreachable', store: store.kind })
    }
  })
}
