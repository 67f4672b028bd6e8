/** Liveness and readiness. Ready means the store answers and every read model has caught up with the log. */
import type { FastifyPluginAsync } from 'fastify'

export const healthRoutes: FastifyPluginAsync = async (fastify) => {
  fastify.get('/healthz', async () => ({ status: 'ok' }))

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
