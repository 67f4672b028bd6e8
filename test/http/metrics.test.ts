/** GET /metrics: this process's memory and event-loop delay, for soak runs and dashboards (docs/reliability.md). */
import t from 'tap'
import { EventLoopMonitor } from '../../src/http/process-metrics.ts'
import { buildApp } from '../helpers/build-app.ts'

t.test('answers memory and event-loop delay as JSON, never cached', async (t) => {
  const { app } = await buildApp(t)
  const response = await app.inject({ method: 'GET', url: '/metrics' })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['cache-control'], 'no-store')
  const body = response.json() as Record<string, unknown>
  for (const field of ['uptimeSeconds', 'rssBytes', 'heapUsedBytes', 'heapTotalBytes', 'externalBytes', 'arrayBuffersBytes', 'eventLoopDelayMaxMs']) {
    t.type(body[field], 'number', field)
    t.ok((body[field] as number) >= 0, `${field} is not negative`)
  }
  t.ok((body.rssBytes as number) > (body.heapUsedBytes as number), 'RSS holds the heap')
  t.match(body.eventLoopDelayMs, { p50: Number, p99: Number, max: Number, mean: Number, windowSeconds: 10 })
})

t.test('a blocked event loop shows in the next window', async (t) => {
  const monitor = new EventLoopMonitor(200)
  t.teardown(() => monitor.close())
  await new Promise((resolve) => setTimeout(resolve, 50))
  const blockedUntil = Date.now() + 120
  while (Date.now() < blockedUntil) {
    // hold the event loop, as a long synchronous task would
  }
  await new Promise((resolve) => setTimeout(resolve, 300))
  const snapshot = monitor.snapshot()
  t.ok(snapshot.eventLoopDelayMaxMs >= 60, `the 120 ms block was seen (max ${snapshot.eventLoopDelayMaxMs} ms)`)
  t.equal(snapshot.eventLoopDelayMs.windowSeconds, 0.2)
})
