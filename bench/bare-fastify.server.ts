/** The baseline for bench:ingest: a bare fastify POST route that parses JSON and answers 201. */
import Fastify from 'fastify'

const fastify = Fastify({ logger: false })
fastify.post('/api/ingest/lead', async (request, reply) => reply.code(201).send({ ok: true, body: request.body !== undefined }))
await fastify.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' })
process.stdout.write(`listening ${(fastify.server.address() as { port: number }).port}\n`)
