/**
 * The simulated carrier, used when no Twilio credentials are set (the embedded default). It accepts
 * calls and texts like Twilio would (same id shapes, same `queued` status, same 21211 rejection of a
 * number that is not E.164), records them, and after `delayMs` reports the configured outcome through
 * `onStatus`. Nothing reaches a real phone: every id and result says `simulated`.
 */
import { randomBytes } from 'node:crypto'
import {
  CarrierError,
  carrierCallbackUrl,
  type CallStatusUpdate,
  type Carrier,
  type LiveCallInstructions,
  type PlaceCallRequest,
  type PlacedCall,
  type SendTextRequest,
  type SentText,
} from '../carrier.port.ts'

export type SimulatedAnswer = 'answered' | 'no-answer' | 'busy'
/** `cycle` goes answered, no-answer, busy, answered, … one call after another. */
export type SimulatedOutcome = SimulatedAnswer | 'cycle'
export const SIMULATED_OUTCOMES: readonly SimulatedOutcome[] = ['answered', 'no-answer', 'busy', 'cycle']

const CYCLE: readonly SimulatedAnswer[] = ['answered', 'no-answer', 'busy']
/** How long a simulated answered call lasts. */
export const SIMULATED_CALL_SECONDS = 42

export interface SimulatedCarrierOptions {
  outcome: SimulatedOutcome
  /** Wait before the call "rings" and its outcome is reported. */
  delayMs: number
  /** Receives each call's status updates, in order; the next waits for the previous to settle. */
  onStatus: (update: CallStatusUpdate) => Promise<void> | void
  /** Told when `onStatus` throws or rejects; the carrier carries on. Default: one line on stderr. */
  onError?: (error: unknown, update: CallStatusUpdate) => void
  /** Timestamps of records and updates. */
  clock?: () => Date
}

export interface SimulatedCallRecord {
  request: PlaceCallRequest
  /** Null when the call was rejected. */
  callId: string | null
  /** What the simulation will report (null when rejected). */
  outcome: SimulatedAnswer | null
  requestedAt: string
}

export interface SimulatedTextRecord {
  request: SendTextRequest
  messageId: string | null
  requestedAt: string
}

/** A live call told to do something else (the voicemail, a hang-up). */
export interface SimulatedCallUpdate {
  callId: string
  instructions: LiveCallInstructions
  requestedAt: string
}

export interface SimulatedCarrier extends Carrier {
  readonly name: 'simulated'
  /** Every live-call update it was asked for, in order. */
  updates(): SimulatedCallUpdate[]
  /** Every call it was asked to place, in order (rejected ones included, with a null id). */
  calls(): SimulatedCallRecord[]
  /** Every text it was asked to send, in order. */
  texts(): SimulatedTextRecord[]
  /** Cancels pending outcomes; later requests are refused. */
  close(): Promise<void>
}

const E164 = /^\+[1-9]\d{6,14}$/

/** Ids shaped like Twilio's (two letters + 32 characters) but plainly simulated: `CAsim…`, `SMsim…`. */
function simulatedId(prefix: 'CA' | 'SM'): string {
  return `${prefix}sim${randomBytes(15).toString('hex').slice(0, 29)}`
}

export function createSimulatedCarrier(options: SimulatedCarrierOptions): SimulatedCarrier {
  const clock = options.clock ?? (() => new Date())
  const onError =
    options.onError ??
    ((error: unknown, update: CallStatusUpdate) => {
      process.stderr.write(`simulated carrier: status handler failed for ${update.callId} (${update.status}): ${String(error)}\n`)
    })
  const callRecords: SimulatedCallRecord[] = []
  const updates: SimulatedCallUpdate[] = []
  const textRecords: SimulatedTextRecord[] = []
  const timers = new Set<NodeJS.Timeout>()
  let placed = 0
  let closed = false

  function nextOutcome(): SimulatedAnswer {
    const outcome = options.outcome === 'cycle' ? (CYCLE[placed % CYCLE.length] as SimulatedAnswer) : options.outcome
    placed++
    return outcome
  }

  /** Twilio's order: ringing, then in-progress (answered) and completed, or the final no-answer / busy. */
  function updatesFor(callId: string, outcome: SimulatedAnswer): Array<Omit<CallStatusUpdate, 'timestamp'>> {
    type Step = Pick<CallStatusUpdate, 'status' | 'answeredBy' | 'durationSeconds'>
    const steps: Step[] =
      outcome === 'answered'
        ? [
            { status: 'ringing' },
            { status: 'in-progress', answeredBy: 'human' },
            { status: 'completed', answeredBy: 'human', durationSeconds: SIMULATED_CALL_SECONDS },
          ]
        : [{ status: 'ringing' }, { status: outcome }]
    return steps.map((step, sequenceNumber) => ({ callId, carrier: 'simulated', ...step, sequenceNumber }))
  }

  async function deliver(callId: string, outcome: SimulatedAnswer): Promise<void> {
    for (const step of updatesFor(callId, outcome)) {
      if (closed) return
      const update: CallStatusUpdate = { ...step, timestamp: clock().toISOString() }
      try {
        await options.onStatus(update)
      } catch (error) {
        try {
          onError(error, update)
        } catch {
          // A failing reporter must not take the process down either.
        }
      }
    }
  }

  function refuseWhenClosed(what: string): void {
    if (closed) throw new CarrierError('rejected', `the simulated carrier is closed; the ${what} was not sent`)
  }

  return {
    name: 'simulated',

    async placeCall(r: PlaceCallRequest): Promise<PlacedCall> {
      refuseWhenClosed('call')
      const requestedAt = clock().toISOString()
      if (!E164.test(r.to)) {
        callRecords.push({ request: { ...r }, callId: null, outcome: null, requestedAt })
        throw new CarrierError('rejected', `simulated: invalid 'To' phone number ${r.to}`, { carrierCode: 21211 })
      }
      const callId = simulatedId('CA')
      const outcome = nextOutcome()
      callRecords.push({ request: { ...r }, callId, outcome, requestedAt })
      const timer = setTimeout(() => {
        timers.delete(timer)
        void deliver(callId, outcome)
      }, options.delayMs)
      timers.add(timer)
      return { callId, status: 'queued', carrier: 'simulated' }
    },

    async sendText(r: SendTextRequest): Promise<SentText> {
      refuseWhenClosed('text')
      const requestedAt = clock().toISOString()
      if (!E164.test(r.to)) {
        textRecords.push({ request: { ...r }, messageId: null, requestedAt })
        throw new CarrierError('rejected', `simulated: the 'To' number ${r.to} is not a valid phone number`, { carrierCode: 21211 })
      }
      const messageId = simulatedId('SM')
      textRecords.push({ request: { ...r }, messageId, requestedAt })
      return { messageId, status: 'queued', carrier: 'simulated' }
    },

    // Never fetched: the simulation reports through `onStatus`. Named like Twilio's, they answer 404.
    callbackUrls: (publicUrl, decisionId) => ({
      answerUrl: carrierCallbackUrl(publicUrl, 'simulated', 'answer', { decision: decisionId }),
      statusCallbackUrl: carrierCallbackUrl(publicUrl, 'simulated', 'status'),
    }),

    async updateCall(callId: string, instructions: LiveCallInstructions): Promise<void> {
      refuseWhenClosed('call update')
      updates.push({ callId, instructions, requestedAt: clock().toISOString() })
    },

    updates: () => updates.map((u) => ({ ...u })),
    calls: () => callRecords.map((c) => ({ ...c, request: { ...c.request } })),
    texts: () => textRecords.map((m) => ({ ...m, request: { ...m.request } })),

    async close(): Promise<void> {
      closed = true
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
    },
  }
}
