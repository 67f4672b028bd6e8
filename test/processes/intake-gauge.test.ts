/**
 * What outbound deliveries yield to: the server's own requests in flight, not the loop's load alone.
 * A loop kept busy by the deliveries themselves (a backlog draining, no requests) is not a flood.
 */
import http from 'node:http'
import t from 'tap'
import { IntakeGauge } from '../../src/processes/intake-gauge.ts'
import { intakeLoadProbe } from '../../src/processes/outbound-events/outbound-events.process.ts'
import { buildApp } from '../helpers/build-app.ts'

t.test('the probe reports the loop\'s load only while the server serves a flood of requests', async (t) => {
  const intake = new IntakeGauge()
  const probe = intakeLoadProbe(intake, () => 0.97)
  t.equal(probe(), 0, 'no requests: the busy loop is the background work\'s own')
  for (let i = 0; i < 7; i++) intake.started()
  t.equal(probe(), 0, 'a few requests: not a flood')
  intake.started()
  t.equal(probe(), 0.97, 'eight in flight: the load counts')
  for (let i = 0; i < 10; i++) intake.ended()
  t.equal(intake.serving, 0, 'never below zero')
})

t.test('the server counts its requests in and out, answered or abandoned', async (t) => {
  const built = await buildApp(t, { logger: false })
  const url = await built.listen()
  const { token } = await built.createAccount('Acme')
  const post = (i: number) => fetch(`${url}/api/ingest/lead`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-token': token }, body: JSON.stringify({ phone: `312555${String(1000 + i)}` }) })
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(i)))
  t.ok(answers.every((a) => a.status === 201))
  t.equal(built.leadline.intake.serving, 0, 'every answered request counted out')
  // A client that sends headers and goes away before its body: counted in, then out when the socket closes.
  const { port } = new URL(url)
  await new Promise<void>((resolve) => {
    const request = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/ingest/lead', headers: { 'content-type': 'application/json', 'content-length': '100', 'x-service-token': token } })
    request.on('error', () => resolve())
    request.flushHeaders()
    setTimeout(() => {
      t.ok(built.leadline.intake.serving >= 1, 'the unfinished request is being served')
      request.destroy()
      setTimeout(resolve, 100)
    }, 150)
  })
  t.equal(built.leadline.intake.serving, 0, 'the abandoned request counted out')
})
