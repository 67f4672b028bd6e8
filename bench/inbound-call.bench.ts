/**
 * bench:inbound-call — a person calling an account's number: Twilio's signed voice webhook
 * (`POST /api/carrier/twilio/voice`) → Leadline's TwiML answer, with 100,000 leads on record.
 * Latency per call (p50, p99) at --concurrency callers at once, each call a fresh CallSid from a lead
 * on record (one in ten a person never met, who becomes a lead). The account rings two owner numbers
 * around the clock, so every answer is the greeting and the `<Dial>` of the owners. Beside it, in the
 * same run, a bare fastify form route at the same path answering a fixed TwiML of the same shape.
 * Target: p99 at most 50 ms.
 *
 *   npm run bench:inbound-call [-- --runs 3 --calls 2000 --concurrency 4 --leads 100000]
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { parseArgs } from 'node:util'
import twilio from 'twilio'
import { openLeadline } from '../src/leadline.ts'
import { loadConfig } from '../src/config/config.ts'
import { freePort } from '../test/helpers/cli.ts'
import { startFakeTwilio } from '../test/doubles/fake-twilio.ts'
import { benchPhone, type Seeded } from './mcp-seed.ts'
import { ROOT, median, percentile, serveChild } from './bench-kit.ts'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    calls: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '4' },
    leads: { type: 'string', default: '100000' },
  },
})
const RUNS = Number(values.runs)
const CALLS = Number(values.calls)
const CONCURRENCY = Number(values.concurrency)
const LEADS = Number(values.leads)
const CALLER_ID = '+15125550100'

// --- setup: 100,000 leads received through the intake service by a child process (bench/mcp-seed.ts)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-bench-inbound-'))
const store = `sqlite:${path.join(dir, 'leadline.db')}`
const seeded = JSON.parse(
  execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'mcp-seed.ts'), store, String(LEADS), '1'], {
    cwd: ROOT, maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'],
  }).toString('utf8'),
) as Seeded
process.stderr.write(`seeded ${LEADS} leads in ${seeded.seedSeconds.toFixed(0)} s\n`)

const fake = await startFakeTwilio({ incomingNumbers: [CALLER_ID] })
const twilioEnv = { TWILIO_ACCOUNT_SID: fake.accountSid, TWILIO_AUTH_TOKEN: fake.authToken, TWILIO_API_URL: fake.url }
// The account (mcp-seed's one) rings two owner numbers at every hour.
const setup = await openLeadline({ store, viewsPath: loadConfig({ LEADLINE_STORE: store }).viewsPath, env: twilioEnv })
await setup.runner.catchUp()
const [accountId] = setup.accountsQueries.list().map((a) => a.accountId)
await setup.accounts.changeSettings(accountId as string, { businessHours: 'mon-sun 00:00-24:00', inboundRing: ['+15125550171', '+15125550172'] }, { actor: { kind: 'operator', id: 'bench' } })
await setup.close()

const port = await freePort()
const publicUrl = `http://127.0.0.1:${port}`
const server = await serveChild(['bin/leadline.js', 'serve'], { LEADLINE_STORE: store, LEADLINE_PUBLIC_URL: publicUrl, ...twilioEnv }, port)
const barePort = await freePort()
const bare = await serveChild([path.join('bench', 'bare-fastify.server.ts')], {}, barePort)

let sid = 0
/** One call's webhook: a fresh CallSid, from a lead on record (one in ten: a new person). */
function callRequest(url: string): { body: string; headers: Record<string, string> } {
  const n = ++sid
  const from = n % 10 === 0 ? `+1${benchPhone(LEADS + n)}` : `+1${benchPhone((n * 7919) % LEADS)}`
  const params = { CallSid: `CA${String(n).padStart(32, '0')}`, AccountSid: fake.accountSid, From: from, To: CALLER_ID, CallStatus: 'ringing', Direction: 'inbound', ApiVersion: '2010-04-01' }
  const signature = twilio.getExpectedTwilioSignature(fake.authToken, url, params)
  return { body: new URLSearchParams(params).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature } }
}

/** CALLS webhooks at CONCURRENCY at once; each one's time to its whole answer, sorted (ms). */
async function run(base: string, signedUrl: string): Promise<number[]> {
  const times: number[] = []
  let left = CALLS
  let failures = 0
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (left-- > 0) {
      const request = callRequest(signedUrl)
      const started = performance.now()
      const response = await fetch(`${base}/api/carrier/twilio/voice`, { method: 'POST', headers: request.headers, body: request.body })
      const text = await response.text()
      times.push(performance.now() - started)
      if (response.status !== 200 || !text.includes('<Dial')) failures++
    }
  }))
  if (failures > 0) throw new Error(`${failures} answers were not the owners' <Dial>`)
  return times.sort((a, b) => a - b)
}

const rows: Array<{ leadline: { p50: number; p99: number }; bare: { p50: number; p99: number } }> = []
try {
  // Warm-up: the first requests load code and caches.
  await run(server.url, `${publicUrl}/api/carrier/twilio/voice`)
  for (let i = 0; i < RUNS; i++) {
    const ours = await run(server.url, `${publicUrl}/api/carrier/twilio/voice`)
    const theirs = await run(bare.url, `${bare.url}/api/carrier/twilio/voice`)
    const row = { leadline: { p50: percentile(ours, 50), p99: percentile(ours, 99) }, bare: { p50: percentile(theirs, 50), p99: percentile(theirs, 99) } }
    rows.push(row)
    process.stdout.write(`run ${i + 1}: voice webhook p50 ${row.leadline.p50.toFixed(1)} ms, p99 ${row.leadline.p99.toFixed(1)} ms; bare route p50 ${row.bare.p50.toFixed(1)} ms, p99 ${row.bare.p99.toFixed(1)} ms\n`)
  }
  const p99 = median(rows.map((r) => r.leadline.p99))
  const bareP99 = median(rows.map((r) => r.bare.p99))
  process.stdout.write(`median of ${RUNS}: voice webhook p50 ${median(rows.map((r) => r.leadline.p50)).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (target ≤ 50 ms: ${p99 <= 50 ? 'met' : 'MISSED'}); bare route p99 ${bareP99.toFixed(1)} ms; ${LEADS} leads on record, ${CALLS} calls a run at ${CONCURRENCY} at once\n`)
} finally {
  await server.stop()
  await bare.stop()
  await fake.close()
  fs.rmSync(dir, { recursive: true, force: true })
}
