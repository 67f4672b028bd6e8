/**
 * kill -9 under mixed load, many times over, then proof that nothing acknowledged was lost and no one
 * was rung or charged twice. Shared by test/faults/crash-mixed-load.test.ts (a few cycles in
 * `npm test`) and test/faults/run-faults.ts (`npm run faults`, fifty by default).
 *
 * Each cycle starts `leadline serve` (always on the same port, so the public URL Twilio signs stays
 * the same) against a fake Twilio and a fake Stripe on 127.0.0.1, drives it with webhook leads (new
 * people and repeats of earlier ones, in other formatting), tool calls with idempotency keys
 * (place_call, request_payment; a call whose answer was lost is retried with the same key in a later
 * cycle, as a client would), and signed status callbacks for the calls the fake Twilio took, then
 * SIGKILLs it at a random moment. Some carrier requests are slowed down so kills land while a call
 * is in flight. After the last cycle a server starts once more and the log is checked.
 */
import fs from 'node:fs'
import path from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { openLeadline } from '../../src/leadline.ts'
import { idempotencyStream } from '../../src/domain/idempotency/idempotency.events.ts'
import { freePort, startServer, type RunningServer } from '../helpers/cli.ts'
import { FAKE_CONNECTED_ACCOUNT, startFakeStripe, stripeEnv } from '../doubles/fake-stripe.ts'
import { startFakeTwilio, statusCallbackParams, twilioEnv } from '../doubles/fake-twilio.ts'
import { DIALING_SETTINGS, callTool, eventually, filesIn, postLead, serverEnv, setUpAccount, sleep, verifyLog } from './fault-kit.ts'

export interface CrashRunOptions {
  readonly cycles: number
  /** A fresh directory for the log and the read models. */
  readonly dir: string
  /** How long the load runs before each kill, at random in this range (ms). */
  readonly loadMs?: readonly [number, number]
  readonly log?: (line: string) => void
  /** Deterministic runs: the seed of the load's choices. */
  readonly seed?: number
}

export interface CrashReport {
  readonly cycles: number
  readonly leadsAcknowledged: number
  readonly submissionsAcknowledged: number
  readonly toolResultsAcknowledged: number
  readonly callbacksAcknowledged: number
  readonly callsPlaced: number
  readonly checkoutSessions: number
  readonly textsSent: number
  /** Every broken guarantee, in words; empty when all held. */
  readonly problems: string[]
}

interface ToolCall {
  readonly name: 'place_call' | 'request_payment'
  readonly key: string
  readonly args: Record<string, unknown>
  /** The output of the first answer that carried one. */
  result?: unknown
  /** A final refusal (a stable code), when the call was answered with one. */
  refused?: string
}

/** A small deterministic generator: the same seed drives the same load. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1
  return () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 0x1_0000_0000
  }
}

/** Refusals that mean "not done, try the same key again later". */
const TRY_AGAIN = new Set(['store_unavailable', 'rate_limited', 'idempotency_in_progress', 'internal_error'])

export async function runCrashCycles(options: CrashRunOptions): Promise<CrashReport> {
  const log = options.log ?? (() => undefined)
  const rand = random(options.seed ?? Date.now())
  const [minLoad, maxLoad] = options.loadMs ?? [500, 1500]
  const twilio = await startFakeTwilio()
  const stripe = await startFakeStripe({ connectedAccounts: [FAKE_CONNECTED_ACCOUNT] })
  const problems: string[] = []
  try {
    fs.mkdirSync(options.dir, { recursive: true })
    const files = filesIn(options.dir)
    // A fast lane: with the default 1 call a second, hundreds of speed-to-lead calls would queue ahead of every place_call.
    const account = await setUpAccount(files, { ...DIALING_SETTINGS, callsPerSecond: 100, stripeAccount: FAKE_CONNECTED_ACCOUNT }, 4)
    const port = await freePort()
    const publicUrl = `http://127.0.0.1:${port}`
    const env = serverEnv(files, {
      LEADLINE_PUBLIC_URL: publicUrl,
      ...twilioEnv(twilio),
      ...stripeEnv(stripe),
    })

    /** phone (ten digits) → submission ids the webhook acknowledged. */
    const submissions = new Map<string, Set<string>>()
    const tools: ToolCall[] = []
    const callbacksSent = new Set<string>()
    const refusals = new Map<string, number>()
    let callbacksAcknowledged = 0
    let nextPhone = 0
    let nextSubmission = 0
    let nextTool = 0

    const formats = [(d: string) => d, (d: string) => `(${d.slice(0, 3)}) ${d.slice(3, 6)}-${d.slice(6)}`, (d: string) => `+1 ${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6)}`]

    async function webhookWorker(server: RunningServer, running: () => boolean): Promise<void> {
      while (running()) {
        const known = [...submissions.keys()]
        const repeat = known.length > 0 && rand() < 0.3
        const digits = repeat ? (known[Math.floor(rand() * known.length)] as string) : `512${String(3_000_000 + nextPhone++).padStart(7, '0')}`
        const submission = `sub-${nextSubmission++}`
        const format = formats[Math.floor(rand() * formats.length)] as (d: string) => string
        try {
          const answer = await postLead(server.url, account.token, { phone: format(digits), name: `Crash Lead ${digits}`, submission })
          if (answer.status === 200 || answer.status === 201) {
            const set = submissions.get(digits) ?? new Set<string>()
            set.add(submission)
            submissions.set(digits, set)
          } else if (answer.status !== 503) problems.push(`webhook answered ${answer.status}: ${JSON.stringify(answer.body)}`)
        } catch {
          // the connection died with the server: not acknowledged, nothing promised
        }
      }
    }

    function newToolCall(): ToolCall {
      const n = nextTool++
      const leads = [...submissions.keys()]
      if (n % 2 === 1 && leads.length > 0) {
        const lead = leads[Math.floor(rand() * leads.length)] as string
        return { name: 'request_payment', key: `rp-${n}`, args: { phone: lead, amountCents: 5000 + n, description: `Deposit ${n}` } }
      }
      // A person of their own per key: place_call's person is rung at most once per key.
      return { name: 'place_call', key: `pc-${n}`, args: { phone: `415${String(4_000_000 + n).padStart(7, '0')}`, name: `Tool Person ${n}` } }
    }

    // A client that stops waiting after a while (a call with the same key still running elsewhere
    // makes the endpoint wait for it): no answer, so it is asked again later with the same key.
    async function attempt(server: RunningServer, key: string, call: ToolCall, waitMs = 4000): Promise<void> {
      const answer = await callTool(server.url, key, call.name, { ...call.args, idempotency_key: call.key }, AbortSignal.timeout(waitMs))
      if (answer.result !== undefined) {
        if (call.result === undefined) call.result = answer.result
        else if (!isDeepStrictEqual(call.result, answer.result)) problems.push(`${call.key}: a repeat answered ${JSON.stringify(answer.result)}, first ${JSON.stringify(call.result)}`)
        return
      }
      const code = answer.error?.data?.code ?? String(answer.error?.code)
      refusals.set(code, (refusals.get(code) ?? 0) + 1)
      if (call.result !== undefined) problems.push(`${call.key}: acknowledged before, now refused with ${code}`)
      if (!TRY_AGAIN.has(code)) call.refused = code
    }

    async function toolWorker(server: RunningServer, key: string, running: () => boolean): Promise<void> {
      while (running()) {
        // Now and then, retry a call whose answer was lost (same key, same arguments), as a client would.
        const open = tools.filter((c) => c.result === undefined && c.refused === undefined)
        const call = open.length > 0 && rand() < 0.25 ? (open[Math.floor(rand() * open.length)] as ToolCall) : newToolCall()
        if (!tools.includes(call)) tools.push(call)
        try {
          await attempt(server, key, call)
        } catch {
          // no answer: retried later with the same key
        }
        await sleep(20)
      }
    }

    async function callbackWorker(server: RunningServer, running: () => boolean): Promise<void> {
      while (running()) {
        for (const request of twilio.callRequests()) {
          if (!running()) break
          if (request.sid === undefined || callbacksSent.has(request.sid)) continue
          try {
            const params = statusCallbackParams({ callSid: request.sid, status: 'completed', to: String(request.form.To), from: String(request.form.From), extra: { CallDuration: '42' } })
            const answer = await twilio.postStatusCallback(`${publicUrl}/api/carrier/twilio/status`, params)
            if (answer.status < 300) {
              callbacksSent.add(request.sid)
              callbacksAcknowledged++
            } else if (answer.status !== 503 && answer.status !== 404) problems.push(`status callback answered ${answer.status}: ${answer.body}`)
          } catch {
            // lost with the server: sent again next cycle, as Twilio retries
          }
        }
        await sleep(50)
      }
    }

    const started = Date.now()
    for (let cycle = 1; cycle <= options.cycles; cycle++) {
      const server = await startServer(env, { port })
      let running = true
      // Slow carrier answers now and then, so some kills land between a call's request and its record.
      if (rand() < 0.6) twilio.failNext({ kind: 'delay', ms: 200 + Math.floor(rand() * 600) }, 1 + Math.floor(rand() * 3))
      const workers = [
        ...Array.from({ length: 3 }, () => webhookWorker(server, () => running)),
        ...account.keys.map((key) => toolWorker(server, key, () => running)),
        callbackWorker(server, () => running),
      ]
      await sleep(minLoad + Math.floor(rand() * (maxLoad - minLoad)))
      server.child.kill('SIGKILL')
      running = false
      await Promise.all(workers)
      await server.stop()
      log(`cycle ${cycle}/${options.cycles} at ${((Date.now() - started) / 1000).toFixed(1)} s: ${[...submissions.values()].reduce((n, s) => n + s.size, 0)} submissions, ${tools.filter((c) => c.result !== undefined).length} tool results, ${twilio.callRequests().length} call requests so far`)
    }

    log(`final start at ${((Date.now() - started) / 1000).toFixed(1)} s`)
    // One more start: recovery runs, the read models catch up, and every acknowledged result is asked for again.
    const server = await startServer(env, { port })
    try {
      if (!(await eventually(async () => (await fetch(`${server.url}/readyz`)).status === 200, 30_000))) problems.push('/readyz never answered 200 after the last restart')
      log(`ready at ${((Date.now() - started) / 1000).toFixed(1)} s`)
      // Acknowledged calls answer at once from their recorded outcome; the rest get one more try.
      for (let i = 0; i < tools.length; i += 30) {
        await Promise.all(
          tools.slice(i, i + 30).map(async (call, j) => {
            try {
              await attempt(server, account.keys[j % account.keys.length] as string, call, 3000)
            } catch (error) {
              if (call.result !== undefined) problems.push(`${call.key}: no answer after the last restart (${String(error)})`)
            }
          }),
        )
      }
      log(`tools asked again at ${((Date.now() - started) / 1000).toFixed(1)} s`)
      // Let the dialer and the pay-link sender finish what recovery queued before the counts.
      await sleep(1500)
    } finally {
      // Killed too: a graceful stop would wait for requests parked on a key still in progress.
      await server.stop('SIGKILL')
    }

    log(`checks at ${((Date.now() - started) / 1000).toFixed(1)} s`)
    // The log: every acknowledged submission is on its lead's stream.
    const leadline = await openLeadline({ store: files.store, viewsPath: path.join(options.dir, 'check.views.db'), env: {} })
    const events = await leadline.store.readAll()
    await leadline.close()
    const onLog = new Map<string, string>()
    for (const event of events) {
      if (!event.stream.startsWith('lead-')) continue
      onLog.set(event.stream, (onLog.get(event.stream) ?? '') + JSON.stringify(event.data))
    }
    let missing = 0
    for (const [digits, subs] of submissions) {
      const stream = `lead-${account.accountId}-${digits}`
      const text = onLog.get(stream) ?? ''
      for (const sub of subs) if (!text.includes(`"${sub}"`)) missing++
    }
    if (missing > 0) problems.push(`${missing} acknowledged webhook submissions are not on the log`)

    // Every acknowledged tool result is on the log as its key's recorded outcome.
    const outcomes = new Map<string, unknown>()
    for (const event of events) {
      if (event.type === 'IdempotencyResultRecorded' && 'result' in (event.data as object)) outcomes.set(event.stream, (event.data as { result: unknown }).result)
    }
    for (const call of tools) {
      if (call.result === undefined) continue
      const recorded = outcomes.get(idempotencyStream(account.accountId, call.key))
      if (recorded === undefined) problems.push(`${call.key}: its acknowledged result is not recorded on the log`)
      else if (!isDeepStrictEqual(JSON.parse(JSON.stringify(recorded)), call.result)) {
        // The tool's output is shaped from the recorded outcome; compare the facts that matter.
        const facts = (o: any) => JSON.stringify([o?.call_id ?? o?.callId, o?.request_id ?? o?.requestId, o?.url, o?.status])
        if (facts(recorded) !== facts(call.result)) problems.push(`${call.key}: the log recorded ${JSON.stringify(recorded)}, the caller got ${JSON.stringify(call.result)}`)
      }
    }

    // No one rung twice: created calls per number at the fake Twilio.
    const callsPerNumber = new Map<string, number>()
    for (const request of twilio.callRequests()) {
      if (request.sid === undefined) continue
      const to = String(request.form.To)
      callsPerNumber.set(to, (callsPerNumber.get(to) ?? 0) + 1)
    }
    for (const [to, count] of callsPerNumber) if (count > 1) problems.push(`${to} was rung ${count} times`)

    // No one charged twice: Checkout Sessions per caller idempotency key (through the decision that made them).
    const keyOfRequest = new Map<string, string>()
    for (const event of events) {
      if (event.type === 'PaymentRequested') {
        const data = event.data as { requestId: string; idempotencyKey: string }
        keyOfRequest.set(data.requestId, data.idempotencyKey)
      }
    }
    const sessionsPerKey = new Map<string, Set<string>>()
    for (const session of stripe.sessions()) {
      const requestId = session.metadata.leadline_request_id ?? '?'
      const key = keyOfRequest.get(requestId) ?? `unknown request ${requestId}`
      const set = sessionsPerKey.get(key) ?? new Set<string>()
      set.add(session.id)
      sessionsPerKey.set(key, set)
    }
    for (const [key, sessions] of sessionsPerKey) if (sessions.size > 1) problems.push(`idempotency key ${key} made ${sessions.size} Checkout Sessions`)
    const requestsPerKey = new Map<string, number>()
    for (const key of keyOfRequest.values()) requestsPerKey.set(key, (requestsPerKey.get(key) ?? 0) + 1)
    for (const [key, count] of requestsPerKey) if (count > 1) problems.push(`idempotency key ${key} was decided ${count} times`)

    // No one texted twice: one text per pay-link.
    const textsPerBody = new Map<string, number>()
    for (const request of twilio.messageRequests()) {
      if (request.sid === undefined) continue
      const body = String(request.form.Body)
      textsPerBody.set(body, (textsPerBody.get(body) ?? 0) + 1)
    }
    for (const [body, count] of textsPerBody) if (count > 1) problems.push(`a pay-link was texted ${count} times: ${body}`)

    // The hash chain holds, and the read models the killed servers left equal a fresh rebuild.
    const verified = await verifyLog(files)
    if (verified.audit.code !== 0) problems.push(`audit verify failed:\n${verified.audit.out}`)
    if (verified.replay.code !== 0) problems.push(`replay --verify failed:\n${verified.replay.out}`)

    log(`checked at ${((Date.now() - started) / 1000).toFixed(1)} s; tool refusals seen: ${JSON.stringify(Object.fromEntries(refusals))}`)
    return {
      cycles: options.cycles,
      leadsAcknowledged: submissions.size,
      submissionsAcknowledged: [...submissions.values()].reduce((n, s) => n + s.size, 0),
      toolResultsAcknowledged: tools.filter((c) => c.result !== undefined).length,
      callbacksAcknowledged,
      callsPlaced: [...callsPerNumber.values()].reduce((a, b) => a + b, 0),
      checkoutSessions: stripe.sessions().length,
      textsSent: [...textsPerBody.values()].reduce((a, b) => a + b, 0),
      problems,
    }
  } finally {
    await twilio.close()
    await stripe.close()
  }
}
