/**
 * The baselines: a bare fastify POST route that parses JSON and answers 201 (bench:ingest, bench:mcp),
 * a bare form POST at the voice webhook's path answering a fixed TwiML (bench:inbound-call),
 * and, with BARE_ANSWERS=FILE (a JSON object of name → body), `POST /answer/NAME` answering exactly
 * that body with no work at all: the floor for an answer of that size on this machine (bench:mcp).
 */
import fs from 'node:fs'
import Fastify from 'fastify'
import formbody from '@fastify/formbody'

const fastify = Fastify({ logger: false })
fastify.post('/api/ingest/lead', async (request, reply) => reply.code(201).send({ ok: true, body: request.body !== undefined }))
await fastify.register(formbody)
const TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Thanks for calling.</Say><Dial><Number>+15125550171</Number></Dial></Response>'
fastify.post('/api/carrier/twilio/voice', async (request, reply) => reply.type('text/xml; charset=utf-8').send(request.body === undefined ? '' : TWIML))
const answers = process.env.BARE_ANSWERS ? (JSON.parse(fs.readFileSync(process.env.BARE_ANSWERS, 'utf8')) as Record<string, string>) : {}
for (const [name, body] of Object.entries(answers)) {
  fastify.post(`/answer/${name}`, async (_request, reply) => reply.type('application/json; charset=utf-8').header('cache-control', 'no-store').send(body))
}
await fastify.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' })
process.stdout.write(`listening ${(fastify.server.address() as { port: number }).port}\n`)
