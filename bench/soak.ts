/**
 * `npm run soak [-- --minutes 10 --rate 20]`: steady mixed traffic against a child `leadline serve`
 * (the embedded store, the real Twilio and Stripe SDKs aimed at the fake servers of test/doubles on
 * 127.0.0.1) for a while, sampling the server's RSS (from /proc) and event-loop delay (its
 * `GET /metrics`) over time. Prints a table and a verdict: the error count must be zero and RSS flat
 * over the last half of the run (growth under 10 % and under 20 MB). Exit 1 otherwise.
 *
 * The mix, per request: 55 % webhook leads (a third of them repeats of an earlier person in other
 * formatting), 15 % place_call, 10 % request_payment (idempotency keys, some reused as a client
 * retry would), 10 % reads (get_next_actions, list_leads), 10 % signed status callbacks for calls
 * the fake Twilio took. Speed to lead is on, so new leads are dialed too.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { freePort, startServer } from '../test/helpers/cli.ts'
import { FAKE_CONNECTED_ACCOUNT, startFakeStripe, stripeEnv } from '../test/doubles/fake-stripe.ts'
import { startFakeTwilio, statusCallbackParams, twilioEnv } from '../test/doubles/fake-twilio.ts'
import { DIALING_SETTINGS, callTool, filesIn, postLead, serverEnv, setUpAccount } from '../test/faults/fault-kit.ts'
import { load1, median, operatorAccessForBench, percentile, rssMb, scrapeMetrics } from './bench-kit.ts'

interface Sample {
  readonly at: number
  readonly rssMb: number
  readonly heapMb: number
  readonly externalMb: number
  readonly requests: number
  readonly errors: number
  readonly p50: number
  readonly p99: number
  readonly max: number
  readonly latencyP99: number
  readonly load: number
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { minutes: { type: 'string', default: '10' }, rate: { type: 'string', default: '20' }, sample: { type: 'string' } } })
  const minutes = Number(values.minutes)
  const rate = Number(values.rate)
  if (!(minutes > 0) || !(rate > 0)) throw new Error('--minutes and --rate must be numbers above 0')
  const durationMs = minutes * 60_000
  const sampleMs = values.sample !== undefined ? Number(values.sample) * 1000 : Math.max(5000, Math.min(30_000, durationMs / 20))

  const twilio = await startFakeTwilio()
  const stripe = await startFakeStripe({ connectedAccounts: [FAKE_CONNECTED_ACCOUNT] })
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-soak-'))
  const files = filesIn(dir)
  const account = await setUpAccount(files, { ...DIALING_SETTINGS, callsPerSecond: 100, stripeAccount: FAKE_CONNECTED_ACCOUNT }, 2)
  const port = await freePort()
  const publicUrl = `http://127.0.0.1:${port}`
  const operator = operatorAccessForBench()
  const server = await startServer(
    serverEnv(files, {
      ...operator.env,
      LEADLINE_PUBLIC_URL: publicUrl,
      ...twilioEnv(twilio),
      ...stripeEnv(stripe),
    }),
    { port },
  )
  const pid = server.child.pid as number
  console.log(`soak: ${minutes} min at ${rate} requests/s against pid ${pid} (${publicUrl}); samples every ${sampleMs / 1000} s; files in ${dir}`)

  const errors: string[] = []
  const leads: string[] = []
  const payKeys: Array<{ key: string; args: Record<string, unknown> }> = []
  const callbacksSent = new Set<string>()
  let latencies: number[] = []
  let requests = 0
  let inFlight = 0
  let n = 0
  const fail = (what: string) => {
    errors.push(what)
    if (errors.length <= 20) console.log(`  error: ${what}`)
  }
  const formats = [(d: string) => d, (d: string) => `(${d.slice(0, 3)}) ${d.slice(3, 6)}-${d.slice(6)}`, (d: string) => `+1-${d}`]

  async function one(): Promise<void> {
    const i = n++
    const pick = Math.random()
    const key = account.keys[i % account.keys.length] as string
    if (pick < 0.55) {
      const repeat = leads.length > 0 && Math.random() < 0.33
      const digits = repeat ? (leads[Math.floor(Math.random() * leads.length)] as string) : `469${String(1_000_000 + i).padStart(7, '0')}`
      const answer = await postLead(server.url, account.token, { phone: (formats[i % 3] as (d: string) => string)(digits), name: `Soak Lead ${i}`, source: 'soak' })
      if (answer.status !== 200 && answer.status !== 201) return fail(`webhook ${answer.status} ${JSON.stringify(answer.body)}`)
      if (!repeat) leads.push(digits)
    } else if (pick < 0.7) {
      const answer = await callTool(server.url, key, 'place_call', { phone: `972${String(1_000_000 + i).padStart(7, '0')}`, name: `Soak Call ${i}`, idempotency_key: `soak-call-${i}` })
      if (answer.error) return fail(`place_call ${JSON.stringify(answer.error)}`)
    } else if (pick < 0.8) {
      // A third are a client's retry of an earlier request with the same key.
      const retry = payKeys.length > 0 && Math.random() < 0.33
      const request = retry ? (payKeys[Math.floor(Math.random() * payKeys.length)] as { key: string; args: Record<string, unknown> }) : null
      if (!request && leads.length === 0) return
      const args = request?.args ?? { phone: leads[Math.floor(Math.random() * leads.length)], amountCents: 5000 + (i % 1000), description: `Soak deposit ${i}` }
      const idempotencyKey = request?.key ?? `soak-pay-${i}`
      const answer = await callTool(server.url, key, 'request_payment', { ...args, idempotency_key: idempotencyKey })
      if (answer.error) return fail(`request_payment ${JSON.stringify(answer.error)}`)
      if (!request) payKeys.push({ key: idempotencyKey, args })
    } else if (pick < 0.9) {
      const answer = i % 2 === 0 ? await callTool(server.url, key, 'get_next_actions', {}) : await callTool(server.url, key, 'list_leads', { limit: 20 })
      if (answer.error) return fail(`read ${JSON.stringify(answer.error)}`)
    } else {
      const call = twilio.callRequests().find((r) => r.sid !== undefined && !callbacksSent.has(r.sid))
      if (!call?.sid) return
      callbacksSent.add(call.sid)
      const params = statusCallbackParams({ callSid: call.sid, status: 'completed', to: String(call.form.To), from: String(call.form.From), extra: { CallDuration: '30' } })
      const answer = await twilio.postStatusCallback(`${publicUrl}/api/carrier/twilio/status`, params)
      if (answer.status >= 300) return fail(`status callback ${answer.status} ${answer.body}`)
    }
  }

  const samples: Sample[] = []
  const started = Date.now()
  async function sample(): Promise<void> {
    // Event-loop delay since the previous scrape, in ms (prom-client resets its histogram at each scrape).
    const scraped = await scrapeMetrics(server.url, operator.headers)
    const ms = (name: string) => Math.round((scraped.get(name) ?? 0) * 100_000) / 100
    const metrics = {
      heapUsedBytes: scraped.get('nodejs_heap_size_used_bytes') ?? 0, externalBytes: scraped.get('nodejs_external_memory_bytes') ?? 0,
      eventLoopDelayMs: { p50: ms('nodejs_eventloop_lag_p50_seconds'), p99: ms('nodejs_eventloop_lag_p99_seconds'), max: ms('nodejs_eventloop_lag_max_seconds') },
    }
    const sorted = [...latencies].sort((a, b) => a - b)
    latencies = []
    const s: Sample = {
      at: Math.round((Date.now() - started) / 1000),
      rssMb: rssMb(pid),
      heapMb: Math.round(metrics.heapUsedBytes / 1024 / 1024),
      externalMb: Math.round(metrics.externalBytes / 1024 / 1024),
      requests,
      errors: errors.length,
      p50: metrics.eventLoopDelayMs.p50,
      p99: metrics.eventLoopDelayMs.p99,
      max: metrics.eventLoopDelayMs.max,
      latencyP99: Math.round(percentile(sorted, 99)),
      load: load1(),
    }
    samples.push(s)
    console.log(
      `${String(s.at).padStart(5)} s  rss ${String(s.rssMb).padStart(4)} MB  heap ${String(s.heapMb).padStart(4)} MB  external ${String(s.externalMb).padStart(4)} MB  ` +
        `loop delay p50 ${s.p50.toFixed(1).padStart(5)} p99 ${s.p99.toFixed(1).padStart(6)} max ${s.max.toFixed(1).padStart(6)} ms  ` +
        `requests ${String(s.requests).padStart(6)}  latency p99 ${String(s.latencyP99).padStart(5)} ms  in flight ${inFlight}  errors ${s.errors}  load ${s.load}`,
    )
  }

  console.log('    t  memory                          event-loop delay (last 10 s window)        traffic')
  await sample()
  const interval = 1000 / rate
  let next = Date.now()
  let nextSample = Date.now() + sampleMs
  const pending = new Set<Promise<void>>()
  while (Date.now() - started < durationMs) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      fail(`the server exited (${server.child.exitCode ?? server.child.signalCode})`)
      break
    }
    const t0 = performance.now()
    inFlight++
    const p = one()
      .catch((error: unknown) => fail(`request failed: ${String(error)}`))
      .finally(() => {
        inFlight--
        requests++
        latencies.push(performance.now() - t0)
        pending.delete(p)
      })
    pending.add(p)
    next += interval
    if (Date.now() >= nextSample) {
      nextSample += sampleMs
      await sample()
    }
    const wait = next - Date.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
  }
  await Promise.all(pending)
  await sample()

  const stopped = server.stop('SIGTERM')
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 20_000).unref())
  if ((await Promise.race([stopped, timeout])) === 'timeout') {
    console.log('  (the server took over 20 s to stop on SIGTERM: killed)')
    await server.stop('SIGKILL')
  }
  await twilio.close()
  await stripe.close()

  const half = samples.filter((s) => s.at >= (samples[samples.length - 1] as Sample).at / 2)
  const mid = half[0] as Sample
  const end = samples[samples.length - 1] as Sample
  const growthMb = end.rssMb - mid.rssMb
  const growthPct = Math.round((growthMb / mid.rssMb) * 1000) / 10
  const flat = growthMb < 20 && growthPct < 10
  const delays = samples.slice(1)
  const worst = (f: (s: Sample) => number) => Math.max(...delays.map(f))
  const medianOf = (f: (s: Sample) => number) => (delays.length === 0 ? 0 : median(delays.map(f)))
  console.log(
    [
      '',
      `requests: ${requests} in ${Math.round((Date.now() - started) / 1000)} s (${Math.round(requests / ((Date.now() - started) / 1000))}/s); errors: ${errors.length}`,
      `calls at fake Twilio: ${twilio.callRequests().length}, texts: ${twilio.messageRequests().length}, Checkout Sessions: ${stripe.sessions().length}`,
      `RSS: start ${samples[0]?.rssMb} MB, half-way ${mid.rssMb} MB, end ${end.rssMb} MB, peak ${Math.max(...samples.map((s) => s.rssMb))} MB; growth over the last half ${growthMb} MB (${growthPct} %)`,
      `event-loop delay over the windows: p50 median ${medianOf((s) => s.p50)} ms, p99 median ${medianOf((s) => s.p99)} ms, worst p99 ${worst((s) => s.p99)} ms, max ${worst((s) => s.max)} ms`,
      `VERDICT: ${errors.length === 0 && flat ? 'PASS' : 'FAIL'}: errors ${errors.length} (must be 0); RSS ${flat ? 'flat' : 'GROWING'} over the last half (${growthMb} MB, ${growthPct} %)`,
    ].join('\n'),
  )
  fs.rmSync(dir, { recursive: true, force: true })
  return errors.length === 0 && flat ? 0 : 1
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error)
    process.exit(2)
  },
)
