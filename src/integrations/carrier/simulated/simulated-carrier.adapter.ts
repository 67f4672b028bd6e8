/**
 * The simulated carrier, used when no Twilio credentials are set (the embedded default). It accepts
 * calls and texts like Twilio would (same id shapes, same `queued` status, same 21211 rejection of a
 * number that is not E.164), records them, and after `delayMs` plays the call through `reports`, the
 * way Twilio's callbacks reach Leadline: its statuses, and with `answers` machine detection's verdict,
 * the menu key a person presses and the owner's leg. Nothing reaches a real phone: every id and
 * result says `simulated`.
 */
import { randomBytes } from 'node:crypto'
import {
  CarrierError,
  carrierCallbackUrl,
  type AgentKeyAnswer,
  type CallReports,
  type CallStatusUpdate,
  type Carrier,
  type LiveCallInstructions,
  type MenuAnswer,
  type PlaceCallRequest,
  type PlacedCall,
  type SendTextRequest,
  type SentText,
  type SimulatedInboundCall,
  type SimulatedInboundScenario,
} from '../carrier.port.ts'
import { playInboundCall } from './simulated-inbound-call.ts'
import { DEFAULT_SIMULATED_SEED, answerDrawer, type SimulatedAnswers, type SimulatedWho } from './simulated-answers.ts'
import { callerDrawer, type SimulatedPersona } from './simulated-caller.ts'
import { simulatedNumbers } from './simulated-numbers.ts'

export type SimulatedAnswer = 'answered' | 'no-answer' | 'busy'
/** `cycle` goes answered, no-answer, busy, answered, … one call after another. */
export type SimulatedOutcome = SimulatedAnswer | 'cycle'
export const SIMULATED_OUTCOMES: readonly SimulatedOutcome[] = ['answered', 'no-answer', 'busy', 'cycle']

const CYCLE: readonly SimulatedAnswer[] = ['answered', 'no-answer', 'busy']
/** How long a simulated answered call lasts. */
export const SIMULATED_CALL_SECONDS = 42
/** How long a simulated answering machine's call lasts: its greeting and the voicemail. */
export const SIMULATED_MACHINE_SECONDS = 25
/** How long the owner talks to the lead after a simulated `1`. */
export const SIMULATED_OWNER_SECONDS = 30
/** What simulated machine detection says of a machine: it heard the greeting to the beep, so a voicemail can be left. */
export const SIMULATED_MACHINE_VERDICT = 'machine_end_beep'

export interface SimulatedCarrierOptions {
  /** Every call's outcome, when `answers` is not given (LEADLINE_SIMULATED_OUTCOME). */
  outcome: SimulatedOutcome
  /** Who answers each call and which key a person presses, drawn from seeded weights (LEADLINE_SIMULATED_ANSWERS). */
  answers?: SimulatedAnswers
  /** Wait before the call "rings" and its outcome is reported. */
  delayMs: number
  /**
   * Receives each call's reports, in order; the next waits for the previous to settle. Given here when they
   * exist before the carrier (tests), else through `reportTo` (the composition root). Calls are refused until then.
   */
  reports?: CallReports
  /** Told when a report throws or rejects; the carrier carries on. Default: one line on stderr. */
  onError?: (error: unknown, report: SimulatedReport) => void
  /** Timestamps of records and updates. */
  clock?: () => Date
}

/** One thing the simulation reports about a call, through the `CallReports` method of the same name. */
export type SimulatedReport =
  | { readonly kind: 'status'; readonly update: CallStatusUpdate }
  | { readonly kind: 'answered_by'; readonly callId: string; readonly answeredBy: string }
  | { readonly kind: 'menu_key'; readonly callId: string; readonly decisionId: string; readonly digit: string }
  | { readonly kind: 'owner_connect'; readonly callId: string; readonly decisionId: string; readonly status: string; readonly durationSeconds: number }
  /** Agent-first: the key the owner pressed ('' for none), and how the dial of the lead ended. */
  | { readonly kind: 'agent_key'; readonly callId: string; readonly decisionId: string; readonly digit: string }
  | { readonly kind: 'lead_dial'; readonly callId: string; readonly decisionId: string; readonly status: string }
  /** `--on-answer assistant`: a seeded simulated caller talks with the assistant (prepare, open, turns, close). */
  | { readonly kind: 'assistant'; readonly callId: string; readonly decisionId: string }

export interface SimulatedCallRecord {
  request: PlaceCallRequest
  /** Null when the call was rejected. */
  callId: string | null
  /** What the simulation will report (null when rejected): an outcome, or with `answers` who picks up. */
  outcome: SimulatedAnswer | SimulatedWho | null
  /** The key a person will press, with `answers`; null for none. */
  key: string | null
  requestedAt: string
}

export interface SimulatedTextRecord {
  request: SendTextRequest
  messageId: string | null
  requestedAt: string
}

/** How a simulated assistant call went (kept in memory for tests and demos; never logged). */
export interface SimulatedAssistantCall {
  readonly callId: string
  readonly decisionId: string
  /** Null when the assistant refused the call before anyone spoke. */
  readonly persona: SimulatedPersona | null
  /** What the simulated caller said or pressed, turn by turn. */
  readonly said: readonly string[]
  /** Each of the assistant's turns, its tokens joined: the greeting first. */
  readonly heard: readonly string[]
  /** `ended` (the assistant ended it), `transfer` (to `handoffTo`), `refused` (before the talk), `hung_up` (the caller ran out of lines). */
  readonly end: 'ended' | 'transfer' | 'refused' | 'hung_up'
  readonly handoffTo: string | null
}

/** The turns a simulated caller takes at most before hanging up. */
export const SIMULATED_MAX_TURNS = 12

/** A live call told to do something else (the voicemail, a hang-up). */
export interface SimulatedCallUpdate {
  callId: string
  instructions: LiveCallInstructions
  requestedAt: string
}

export interface SimulatedCarrier extends Carrier {
  readonly name: 'simulated'
  reportTo(reports: CallReports): void
  /** Every live-call update it was asked for, in order. */
  updates(): SimulatedCallUpdate[]
  /** Every call it was asked to place, in order (rejected ones included, with a null id). */
  calls(): SimulatedCallRecord[]
  /** Every text it was asked to send, in order. */
  texts(): SimulatedTextRecord[]
  /** Every assistant call it played, in the order they ended. */
  assistantCalls(): SimulatedAssistantCall[]
  /** Cancels pending outcomes; later requests are refused. */
  close(): Promise<void>
}

const E164 = /^\+[1-9]\d{6,14}$/

/** Ids shaped like Twilio's (two letters + 32 characters) but plainly simulated: `CAsim…`, `SMsim…`. */
function simulatedId(prefix: 'CA' | 'SM'): string {
  return `${prefix}sim${randomBytes(15).toString('hex').slice(0, 29)}`
}

type StatusStep = { readonly kind: 'status' } & Pick<CallStatusUpdate, 'status' | 'answeredBy' | 'durationSeconds'>
/** A report before its timestamp and sequence number; an owner's leg is only reported after a key that connected. */
type Step = StatusStep | Exclude<SimulatedReport, { kind: 'status' }>

/** Twilio's order: ringing, then in-progress (answered) and completed, or the final no-answer / busy. */
function outcomeSteps(outcome: SimulatedAnswer): Step[] {
  return outcome === 'answered'
    ? [
        { kind: 'status', status: 'ringing' },
        { kind: 'status', status: 'in-progress', answeredBy: 'human' },
        { kind: 'status', status: 'completed', answeredBy: 'human', durationSeconds: SIMULATED_CALL_SECONDS },
      ]
    : [
        { kind: 'status', status: 'ringing' },
        { kind: 'status', status: outcome },
      ]
}

/**
 * A call as Twilio with async machine detection plays it: the answer's status first, the verdict
 * after it, then the person's key (and the owner's leg when it connected), then the end. Without
 * machine detection there is no verdict: whoever picks up is an answer, as Leadline sees it.
 */
function answerSteps(callId: string, decisionId: string, who: SimulatedWho, key: string | null, detect: boolean): Step[] {
  if (who === 'none' || who === 'busy') return outcomeSteps(who === 'none' ? 'no-answer' : 'busy')
  const steps: Step[] = [
    { kind: 'status', status: 'ringing' },
    { kind: 'status', status: 'in-progress' },
  ]
  if (who === 'machine') {
    if (detect) steps.push({ kind: 'answered_by', callId, answeredBy: SIMULATED_MACHINE_VERDICT })
    steps.push({ kind: 'status', status: 'completed', durationSeconds: SIMULATED_MACHINE_SECONDS })
    return steps
  }
  if (detect) steps.push({ kind: 'answered_by', callId, answeredBy: 'human' })
  if (key !== null) {
    steps.push({ kind: 'menu_key', callId, decisionId, digit: key })
    steps.push({ kind: 'owner_connect', callId, decisionId, status: 'completed', durationSeconds: SIMULATED_OWNER_SECONDS })
  }
  steps.push({ kind: 'status', status: 'completed', durationSeconds: SIMULATED_CALL_SECONDS })
  return steps
}

/** How the dial of the lead ends, by who picks up (no machine detection on that leg). */
const LEAD_DIAL: Readonly<Record<SimulatedWho, string>> = { human: 'completed', machine: 'completed', none: 'no-answer', busy: 'busy' }

export function createSimulatedCarrier(options: SimulatedCarrierOptions): SimulatedCarrier {
  const clock = options.clock ?? (() => new Date())
  let reports: CallReports | null = options.reports ?? null
  const onError =
    options.onError ??
    ((error: unknown, report: SimulatedReport) => {
      const what = report.kind === 'status' ? `status ${report.update.status} of ${report.update.callId}` : `${report.kind} of ${report.callId}`
      process.stderr.write(`simulated carrier: the ${what} was not handled: ${String(error)}\n`)
    })
  const callRecords: SimulatedCallRecord[] = []
  const updates: SimulatedCallUpdate[] = []
  const textRecords: SimulatedTextRecord[] = []
  const timers = new Set<NodeJS.Timeout>()
  const drawAnswer = options.answers ? answerDrawer(options.answers) : null
  const drawCaller = callerDrawer(options.answers?.seed ?? DEFAULT_SIMULATED_SEED)
  const assistantCalls: SimulatedAssistantCall[] = []
  let placed = 0
  let closed = false

  function nextOutcome(): { outcome: SimulatedAnswer | SimulatedWho; key: string | null } {
    if (drawAnswer) {
      const { who, key } = drawAnswer()
      return { outcome: who, key }
    }
    const outcome = options.outcome === 'cycle' ? (CYCLE[placed % CYCLE.length] as SimulatedAnswer) : options.outcome
    placed++
    return { outcome, key: null }
  }

  /** Only called for a placed call, and calls are placed only once there are reports. */
  function to(): CallReports {
    return reports as CallReports
  }

  async function report(step: SimulatedReport): Promise<MenuAnswer | AgentKeyAnswer | null | undefined> {
    const reports = to()
    switch (step.kind) {
      case 'status':
        await reports.recordCallStatus(step.update)
        return undefined
      case 'answered_by':
        await reports.recordAnsweredBy(step.callId, step.answeredBy)
        return undefined
      case 'menu_key':
        return reports.pressMenuKey(step.decisionId, step.digit)
      case 'owner_connect':
        await reports.recordOwnerConnect(step.decisionId, step.status, step.durationSeconds)
        return undefined
      case 'agent_key':
        return reports.pressAgentKey(step.decisionId, step.callId, step.digit)
      case 'lead_dial':
        await reports.recordLeadDial(step.decisionId, step.status)
        return undefined
      case 'assistant':
        await converse(step.callId, step.decisionId)
        return undefined
    }
  }

  /** A simulated caller and the assistant, as ConversationRelay would carry them: the greeting, then turn by turn. */
  async function converse(callId: string, decisionId: string): Promise<void> {
    const record = (fields: Omit<SimulatedAssistantCall, 'callId' | 'decisionId'>) => assistantCalls.push({ callId, decisionId, ...fields })
    const reports = to()
    const prepared = await reports.prepareAssistant(decisionId, callId)
    if (prepared === null) return
    if ('refuse' in prepared) return void record({ persona: null, said: [], heard: [prepared.refuse.goodbye], end: 'refused', handoffTo: null })
    const opened = await reports.openAssistant(decisionId, callId)
    if (opened === null) return
    if ('refuse' in opened) return void record({ persona: null, said: [], heard: [prepared.greeting, opened.refuse.goodbye], end: 'refused', handoffTo: null })
    const { conversation } = opened
    const { persona, lines } = drawCaller()
    const said: string[] = []
    const heard: string[] = [prepared.greeting]
    let end: SimulatedAssistantCall['end'] = 'hung_up'
    let handoffTo: string | null = null
    try {
      for (let turn = 0; turn < SIMULATED_MAX_TURNS && end === 'hung_up' && !closed; turn++) {
        const line = lines[Math.min(turn, lines.length - 1)] as (typeof lines)[number]
        said.push('say' in line ? line.say : `key ${line.key}`)
        let reply = ''
        for await (const output of 'say' in line ? conversation.prompt(line.say) : conversation.dtmf(line.key)) {
          if (output.type === 'text') reply += output.token
          else {
            end = output.handoff === null ? 'ended' : 'transfer'
            handoffTo = output.handoff?.to ?? null
          }
        }
        heard.push(reply)
      }
    } finally {
      await conversation.close(end === 'hung_up' ? 'socket_dropped' : 'ended', end === 'hung_up' ? 'the simulated caller hung up' : undefined)
    }
    record({ persona, said, heard, end, handoffTo })
  }

  /**
   * `--on-answer assistant`: a person who picks up talks with the assistant instead of hearing the
   * menu (their drawn key is not pressed), right after the answer (and machine detection's verdict).
   */
  async function forAssistant(callId: string, decisionId: string, steps: readonly Step[]): Promise<readonly Step[]> {
    const answered = steps.findIndex((step) => step.kind === 'status' && step.status === 'in-progress')
    if (answered < 0 || steps.some((step) => step.kind === 'answered_by' && step.answeredBy !== 'human')) return steps
    const call = await to().answeredCall(decisionId).catch(() => null)
    if (call?.onAnswer.kind !== 'assistant') return steps
    const after = Math.max(answered, steps.findIndex((step) => step.kind === 'answered_by'))
    return steps.flatMap((step, i): Step[] => {
      if (step.kind === 'menu_key' || step.kind === 'owner_connect') return []
      return i === after ? [step, { kind: 'assistant', callId, decisionId }] : [step]
    })
  }

  /**
   * Agent-first (the account's on-answer): the person who answers is the owner, their key goes to
   * `pressAgentKey` ('' for none), and when Leadline dials the lead, a second draw says how that went.
   */
  async function forAgentFirst(callId: string, decisionId: string, steps: readonly Step[]): Promise<readonly Step[]> {
    if (!drawAnswer || !steps.some((step) => step.kind === 'status' && step.status === 'in-progress')) return steps
    const call = await to().answeredCall(decisionId).catch(() => null)
    if (call?.onAnswer.kind !== 'agent-first') return steps
    const human = steps.some((step) => step.kind === 'menu_key') || !steps.some((step) => step.kind === 'answered_by' && step.answeredBy !== 'human')
    const pressed = steps.find((step) => step.kind === 'menu_key')
    return steps.flatMap((step): Step[] => {
      if (step.kind === 'menu_key') return [{ kind: 'agent_key', callId, decisionId, digit: step.digit }, { kind: 'lead_dial', callId, decisionId, status: LEAD_DIAL[drawAnswer().who] }]
      if (step.kind === 'owner_connect') return []
      // A person who pressed nothing: Twilio posts the Gather's empty result when its time runs out.
      if (human && pressed === undefined && step.kind === 'status' && step.status === 'completed') return [{ kind: 'agent_key', callId, decisionId, digit: '' }, step]
      return [step]
    })
  }

  async function deliver(callId: string, decisionId: string, planned: readonly Step[]): Promise<void> {
    const steps = await forAssistant(callId, decisionId, await forAgentFirst(callId, decisionId, planned))
    let sequenceNumber = 0
    let menu: MenuAnswer | AgentKeyAnswer | null = null
    for (const step of steps) {
      if (closed) return
      if (step.kind === 'owner_connect' && menu?.choice !== 'connect') continue
      if (step.kind === 'lead_dial' && menu?.choice !== 'dial') continue
      const full: SimulatedReport =
        step.kind === 'status'
          ? { kind: 'status', update: { callId, carrier: 'simulated', ...withoutKind(step), sequenceNumber: sequenceNumber++, timestamp: clock().toISOString() } }
          : step
      try {
        const answer = await report(full)
        if (full.kind === 'menu_key' || full.kind === 'agent_key') menu = answer ?? null
      } catch (error) {
        try {
          onError(error, full)
        } catch {
          // A failing reporter must not take the process down either.
        }
      }
    }
  }

  function refuseWhenClosed(what: string): void {
    if (closed) throw new CarrierError('rejected', `the simulated carrier is closed; the ${what} was not sent`)
  }

  /** How an inbound call with the assistant went, as lines of its steps: never what was said (a transcript stays on the log). */
  async function conversed(callId: string, decisionId: string): Promise<string[]> {
    await converse(callId, decisionId)
    const talk = assistantCalls.filter((c) => c.callId === callId).at(-1)
    if (talk === undefined) return ['the assistant did not take the call']
    const turns = `the simulated caller and the assistant talk (${talk.said.length} turns)`
    return [turns, talk.end === 'transfer' ? `the assistant hands the call to ${talk.handoffTo ?? 'the owner'}` : `the call ends (${talk.end})`]
  }

  return {
    name: 'simulated',

    reportTo(given: CallReports): void {
      reports = given
    },

    async simulateInboundCall(call: { readonly from: string; readonly to: string }, scenario: SimulatedInboundScenario): Promise<SimulatedInboundCall> {
      refuseWhenClosed('inbound call')
      if (reports === null || reports.inbound === undefined) throw new CarrierError('rejected', 'simulated: this server answers no inbound calls')
      return playInboundCall(reports.inbound, { callId: simulatedId('CA'), ...call }, scenario, conversed)
    },

    async placeCall(r: PlaceCallRequest): Promise<PlacedCall> {
      refuseWhenClosed('call')
      // Refused before it is recorded: nothing would ever report how it went.
      if (reports === null) throw new CarrierError('rejected', 'the simulated carrier has no reports to play its calls into yet (reportTo); the call was not placed')
      const requestedAt = clock().toISOString()
      if (!E164.test(r.to)) {
        callRecords.push({ request: { ...r }, callId: null, outcome: null, key: null, requestedAt })
        throw new CarrierError('rejected', `simulated: invalid 'To' phone number ${r.to}`, { carrierCode: 21211 })
      }
      const callId = simulatedId('CA')
      const { outcome, key } = nextOutcome()
      callRecords.push({ request: { ...r }, callId, outcome, key, requestedAt })
      const steps = options.answers
        ? answerSteps(callId, r.reference, outcome as SimulatedWho, key, r.detectAnsweringMachine === true)
        : outcomeSteps(outcome as SimulatedAnswer)
      const timer = setTimeout(() => {
        timers.delete(timer)
        void deliver(callId, r.reference, steps)
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

    // Never fetched: the simulation reports through `reports`. Named like Twilio's, they answer 404.
    callbackUrls: (publicUrl, decisionId) => ({
      answerUrl: carrierCallbackUrl(publicUrl, 'simulated', 'answer', { decision: decisionId }),
      statusCallbackUrl: carrierCallbackUrl(publicUrl, 'simulated', 'status'),
    }),

    async updateCall(callId: string, instructions: LiveCallInstructions): Promise<void> {
      refuseWhenClosed('call update')
      updates.push({ callId, instructions, requestedAt: clock().toISOString() })
    },

    ...simulatedNumbers(refuseWhenClosed),

    updates: () => updates.map((u) => ({ ...u })),
    calls: () => callRecords.map((c) => ({ ...c, request: { ...c.request } })),
    texts: () => textRecords.map((m) => ({ ...m, request: { ...m.request } })),
    assistantCalls: () => assistantCalls.map((c) => ({ ...c, said: [...c.said], heard: [...c.heard] })),

    async close(): Promise<void> {
      closed = true
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
    },
  }
}

function withoutKind({ kind: _, ...rest }: StatusStep): Omit<StatusStep, 'kind'> {
  return rest
}
