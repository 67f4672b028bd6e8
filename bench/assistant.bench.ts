/**
 * bench:assistant — the server's own time from a ConversationRelay `prompt` to the first `text` token,
 * with a model that answers at once (the fake model on 127.0.0.1, reached through the official OpenAI
 * SDK), over --turns turns (default 1,000) spread across --calls concurrent calls (default 20). The
 * calls are real ones: placed through the Twilio adapter at the fake Twilio, answered by a person,
 * the relay socket's handshake signed as Twilio signs it. Target: p99 ≤ 20 ms.
 *
 *   npm run bench:assistant [-- --calls 20 --turns 1000]
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { buildApp } from '../test/helpers/build-app.ts'
import { DIALING, PUBLIC_URL, fakeTwilio, postLead, waitForEvent } from '../test/helpers/dialing-app.ts'
import { twilioEnv, twimlAttribute } from '../test/doubles/fake-twilio.ts'
import { connectRelay } from '../test/doubles/fake-conversation-relay.ts'
import { startFakeModel } from '../test/doubles/fake-model.ts'
import { createOpenAiAssistant } from '../src/integrations/assistant/openai/index.ts'

const { values } = parseArgs({ options: { calls: { type: 'string', default: '20' }, turns: { type: 'string', default: '1000' } } })
const CALLS = Number(values.calls)
const TURNS = Number(values.turns)

const teardowns: Array<() => unknown> = []
const harness = {
  testdir: () => fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-bench-assistant-')),
  teardown: (fn: () => unknown) => void teardowns.push(fn),
}

const model = await startFakeModel()
const fake = await fakeTwilio(harness)
const built = await buildApp(harness as never, {
  publicUrl: PUBLIC_URL,
  env: twilioEnv(fake),
  assistantProvider: createOpenAiAssistant({ apiKey: 'sk-bench-0123456789', baseUrl: model.openaiUrl }),
  logger: false,
})
const baseUrl = await built.listen()
const brief = {
  business: 'Lakeside Roofing repairs and replaces roofs in Chicago.',
  questions: [{ question: 'Do you own the home?', goodAnswer: 'yes' }],
  transferNumber: '+13125550177',
  maxConcurrentCalls: CALLS,
}
const { account, token } = await built.createAccount('Bench Roofing', { ...DIALING, callsPerSecond: 100, onAnswer: 'assistant', assistantBrief: brief })

// Place and answer every call, then open its relay socket.
const relays = await Promise.all(Array.from({ length: CALLS }, async (_, i) => {
  const phone = `31255${String(50000 + i).padStart(5, '0')}`
  const posted = await postLead(built.app, token, { phone, first_name: 'Dana', source: 'bench' })
  if (posted.status !== 201) throw new Error(`lead ${phone}: ${posted.status}`)
  const placed = await waitForEvent(built.leadline, account.accountId, phone, 'CallPlaced', 1, 30_000)
  const sid = (placed.data as { callId: string }).callId
  await fake.postAmdCallback(sid, 'human', { via: baseUrl })
  await waitForEvent(built.leadline, account.accountId, phone, 'CallAnswered', 1, 30_000)
  const answer = await fake.answerCall(sid, { via: baseUrl })
  const url = twimlAttribute(answer.body, 'ConversationRelay', 'url')
  if (typeof url !== 'string') throw new Error(`call ${sid}: no ConversationRelay in ${answer.body}`)
  const relay = await connectRelay({ url, via: baseUrl, authToken: fake.authToken })
  relay.setup(sid)
  return relay
}))

// Each call takes its turns one after another; the calls run at once.
const latencies: number[] = []
const perCall = Math.ceil(TURNS / CALLS)
const started = performance.now()
await Promise.all(relays.map(async (relay) => {
  for (let turn = 0; turn < perCall; turn++) {
    const sent = performance.now()
    const first = relay.next((m) => m.type === 'text', 10_000)
    relay.prompt(`Turn ${turn}: yes, tell me more.`)
    await first
    latencies.push(performance.now() - sent)
    await relay.turn(10_000)
  }
}))
const seconds = (performance.now() - started) / 1000

latencies.sort((a, b) => a - b)
const at = (q: number) => Number((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN).toFixed(2))
const result = {
  calls: CALLS, turns: latencies.length, seconds: Number(seconds.toFixed(1)), machine: { cpus: os.cpus().length, node: process.version, load: os.loadavg()[0]?.toFixed(2) },
  promptToFirstTokenMs: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1) },
  target: { p99Ms: 20 }, met: at(0.99) <= 20,
}
console.log(JSON.stringify(result))
process.stderr.write(`bench:assistant — ${latencies.length} turns over ${CALLS} calls at once: prompt → first text token p50 ${result.promptToFirstTokenMs.p50} ms, p99 ${result.promptToFirstTokenMs.p99} ms (target ≤ 20 ms)\n`)
for (const relay of relays) relay.close()
for (const fn of teardowns.reverse()) await fn()
await model.close()
process.exit(0)
