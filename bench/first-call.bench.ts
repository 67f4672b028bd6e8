/**
 * The first-call bench: the first speed-to-lead call after a start against the next ones: a fresh
 * `leadline serve` child (from the sources, through tsx) on the embedded store, its Twilio adapter
 * (the real SDK) pointed at the fake Twilio. Per run: one lead, then --next more one at a time, each
 * timed from the webhook's 2xx to its call request arriving at the fake. Reports the median over runs.
 *
 *   node --import tsx bench/first-call.bench.ts [--runs 5 --next 5]
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { openLeadline } from '../src/leadline.ts'
import { startFakeTwilio } from '../test/doubles/fake-twilio.ts'
import { freePort } from '../test/helpers/cli.ts'
import { median, serveChild } from './bench-kit.ts'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, next: { type: 'string', default: '5' } } })
const RUNS = Number(values.runs)
const NEXT = Number(values.next)

const fake = await startFakeTwilio({ incomingNumbers: ['+13125550100'] })
const twilioEnv = { TWILIO_ACCOUNT_SID: fake.accountSid, TWILIO_AUTH_TOKEN: fake.authToken, TWILIO_API_URL: fake.url }

/** ms from the webhook's 2xx to the lead's call request at the fake. */
async function leadToCall(url: string, token: string, digits: string): Promise<number> {
  const response = await fetch(`${url}/api/ingest/lead`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': token },
    body: JSON.stringify({ phone: digits, name: 'Bench Lead' }),
  })
  const okAt = Date.now()
  if (response.status !== 201) throw new Error(`the webhook answered ${response.status}: ${await response.text()}`)
  for (;;) {
    const request = fake.callRequests().find((r) => r.form.To === `+1${digits}`)
    if (request) return request.receivedAt - okAt
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
}

const firsts: number[] = []
const nexts: number[] = []
for (let run = 0; run < RUNS; run++) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-bench-first-'))
  const store = `sqlite:${path.join(dir, 'leadline.db')}`
  const viewsPath = path.join(dir, 'leadline.views.db')
  const setup = await openLeadline({ store, viewsPath, env: twilioEnv })
  const { webhookToken } = await setup.accounts.create(
    'Bench',
    { speedToLead: true, callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, callerId: '+13125550100', callsPerSecond: 100 },
    { actor: { kind: 'operator', id: 'bench' } },
  )
  await setup.close()
  const port = await freePort()
  const server = await serveChild(['src/cli/bin.ts', 'serve'], { LEADLINE_STORE: store, LEADLINE_VIEWS: viewsPath, LEADLINE_PUBLIC_URL: `http://127.0.0.1:${port}`, ...twilioEnv }, port)
  try {
    await new Promise((resolve) => setTimeout(resolve, 1000)) // the start's own work (recovery, warm-up) is over
    firsts.push(await leadToCall(server.url, webhookToken.secret, `2124${String(run).padStart(2, '0')}0000`))
    for (let i = 1; i <= NEXT; i++) nexts.push(await leadToCall(server.url, webhookToken.secret, `2124${String(run).padStart(2, '0')}${String(i).padStart(4, '0')}`))
  } finally {
    await server.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
  console.log(`run ${run + 1}: first ${firsts[run]} ms, next ${nexts.slice(-NEXT).join(', ')} ms`)
}
await fake.close()
console.log(JSON.stringify({ runs: RUNS, firstCallMs: { median: median(firsts), all: firsts }, nextCallsMs: { median: median(nexts) }, loadAverage: os.loadavg()[0] }))
