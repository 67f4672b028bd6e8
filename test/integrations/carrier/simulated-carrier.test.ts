/**
 * The simulated carrier: the carrier contract, then its outcomes, their order, and closing; then the
 * answers it draws (who picks up, which key) and what it reports for each, in order.
 */
import t from 'tap'
import type { Test } from 'tap'
import { CarrierError, type CallReports, type CallStatusUpdate, type MenuAnswer } from '../../../src/integrations/carrier/carrier.port.ts'
import {
  SIMULATED_CALL_SECONDS,
  createSimulatedCarrier,
  type SimulatedCarrier,
  type SimulatedCarrierOptions,
} from '../../../src/integrations/carrier/simulated/simulated-carrier.adapter.ts'
import { CALL, TEXT, carrierContract } from './carrier.contract.ts'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Call reports that hand each status to `onStatus`; the other reports answer as for a call that is not Leadline's. */
function statusReports(onStatus: (update: CallStatusUpdate) => unknown): CallReports {
  return {
    recordCallStatus: async (update) => {
      await onStatus(update)
      return true
    },
    recordAnsweredBy: async () => false,
    answeredCall: async () => null,
    pressMenuKey: async () => null,
    recordOwnerConnect: async () => false,
    pressAgentKey: async () => null,
    recordLeadDial: async () => false,
    recordInboundText: async () => false,
    recordTextStatus: async () => false,
    prepareAssistant: async () => null,
    openAssistant: async () => null,
  }
}

type OpenOptions = Partial<Omit<SimulatedCarrierOptions, 'reports'>> & { onStatus?: (update: CallStatusUpdate) => unknown }

function open(t: Test, options: OpenOptions = {}): { carrier: SimulatedCarrier; updates: CallStatusUpdate[] } {
  const updates: CallStatusUpdate[] = []
  const { onStatus = (u: CallStatusUpdate) => void updates.push(u), ...rest } = options
  const carrier = createSimulatedCarrier({ outcome: 'answered', delayMs: 10, reports: statusReports(onStatus), ...rest })
  t.teardown(() => carrier.close())
  return { carrier, updates }
}

async function until(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await sleep(5)
  }
}

void carrierContract(t, {
  name: 'simulated',
  async open(t) {
    const { carrier } = open(t, { delayMs: 60_000 })
    return {
      carrier,
      observedCalls: () =>
        carrier
          .calls()
          .filter((c) => c.callId !== null)
          .map(({ request: r }) => ({ from: r.from, to: r.to, answerUrl: r.answerUrl, statusCallbackUrl: r.statusCallbackUrl })),
      observedTexts: () =>
        carrier
          .texts()
          .filter((m) => m.messageId !== null)
          .map(({ request: r }) => ({
            from: r.from,
            to: r.to,
            body: r.body,
            ...(r.statusCallbackUrl !== undefined ? { statusCallbackUrl: r.statusCallbackUrl } : {}),
            ...(r.messagingService !== undefined ? { messagingService: r.messagingService } : {}),
          })),
    }
  },
})

t.test('ids are plainly simulated', async (t) => {
  const { carrier } = open(t)
  const call = await carrier.placeCall(CALL)
  const text = await carrier.sendText(TEXT)
  t.match(call, { callId: /^CAsim[0-9a-f]{29}$/, carrier: 'simulated' })
  t.match(text, { messageId: /^SMsim[0-9a-f]{29}$/, carrier: 'simulated' })
})

t.test('answered: ringing, in-progress, completed, in order, numbered, stamped by the clock', async (t) => {
  let tick = 0
  const clock = () => new Date(Date.UTC(2026, 2, 2, 15, 0, tick++))
  const { carrier, updates } = open(t, { outcome: 'answered', clock })
  const { callId } = await carrier.placeCall(CALL)
  await until(() => updates.length === 3)
  t.same(updates, [
    { callId, carrier: 'simulated', status: 'ringing', sequenceNumber: 0, timestamp: '2026-03-02T15:00:01.000Z' },
    { callId, carrier: 'simulated', status: 'in-progress', answeredBy: 'human', sequenceNumber: 1, timestamp: '2026-03-02T15:00:02.000Z' },
    {
      callId,
      carrier: 'simulated',
      status: 'completed',
      answeredBy: 'human',
      durationSeconds: SIMULATED_CALL_SECONDS,
      sequenceNumber: 2,
      timestamp: '2026-03-02T15:00:03.000Z',
    },
  ])
  t.equal(carrier.calls()[0]?.requestedAt, '2026-03-02T15:00:00.000Z')
})

t.test('no-answer and busy: ringing then the final status', async (t) => {
  for (const outcome of ['no-answer', 'busy'] as const) {
    const { carrier, updates } = open(t, { outcome })
    await carrier.placeCall(CALL)
    await until(() => updates.length === 2)
    await sleep(30)
    t.same(
      updates.map((u) => [u.status, u.sequenceNumber]),
      [
        ['ringing', 0],
        [outcome, 1],
      ],
      outcome,
    )
  }
})

t.test('cycle: answered, no-answer, busy, answered', async (t) => {
  const { carrier, updates } = open(t, { outcome: 'cycle' })
  const ids: string[] = []
  for (let i = 0; i < 4; i++) ids.push((await carrier.placeCall({ ...CALL, reference: `dec_${i}` })).callId)
  await until(() => updates.length === 3 + 2 + 2 + 3)
  const finalOf = (id: string) => updates.filter((u) => u.callId === id).at(-1)?.status
  t.same(ids.map(finalOf), ['completed', 'no-answer', 'busy', 'completed'])
  t.same(
    carrier.calls().map((c) => c.outcome),
    ['answered', 'no-answer', 'busy', 'answered'],
  )
})

t.test('nothing happens before delayMs', async (t) => {
  const { carrier, updates } = open(t, { delayMs: 120 })
  const started = Date.now()
  await carrier.placeCall(CALL)
  await sleep(60)
  t.same(updates, [], 'still quiet halfway')
  await until(() => updates.length === 3)
  t.ok(Date.now() - started >= 115, 'first update after the delay')
})

t.test('a slow handler is awaited: the next update waits for it', async (t) => {
  const seen: string[] = []
  const { carrier } = open(t, {
    onStatus: async (u) => {
      seen.push(`start ${u.status}`)
      await sleep(u.status === 'ringing' ? 40 : 1)
      seen.push(`end ${u.status}`)
    },
  })
  await carrier.placeCall(CALL)
  await until(() => seen.length === 6)
  t.same(seen, ['start ringing', 'end ringing', 'start in-progress', 'end in-progress', 'start completed', 'end completed'])
})

t.test('a failing handler is reported through onError and the remaining updates still arrive', async (t) => {
  const errors: Array<[unknown, string]> = []
  const delivered: string[] = []
  const { carrier } = open(t, {
    onStatus: async (u) => {
      delivered.push(u.status)
      if (u.status === 'ringing') throw new Error('projection is down')
      if (u.status === 'in-progress') return Promise.reject(new Error('still down'))
    },
    onError: (error, report) => {
      errors.push([error, report.kind === 'status' ? report.update.status : report.kind])
    },
  })
  await carrier.placeCall(CALL)
  await until(() => delivered.length === 3)
  t.same(delivered, ['ringing', 'in-progress', 'completed'])
  t.same(
    errors.map(([e, status]) => [(e as Error).message, status]),
    [
      ['projection is down', 'ringing'],
      ['still down', 'in-progress'],
    ],
  )
})

t.test('even a throwing onError does not escape', async (t) => {
  const delivered: string[] = []
  const { carrier } = open(t, {
    onStatus: (u) => {
      delivered.push(u.status)
      throw new Error('boom')
    },
    onError: () => {
      throw new Error('reporter broke too')
    },
  })
  await carrier.placeCall(CALL)
  await until(() => delivered.length === 3)
  t.pass('no unhandled rejection took the test down')
})

t.test('close cancels pending outcomes and refuses new requests', async (t) => {
  const { carrier, updates } = open(t, { delayMs: 40 })
  await carrier.placeCall(CALL)
  await carrier.close()
  await sleep(100)
  t.same(updates, [], 'the pending call never reports')
  t.match(await carrier.placeCall(CALL).catch((e: unknown) => e), { failure: 'rejected' })
  t.match(await carrier.sendText(TEXT).catch((e: unknown) => e), { failure: 'rejected' })
})

t.test('close mid-delivery stops the remaining updates', async (t) => {
  const { carrier, updates } = open(t, {
    onStatus: async (u) => {
      updates.push(u)
      if (u.status === 'ringing') {
        await carrier.close()
      }
    },
  })
  await carrier.placeCall(CALL)
  await until(() => updates.length >= 1)
  await sleep(50)
  t.same(
    updates.map((u) => u.status),
    ['ringing'],
  )
})

t.test('records every call and text it was asked for, rejected ones included', async (t) => {
  const { carrier } = open(t, { delayMs: 60_000 })
  const placed = await carrier.placeCall({ ...CALL, timeoutSeconds: 20, detectAnsweringMachine: true })
  await t.rejects(carrier.placeCall({ ...CALL, to: '12' }), CarrierError)
  const sent = await carrier.sendText(TEXT)
  t.match(carrier.calls(), [
    { request: { ...CALL, timeoutSeconds: 20, detectAnsweringMachine: true }, callId: placed.callId, outcome: 'answered', key: null },
    { request: { to: '12' }, callId: null, outcome: null, key: null },
  ])
  t.match(carrier.texts(), [{ request: TEXT, messageId: sent.messageId }])
  const snapshot = carrier.calls()
  snapshot[0]!.request.to = '+19999999999'
  t.equal(carrier.calls()[0]?.request.to, CALL.to, 'records cannot be changed from outside')
})

t.test('opened before the reports exist: no call is placed until reportTo hands them over, then calls play into them', async (t) => {
  const carrier = createSimulatedCarrier({ outcome: 'busy', delayMs: 1 })
  t.teardown(() => carrier.close())
  await t.rejects(carrier.placeCall(CALL), { failure: 'rejected', message: /no reports/ })
  t.same(carrier.calls(), [], 'a refused call is not recorded as placed')
  const updates: CallStatusUpdate[] = []
  carrier.reportTo(statusReports((u) => void updates.push(u)))
  const { callId } = await carrier.placeCall(CALL)
  await until(() => updates.length >= 2)
  t.same(updates.map((u) => [u.callId, u.status]), [[callId, 'ringing'], [callId, 'busy']])
})
