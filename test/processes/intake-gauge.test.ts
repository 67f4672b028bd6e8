/**
 * What outbound deliveries yield to: how fast leads arrive at the webhook, not the loop's load. A loop kept
 * busy by the deliveries themselves (a backlog draining, no requests) is not a flood.
 */
import http from 'node:http'
import t from 'tap'
import { IntakeGauge } from '../../src/processes/intake-gauge.ts'
import { intakeFlood } from '../../src/processes/outbound-events/outbound-events.process.ts'
import { buildApp } from '../helpers/build-app.ts'

t.test('the probe says busy only while leads arrive at 100 a second or faster', async (t) => {
  let now = 1_000
  const intake = new IntakeGauge(() => now)
  const probe = intakeFlood(intake)
  t.equal(probe(), false, 'no leads: not busy, however busy the loop')
  for (let i = 0; i < 50; i++) {
    intake.arrived()
    now += 20
  }
  t.equal(probe(), false, `50 a second: not a flood (${intake.perSecond.toFixed(0)}/s)`)
  for (let i = 0; i < 50; i++) {
    intake.arrived()
    now += 7
  }
  t.equal(probe(), true, `about 140 a second: a flood (${intake.perSecond.toFixed(0)}/s)`)
  for (let i = 0; i < 300; i++) {
    intake.arrived()
    now += 1
  }
  t.equal(probe(), true, `1,000 a second: a flood (${intake.perSecond.toFixed(0)}/s)`)
  now += 600
  t.equal(probe(), false, 'half a second without a lead: no longer')
})

t.test('the webhook counts the leads that arrive, answered or abandoned; other routes are not counted', async (t) => {
  const built = await buildApp(t, { logger: false })
  // The gauge's clock stands still (past anything it saw before), so what it says is what it counted: leads × 4 a second.
  const now = performance.now() + 10_000
  ;(built.leadline.intake as unknown as { now: () => number }).now = () => now
  const url = await built.listen()
  const { token } = await built.createAccount('Acme')
  const post = (i: number) => fetch(`${url}/api/ingest/lead`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-token': token }, body: JSON.stringify({ phone: `312555${String(1000 + i)}` }) })
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(i)))
  t.ok(answers.every((a) => a.status === 201))
  t.equal(built.leadline.intake.perSecond, 80, 'twenty leads counted')
  // A request that sends its headers and goes away before its body.
  const { port } = new URL(url)
  const unfinished = async (path: string) => new Promise<void>((resolve) => {
    const request = http.request({ host: '127.0.0.1', port, method: 'POST', path, headers: { 'content-type': 'application/json', 'content-length': '100', 'x-service-token': token } })
    request.on('error', () => resolve())
    request.flushHeaders()
    setTimeout(() => {
      request.destroy()
      setTimeout(resolve, 100)
    }, 150)
  })
  await unfinished('/api/mcp')
  t.equal(built.leadline.intake.perSecond, 80, 'a request elsewhere (the tool endpoint) is not counted')
  await unfinished('/api/ingest/lead')
  t.equal(built.leadline.intake.perSecond, 84, 'an abandoned lead is counted when it arrives')
})
