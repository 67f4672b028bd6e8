/**
 * bench:assistant's other side, in a process of its own so that it does not take the server's
 * thread: the fake model (on 127.0.0.1, answering at once) and the ConversationRelay clients, one
 * per call, signing their handshakes as Twilio does. Forked by bench/assistant.bench.ts, spoken to
 * over IPC:
 *   → { modelUrl }                          once the fake model listens
 *   ← { relays, via, authToken, perCall, gapMs }
 *   → { latencies }                         each turn: prompt sent → first `text` token, in ms
 *   → { callers }                           this process's own load (its event-loop delay, CPU)
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { connectRelay } from '../test/doubles/fake-conversation-relay.ts'
import { startFakeModel } from '../test/doubles/fake-model.ts'

interface Run {
  readonly relays: ReadonlyArray<{ readonly url: string; readonly sid: string }>
  readonly via: string
  readonly authToken: string
  readonly perCall: number
  readonly gapMs: number
}

const send = (message: unknown) => new Promise<void>((resolve, reject) => process.send?.(message, (error: Error | null) => (error ? reject(error) : resolve())))

const model = await startFakeModel()
process.once('message', (run: Run) => {
  void (async () => {
    const relays = await Promise.all(run.relays.map(async ({ url, sid }) => {
      const relay = await connectRelay({ url, via: run.via, authToken: run.authToken })
      relay.setup(sid)
      return relay
    }))
    const latencies: number[] = []
    const delay = monitorEventLoopDelay({ resolution: 1 })
    delay.enable()
    const cpuBefore = process.cpuUsage()
    // Each call takes its turns one after another (after --gap-ms of "the lead speaking"); the calls run at once.
    await Promise.all(relays.map(async (relay, i) => {
      // Callers start apart, as calls answered at different moments do.
      await new Promise((resolve) => setTimeout(resolve, (run.gapMs * i) / relays.length))
      for (let turn = 0; turn < run.perCall; turn++) {
        const sent = performance.now()
        const first = relay.next((m) => m.type === 'text', 10_000)
        relay.prompt(`Turn ${turn}: yes, tell me more.`)
        await first
        latencies.push(performance.now() - sent)
        await relay.turn(10_000)
        if (run.gapMs > 0) await new Promise((resolve) => setTimeout(resolve, run.gapMs))
      }
    }))
    delay.disable()
    const cpu = process.cpuUsage(cpuBefore)
    for (const relay of relays) relay.close()
    await send({ latencies, callers: { loopDelayP99Ms: delay.percentile(99) / 1e6, loopDelayMaxMs: delay.max / 1e6, cpuMs: Math.round((cpu.user + cpu.system) / 1000) } })
    await model.close()
    process.exit(0)
  })().catch((error: unknown) => {
    process.stderr.write(`bench:assistant callers: ${String(error instanceof Error ? error.stack : error)}\n`)
    process.exit(1)
  })
})
await send({ modelUrl: model.openaiUrl })
