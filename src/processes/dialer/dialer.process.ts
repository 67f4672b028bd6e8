/**
 * The dialer: performs every call decision on the log once (claim → carrier → record), paced per
 * account. A decision is claimed with an append before the carrier is asked, so it rings at most once
 * on any node, also across crashes (an attempt left without an outcome becomes "outcome unknown",
 * never a redial). The process runner feeds it `CallDecided`; place_call dials its own decision at once.
 */
import type { RecordedEvent } from '../../domain/event.ts'
import { leadDecider } from '../../domain/lead/lead.decider.ts'
import type { CallRecord } from '../../domain/lead/calls/calls.decider.ts'
import { callSettings, ownerLegNumber } from '../../domain/lead/calls/agent-first.ts'
import { CALL_REFUSALS } from '../../domain/dialing/may-call.ts'
import { parseLeadStream, type CallDecided } from '../../domain/lead/lead.events.ts'
import { CALL_EFFECT } from '../../domain/lead/calls/calls.events.ts'
import { StoreUnavailableError } from '../../eventstore/event-store.port.ts'
import type { Carrier, PlaceCallRequest } from '../../integrations/carrier/carrier.port.ts'
import type { Accounts } from '../../commands/accounts.ts'
import type { Reaction } from '../process-runner.ts'
import { EffectProcess, NODE_ID, pause, withCarrierRetries, type EffectProcessOptions, type StuckClaim } from '../effect-process.ts'
import { Pacer, type Started } from './pacer.ts'
import type { CreateEffectProcess } from '../effect-processes.ts'
import { RESTORED_FROM_BACKUP } from '../../domain/restore/log-restore.ts'
import type { UnclaimedDecision } from '../../../projections/claims/claims.queries.ts'

/** Failures that are the call check's refusals (the carrier was never asked), not the carrier's. */
const NOT_DIALED = CALL_REFUSALS
/** Waits before dialing a decision again after the log refused a write: about 15 minutes in all, then the next start. */
const STORE_RETRIES_MS = [250, 500, 1000, 2000, 5000, 10_000, 30_000, 60_000, 120_000, 300_000, 480_000]
/**
 * At most this many of an account's decisions wait in memory for their turn; the rest wait on the log
 * (unclaimed in the claims read model) and are read back a page at a time, oldest first, once fewer
 * than BACKLOG_REFILL_BELOW are held. A burst of any size costs a bounded amount of memory.
 */
const HELD_PER_ACCOUNT = 100
const BACKLOG_REFILL_BELOW = 50
const BACKLOG_PAGE = 100
/** After a read of the backlog failed (the log or the read models unavailable), it is tried again after this. */
const BACKLOG_RETRY_MS = 1000

export type DialOutcome =
  | { kind: 'placed'; callId: string; carrier: string }
  | { kind: 'failed'; failure: string; message: string }
  | { kind: 'unknown'; message: string }
  | { kind: 'not_ours' }

/** An account whose further decisions wait on the log, not in memory, until it has read them all back. */
interface Backlog {
  /** The log position of the last decision read back: the next page starts after it. */
  after: number
  /** Counts the decisions left on the log for it, so a read that overlapped one reads again. */
  left: number
  reading: boolean
}

const NOT_OURS: DialOutcome = { kind: 'not_ours' }
const ignore = () => undefined

export interface DialerOptions extends EffectProcessOptions {
  readonly accounts: Pick<Accounts, 'get'>
  readonly carrier: Carrier
  readonly publicUrl: string
}

/** The dialer of this node (effect-processes.ts finds it here). */
export const createEffectProcess: CreateEffectProcess = (deps) => new Dialer(deps)

export class Dialer extends EffectProcess<DialerOptions> {
  override readonly effect = CALL_EFFECT
  private readonly pacer: Pacer
  /** How many decisions each account has in memory (queued, being dialed, or waiting to retry): see HELD_PER_ACCOUNT. */
  private readonly held = new Map<string, number>()
  private readonly backlogs = new Map<string, Backlog>()
  /** Decisions whose turn came and are being performed (claim, carrier, record): a graceful stop lets them finish. */
  private readonly performing = new Set<Promise<DialOutcome>>()
  private stopped = false

  constructor(options: DialerOptions) {
    super(options)
    // Pacing keeps monotonic time, not the business clock: a clock moved back must not stall a lane.
    this.pacer = new Pacer()
  }

  get carrier(): Carrier {
    return this.options.carrier
  }

  protected override async react(event: RecordedEvent): Promise<Reaction> {
    // Queued, not awaited: a paced call must not hold back the rest of the log. The runner's
    // checkpoint waits for it instead, so a stop before its claim delivers it again.
    return { settled: this.queue(event.stream, (event as unknown as CallDecided).data.decisionId) }
  }

  /** Queues a decision for dialing in its account's lane; resolves with what happened. */
  dial(stream: string, decisionId: string): Promise<DialOutcome> {
    if (this.inFlight.has(decisionId)) return Promise.resolve(NOT_OURS)
    const outcome = this.schedule(stream, decisionId)
    this.inFlight.set(decisionId, outcome)
    return outcome.finally(() => this.inFlight.delete(decisionId))
  }

  /** Dials a decision now and waits for its outcome, also when another node or an earlier request performs it. */
  async dialAndWait(stream: string, decisionId: string): Promise<Exclude<DialOutcome, { kind: 'not_ours' }>> {
    const outcome = await this.dial(stream, decisionId)
    return outcome.kind === 'not_ours' ? this.awaitOutcome(stream, decisionId) : outcome
  }

  private schedule(stream: string, decisionId: string): Promise<DialOutcome> {
    const accountId = parseLeadStream(stream)?.accountId ?? ''
    // Queued at once, before any lookup, so an account's calls keep the order they were decided in.
    return this.pacer.schedule(accountId, (started) => {
      // Once stopped, a decision whose turn comes is not claimed: it stays unclaimed for the next start.
      if (this.stopped) return Promise.resolve(NOT_OURS)
      const performed = this.perform(stream, decisionId, accountId, started)
      this.performing.add(performed)
      const done = () => this.performing.delete(performed)
      performed.then(done, done)
      return performed
    })
  }

  /**
   * `dial` for the background (the runner's deliveries, recovery): a failure is logged, never thrown.
   * Resolves once the decision no longer depends on this process's memory: claimed (or found
   * claimed), given up, or left on the log because the account already holds HELD_PER_ACCOUNT (it is
   * read back in its turn, and every start reads back all unclaimed decisions). When the log could
   * not take a write (disk full, read-only), the decision is tried again with backoff: unclaimed it
   * is dialed once the disk is back; claimed already, the retry finds the claim and rings no one
   * (the sweep marks it outcome unknown).
   */
  queue(stream: string, decisionId: string): Promise<void> {
    const running = this.inFlight.get(decisionId)
    if (running) return running.then(ignore, ignore)
    const accountId = parseLeadStream(stream)?.accountId ?? ''
    if (this.backlogs.has(accountId) || this.heldBy(accountId) >= HELD_PER_ACCOUNT) {
      this.leaveOnLog(accountId)
      return Promise.resolve()
    }
    return this.hold(stream, decisionId, accountId)
  }

  private heldBy(accountId: string): number {
    return this.held.get(accountId) ?? 0
  }

  /** Keeps a decision in memory until it is dialed (or given up), in its account's lane. */
  private hold(stream: string, decisionId: string, accountId: string): Promise<void> {
    this.held.set(accountId, this.heldBy(accountId) + 1)
    const settled = this.attempt(stream, decisionId, 0).finally(() => {
      this.inFlight.delete(decisionId)
      const held = this.heldBy(accountId) - 1
      if (held > 0) this.held.set(accountId, held)
      else this.held.delete(accountId)
      if (held < BACKLOG_REFILL_BELOW) void this.readBacklog(accountId)
    })
    this.inFlight.set(decisionId, settled)
    return settled
  }

  private async attempt(stream: string, decisionId: string, retry: number): Promise<void> {
    try {
      await this.schedule(stream, decisionId)
    } catch (error) {
      const retryIn = STORE_RETRIES_MS[retry]
      if (error instanceof StoreUnavailableError && retryIn !== undefined && !this.stopped) {
        this.options.logger?.warn({ err: error, decisionId, stream, retryInMs: retryIn }, 'dialing deferred: the log cannot take writes')
        await new Promise((resolve) => setTimeout(resolve, retryIn).unref())
        if (!this.stopped) await this.attempt(stream, decisionId, retry + 1)
        return
      }
      // Unclaimed, the decision is dialed at the next start; claimed, the sweep marks it outcome unknown.
      this.options.logger?.error({ err: error, decisionId, stream }, 'dialing failed')
    }
  }

  /** Notes that an account has decisions waiting on the log rather than in memory, and reads them back if its lane has room. */
  private leaveOnLog(accountId: string): void {
    const backlog = this.backlogs.get(accountId) ?? { after: -1, left: 0, reading: false }
    this.backlogs.set(accountId, backlog)
    backlog.left++
    if (this.heldBy(accountId) < BACKLOG_REFILL_BELOW) void this.readBacklog(accountId)
  }

  /**
   * Tops up an account's lane from its unclaimed decisions on the log, oldest first, a page at a time
   * (after bringing the read models up to the log), until HELD_PER_ACCOUNT are held. Once none is
   * left, and none was left on the log while it read, the account's decisions are held as they come.
   */
  private async readBacklog(accountId: string): Promise<void> {
    const backlog = this.backlogs.get(accountId)
    if (!backlog || backlog.reading || this.stopped) return
    backlog.reading = true
    try {
      for (;;) {
        const left = backlog.left
        await this.options.runner.catchUp()
        let drained = false
        while (!drained && !this.stopped && this.heldBy(accountId) < HELD_PER_ACCOUNT) {
          const page = this.options.claims.unclaimed(this.name, accountId, backlog.after, BACKLOG_PAGE)
          drained = page.length === 0
          for (const call of page) {
            if (this.heldBy(accountId) >= HELD_PER_ACCOUNT) break
            backlog.after = call.decidedPosition
            // Held already: queued live before the account had a backlog, or read back by an earlier page.
            if (!this.inFlight.has(call.id)) void this.hold(call.stream, call.id, accountId)
          }
        }
        if (!drained || this.stopped) return
        if (backlog.left === left) {
          this.backlogs.delete(accountId)
          return
        }
      }
    } catch (error) {
      this.options.logger?.error({ err: error, accountId }, 'could not read the call backlog: trying again')
      setTimeout(() => void this.readBacklog(accountId), BACKLOG_RETRY_MS).unref()
    } finally {
      backlog.reading = false
    }
  }

  /**
   * Stops dialing: decisions not yet claimed stay unclaimed on the log, and the next start dials them;
   * calls already going out finish and record their outcome (within the carrier's timeout).
   */
  override async stop(): Promise<void> {
    this.stopped = true
    await Promise.allSettled([...this.performing])
  }

  private async perform(stream: string, decisionId: string, accountId: string, started: Started): Promise<DialOutcome> {
    const { commands, publicUrl, logger } = this.options
    const actor = { actor: this.actor }
    const account = await this.options.accounts.get(accountId)
    const claim = await commands.handle(
      stream,
      leadDecider,
      { type: 'StartCallAttempt', decisionId, node: NODE_ID, ...(account ? { settings: account.settings } : {}) },
      actor,
    )
    const [claimed] = claim.newEvents
    if (!claimed) return { kind: 'not_ours' }
    if (claimed.type === 'CallFailed') return { kind: 'failed', failure: claimed.data.failure, message: claimed.data.message }
    const call = claim.state.dialing.calls[decisionId] as CallRecord
    // Agent-first: the owner is rung first (their answer hook asks them to press 1); the lead only after.
    const owner = account ? ownerLegNumber(callSettings(account.settings, call), 0) : null
    // Machine detection (the account's `amd`) runs beside the greeting, never before it: a machine
    // is told from a person so a voicemail is not counted as the lead answering.
    const machineDetection = account?.settings.amd ?? false
    const { machineDetectionUrl, ...urls } = this.carrier.callbackUrls(publicUrl, decisionId)
    const request: PlaceCallRequest = {
      from: call.from,
      to: owner ?? call.to,
      ...urls,
      reference: decisionId,
      detectAnsweringMachine: machineDetection,
      ...(machineDetection && machineDetectionUrl !== undefined ? { machineDetectionUrl } : {}),
    }
    // The call goes out now: the account's next call waits its spacing from here.
    started(1000 / (account?.settings.callsPerSecond ?? 1))
    return withCarrierRetries<DialOutcome>(
      async () => {
        const placed = await this.carrier.placeCall(request)
        const leg = owner !== null ? { ownerLeg: 0, to: owner } : {}
        await commands.handle(stream, leadDecider, { type: 'RecordCallPlaced', decisionId, callId: placed.callId, carrier: placed.carrier, machineDetection, ...leg }, actor)
        return { kind: 'placed', callId: placed.callId, carrier: placed.carrier }
      },
      async ({ failure, message, carrierCode }) => {
        if (failure === 'unknown_outcome') {
          // The carrier may have rung: record that we do not know, and never ring again for this decision.
          await commands.handle(stream, leadDecider, { type: 'RecordOutcomeUnknown', decisionId, reason: message }, actor)
          logger?.warn({ decisionId, accountId: account?.accountId }, 'call outcome unknown: not retried')
          return { kind: 'unknown', message }
        }
        await commands.handle(stream, leadDecider, { type: 'RecordCallFailed', decisionId, failure, message, carrierCode }, actor)
        return { kind: 'failed', failure, message }
      },
    )
  }

  /** Another node or an earlier request performs this decision: wait for its outcome on the log. */
  private async awaitOutcome(stream: string, decisionId: string, timeoutMs = 30_000): Promise<Exclude<DialOutcome, { kind: 'not_ours' }>> {
    const deadline = performance.now() + timeoutMs
    for (;;) {
      const { state } = await this.options.commands.load(stream, leadDecider)
      const call = state.dialing.calls[decisionId]
      if (call?.stage === 'placed') return { kind: 'placed', callId: call.callId as string, carrier: call.carrier as string }
      if (call?.stage === 'failed') {
        const failure = call.failure ?? 'rejected'
        return { kind: 'failed', failure, message: NOT_DIALED.has(failure) ? `not dialed: ${failure}` : 'the carrier refused the call' }
      }
      if (call?.stage === 'unknown' || performance.now() > deadline) return { kind: 'unknown', message: 'no outcome recorded' }
      await pause(100)
    }
  }

  /** Every decision no dialer claimed, however many: each account's are read back from the log a page at a time, oldest first. */
  protected override async resume(): Promise<void> {
    for (const accountId of this.options.claims.accountsWithUnclaimed(this.name)) this.leaveOnLog(accountId)
  }

  /** A call the restored log does not know was placed is never dialed; with the account's settings, its follow-up takes the next step. */
  protected override async expire(decision: UnclaimedDecision): Promise<boolean> {
    const account = await this.options.accounts.get(decision.accountId)
    return this.recordOnLead(decision.stream, { type: 'ExpireCall', decisionId: decision.id, reason: RESTORED_FROM_BACKUP, ...(account ? { settings: account.settings } : {}) })
  }

  protected override markUnknown(claim: StuckClaim): Promise<boolean> {
    return this.recordOnLead(claim.stream, { type: 'RecordOutcomeUnknown', decisionId: claim.id, reason: 'no outcome was recorded for the attempt (the process stopped while calling)' })
  }
}
