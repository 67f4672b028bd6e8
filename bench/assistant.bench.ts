/**
 * bench:assistant — the server's own time from a ConversationRelay `prompt` to the first `text` token,
 * with a model that answers at once (the fake model on 127.0.0.1, reached through the official OpenAI
 * SDK), over --turns turns (default 1,000) spread across --calls concurrent calls (default 20).
 *
 * Leadline runs as `npm start` runs it (built, its heap flags) in a process of its own, its Twilio
 * adapter at the fake Twilio and its assistant at the fake model. The calls are real ones: placed by
 * speed to lead, answered by a person (machine detection's callback), the relay sockets' handshakes
 * signed as Twilio signs them. The fake model and the relay clients run in a third process
 * (bench/assistant-callers.ts), so neither takes the server's thread.
 *
 * A call's next prompt follows its last answer --gap-ms later (default 1000: 20 calls make 20 turns a
 * second, several times faster than people talk, a turn being a spoken answer and a spoken reply);
 * --gap-ms 0 sends them back to back, which measures how many turns a second the server can take
 * (a queue of 20) rather than what it adds to a turn. Target: p99 ≤ 20 ms.
 *
 *   npm run bench:assistant [-- --calls 20 --turns 1000 --gap-ms 1000]
 */
import { fork } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { openLeadline } from '../src/leadline.ts'
import { freePort } from '../test/helpers/cli.ts'
import { startFakeTwilio, twimlAttribute } from '../test/doubles/fake-twilio.ts'
import { cpuMicros, serveChild } from './bench-kit.ts'

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '20' },
    turns: { type: 'string', default: '1000' },
    'gap-ms': { type: 'string', default: '1000' },
  },
})
const CALLS = Number(values.calls)
const TURNS = Number(values.turns)
const GAP_MS = Number(values['gap-ms'])

// The fake model and the relay clients: their own process.
const callers = fork(new URL('./assistant-callers.ts', import.meta.url), { execArgv: ['--import', 'tsx'] })
const fromCallers = <T>(key: string) => new Promise<T>((resolve, reject) => {
  const onMessage = (message: Record<string, unknown>) => {
    if (!(key in message)) return
    callers.off('message', onMessage)
    resolve(message[key] as T)
  }
  callers.on('message', onMessage)
  callers.once('exit', (code) => reject(new Error(`the callers' process exited (${code}) before sending ${key}`)))
})
const modelUrl = await fromCallers<string>('modelUrl')

const fake = await startFakeTwilio({ incomingNumbers: ['+13125550100'] })
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-bench-assistant-'))
const store = `sqlite:${path.join(dir, 'leadline.db')}`
const viewsPath = path.join(dir, 'leadline.views.db')
const env = {
  TWILIO_ACCOUNT_SID: fake.accountSid, TWILIO_AUTH_TOKEN: fake.authToken, TWILIO_API_URL: fake.url,
  LEADLINE_ASSISTANT_PROVIDER: 'openai', LEADLINE_ASSISTANT_API_KEY: 'sk-bench-0123456789', LEADLINE_ASSISTANT_BASE_URL: modelUrl,
}

// The account, made through the real service before the server starts.
const setup = await openLeadline({ store, viewsPath, env })
const { webhookToken } = await setup.accounts.create('Bench Roofing', {
  speedToLead: true, callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, callerId: '+13125550100', callsPerSecond: 100,
  onAnswer: 'assistant',
  assistantBrief: {
    business: 'Lakeside Roofing repairs and replaces roofs in Chicago.',
    questions: [{ question: 'Do you own the home?', goodAnswer: 'yes' }],
    transferNumber: '+13125550177',
    maxConcurrentCalls: CALLS,
  },
} as never, { actor: { kind: 'operator', id: 'bench' } })
await setup.close()

const port = await freePort()
const server = await serveChild(['bin/leadline.js', 'serve'], { LEADLINE_STORE: store, LEADLINE_VIEWS: viewsPath, LEADLINE_PUBLIC_URL: `http://127.0.0.1:${port}`, ...env }, port)

// Every call placed by speed to lead, answered by a person; the callers' process opens the relay sockets.
for (let i = 0; i < CALLS; i++) {
  const response = await fetch(`${server.url}/api/ingest/lead`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': webhookToken.secret },
    body: JSON.stringify({ phone: `7372${String(100_000 + i).padStart(6, '0')}`, first_name: 'Dana', source: 'bench' }),
  })
  if (response.status !== 201) throw new Error(`lead ${i}: ${response.status} ${await response.text()}`)
}
await fake.waitForCalls(CALLS, 30_000)
const relays = await Promise.all(fake.callRequests().map(async (request) => {
  const sid = request.sid as string
  await fake.postAmdCallback(sid, 'human', { via: server.url })
  const answer = await fake.answerCall(sid, { via: server.url })
  const url = twimlAttribute(answer.body, 'ConversationRelay', 'url')
  if (typeof url !== 'string') throw new Error(`call ${sid}: no ConversationRelay in ${answer.body}`)
  return { url, sid }
}))

const perCall = Math.ceil(TURNS / CALLS)
const cpuBefore = cpuMicros(server.child.pid as number)
const started = performance.now()
const measured = fromCallers<number[]>('latencies')
const callersReport = fromCallers<{ loopDelayP99Ms: number; loopDelayMaxMs: number; cpuMs: number }>('callers')
callers.send({ relays, via: server.url, authToken: fake.authToken, perCall, gapMs: GAP_MS })
const latencies = await measured
const callersLoad = await callersReport
const seconds = (performance.now() - started) / 1000
const cpuPerTurnMicros = Math.round((cpuMicros(server.child.pid as number) - cpuBefore) / latencies.length)

latencies.sort((a, b) => a - b)
const at = (q: number) => Number((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN).toFixed(2))
const result = {
  calls: CALLS, turns: latencies.length, gapMs: GAP_MS, seconds: Number(seconds.toFixed(1)), turnsPerSecond: Math.round(latencies.length / seconds), serverCpuPerTurnMicros: cpuPerTurnMicros,
  machine: { cpus: os.cpus().length, node: process.version, load: os.loadavg()[0]?.toFixed(2) },
  promptToFirstTokenMs: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1) },
  callers: callersLoad,
  target: { p99Ms: 20 }, met: at(0.99) <= 20,
}
console.log(JSON.stringify(result))
process.stderr.write(`bench:assistant — ${latencies.length} turns over ${CALLS} calls at once${GAP_MS > 0 ? ` (${GAP_MS} ms between a call's turns)` : ', back to back'}, ${result.turnsPerSecond} turns/s, ${cpuPerTurnMicros} µs of server CPU a turn: prompt → first text token p50 ${result.promptToFirstTokenMs.p50} ms, p90 ${result.promptToFirstTokenMs.p90} ms, p99 ${result.promptToFirstTokenMs.p99} ms (target ≤ 20 ms)\n`)
await server.stop()
await fake.close()
fs.rmSync(dir, { recursive: true, force: true })
process.exit(0)
