/**
 * Request loggers are made on first use at an enabled level, and write exactly what an eager child
 * would: the reqId binding, redaction, nested children.
 */
import { Writable } from 'node:stream'
import { pino } from 'pino'
import t from 'tap'
import type { FastifyBaseLogger } from 'fastify'
import { lazyRequestLogger } from '../../src/http/request-logger.ts'
import { loggerOptions } from '../../src/http/server.ts'
import { CARRIER_SECRET_HEADERS } from '../../src/integrations/carrier/open-carrier.ts'

function logger(level: 'info' | 'warn') {
  const lines: Array<Record<string, unknown>> = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>)
      done()
    },
  })
  const base = pino(loggerOptions(level) as pino.LoggerOptions, stream)
  let children = 0
  const counted = new Proxy(base, {
    get(target, key, receiver) {
      if (key === 'child') return (...args: Parameters<typeof base.child>) => (children++, target.child(...args))
      return Reflect.get(target, key, receiver)
    },
  }) as unknown as FastifyBaseLogger
  return { counted, lines, children: () => children, flush: () => new Promise((resolve) => setImmediate(resolve)) }
}

t.test('at warn: an info line makes no child and writes nothing; a warning writes with its reqId, redacted', async (t) => {
  const { counted, lines, children, flush } = logger('warn')
  const log = lazyRequestLogger(counted, { reqId: 'r-1' }, {})
  log.info('incoming request')
  log.debug('detail')
  await flush()
  t.equal(children(), 0, 'no child logger for a request that logs nothing')
  t.same(lines, [])
  log.warn({ headers: { authorization: 'Bearer secret-value' } }, 'refused')
  log.error('and again')
  await flush()
  t.equal(children(), 1, 'one child, made on first use')
  t.match(lines, [{ level: 40, reqId: 'r-1', msg: 'refused', headers: { authorization: '[REDACTED]' } }, { level: 50, reqId: 'r-1', msg: 'and again' }])
  t.notOk(JSON.stringify(lines).includes('secret-value'))
  t.equal(log.level, 'warn')
})

t.test('at info: the same lines as an eager child, nested children included', async (t) => {
  const lazy = logger('info')
  const eager = logger('info')
  for (const [{ counted }, make] of [[lazy, lazyRequestLogger], [eager, (l: FastifyBaseLogger, b: Record<string, unknown>) => l.child(b)]] as const) {
    const log = make(counted, { reqId: 'r-2' }, {})
    log.info({ url: '/api/ingest/lead' }, 'incoming request')
    log.child({ tool: 'list_leads' }).info('called')
  }
  await lazy.flush()
  const strip = (lines: Array<Record<string, unknown>>) => lines.map(({ time: _time, pid: _pid, ...rest }) => rest)
  t.same(strip(lazy.lines), strip(eager.lines))
  t.match(lazy.lines, [{ reqId: 'r-2', msg: 'incoming request' }, { reqId: 'r-2', tool: 'list_leads', msg: 'called' }])
})

t.test("every registered carrier's signature header is redacted, as the other credentials are", async (t) => {
  const { counted, lines, flush } = logger('info')
  t.ok(CARRIER_SECRET_HEADERS.includes('x-twilio-signature'))
  const headers = Object.fromEntries(['authorization', 'x-service-token', 'cookie', 'stripe-signature', ...CARRIER_SECRET_HEADERS].map((h) => [h, 'secret-value']))
  counted.info({ req: { headers }, headers }, 'callback')
  await flush()
  t.notOk(JSON.stringify(lines).includes('secret-value'))
})
