/**
 * Dialing: performs call decisions (claim → carrier → record), records what the carrier reports,
 * and serves place_call. Every decision passes through `dial`, paced per account; a decision is
 * claimed with an append before the carrier is asked, so it rings at most once on any node, also
 * across crashes (an attempt left without an outcome becomes "outcome unknown", never a redial).
 */
import os from 'node:os'
import type { Logger } from 'pino'
import type { AccountState } from '../../domain/account/account.decider.ts'
import { leadDecider, type LeadState } from '../../domain/lead/lead.decider.ts'
import { callRefused, checkLeadCall, type CallRecord } from '../../domain/lead/lead-calls.ts'
import { CALL_REFUSALS } from '../../domain/dialing/call-check.ts'
import { leadStream, parseLeadStream } from '../../domain/lead/lead.events.ts'
import { normalizePhone } from '../../domain/lead/intake/phone.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import { newId } from '../../domain/shared/ids.ts'
import type { CommandContext, CommandHandler } from '../../eventstore/command-handler.ts'
import { StoreUnavailableError } from '../../eventstore/event-store.port.ts'
import { CarrierError, isRetryableCarrierFailure, type CallStatusUpdate, type Carrier } from '../../integrations/carrier/carrier.port.ts'
import { Pacer, type Started } from './pacer.ts'
import type { ProjectionRunner } from '../../read-models/projection-runner.ts'
import type { CallRow, CallsQueries } from '../../../projections/calls/calls.queries.ts'
import type { AccountsService } from '../../commands/accounts.ts'
import type { DialingApi, PlaceCallInput, PlaceCallResult } from '../../commands/place-call.command.ts'

/** Who this process is, in `CallAttemptStarted` (host and pid: enough to tell nodes apart). */
export const NODE_ID = `${os.hostname()}:${process.pid}`

const DIALER: CommandContext['actor'] = { kind: 'process', id: 'dialer' }
/** Retries of a carrier request that cannot have placed the call (429, connection refused). */
const CARRIER_RETRIES = [250, 1000]
/** Failures that are the call check's refusals (the carrier was never asked), not the carrier's. */
const NOT_DIALED = CALL_REFUSALS
/** Waits before dialing a decision again after the log refused a write: about 15 minutes in all, then the next start. */
const STORE_RETRIES_MS = [250, 500, 1000, 2000, 5000, 10_000, 30_000, 60_000, 120_000, 300_000, 480_000]
/** How long a status callback for a call id not on the log yet waits for an in-flight attempt to record it. */
const CALLBACK_WAIT_MS = 5000
/**
 * At most this many of an account's decisions wait in memory for their turn; the rest wait on the log
 * (unclaimed in the calls read model) and are read back a page at a time, oldest first, once fewer
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

export interface DialingOptions {
  readonly commands: CommandHandler
  readonly accounts: AccountsService
  readonly calls: CallsQueries
  readonly runner: ProjectionRunner
  readonly publicUrl: string
  readonly clock: () => Date
  readonly logger?: Pick<Logger, 'info' | 'warn' | 'error'>
}

export class DialingService implements DialingApi {
  private carrierRef: Carrier | null = null
  private readonly pacer: Pacer
  /**
   * Decisions this process has queued or is performing, each with a promise that settles when it is
   * done with it, so the log's echo of a place_call (or a redelivery) is not queued twice.
   */
  private readonly inFlight = new Map<string, Promise<unknown>>()
  /** How many decisions each account has in memory (queued, being dialed, or waiting to retry): see HELD_PER_ACCOUNT. */
  private readonly held = new Map<string, number>()
  private readonly backlogs = new Map<string, Backlog>()
  /** Decisions whose turn came and are being performed (claim, carrier, record): a graceful stop lets them finish. */
  private readonly performing = new Set<Promise<DialOutcome>>()
  private stopped = false

  constructor(private readonly options: DialingOptions) {
    // Pacing keeps monotonic time, not the business clock: a clock moved back must not stall a lane.
    this.pacer = new Pacer()
  }

  /** The carrier is attached after construction: the simulated carrier reports back into this service. */
  attachCarrier(carrier: Carrier): void {
    this.carrierRef = carrier
  }

  get carrier(): Carrier {
    if (!this.carrierRef) throw new Error('no carrier attached')
    return this.carrierRef
  }

  /** Queues a decision for dialing in its account's lane; resolves with what happened. */
  dial(stream: string, decisionId: string): Promise<DialOutcome> {
    if (this.inFlight.has(decisionId)) return Promise.resolve(NOT_OURS)
    const outcome = this.schedule(stream, decisionId)
    this.inFlight.set(decisionId, outcome)
    return outcome.finally(() => this.inFlight.delete(decisionId))
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
   * `dial` for the background (the dialer process, recovery): a failure is logged, never thrown.
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
          const page = this.options.calls.unclaimed(accountId, backlog.after, BACKLOG_PAGE)
          drained = page.length === 0
          for (const call of page) {
            if (this.heldBy(accountId) >= HELD_PER_ACCOUNT) break
            backlog.after = call.decidedPosition
            // Held already: queued live before the account had a backlog, or read back by an earlier page.
            if (!this.inFlight.has(call.decisionId)) void this.hold(call.stream, call.decisionId, accountId)
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
  async stop(): Promise<void> {
    this.stopped = true
    await Promise.allSettled([...this.performing])
  }

  private async perform(stream: string, decisionId: string, accountId: string, started: Started): Promise<DialOutcome> {
    const { commands, publicUrl, logger } = this.options
    const account = await this.options.accounts.get(accountId)
    const claim = await commands.handle(
      stream,
      leadDecider,
      { type: 'StartCallAttempt', decisionId, node: NODE_ID, ...(account ? { settings: account.settings } : {}) },
      { actor: DIALER },
    )
    const [claimed] = claim.newEvents
    if (!claimed) return { kind: 'not_ours' }
    if (claimed.type === 'CallFailed') return { kind: 'failed', failure: claimed.data.failure, message: claimed.data.message }
    const call = claim.state.dialing.calls[decisionId] as CallRecord
    const request = {
      from: call.from,
      to: call.to,
      answerUrl: `${publicUrl}/api/carrier/twilio/answer?decision=${encodeURIComponent(decisionId)}`,
      statusCallbackUrl: `${publicUrl}/api/carrier/twilio/status`,
      reference: decisionId,
      detectAnsweringMachine: false,
    }
    // The call goes out now: the account's next call waits its spacing from here.
    started(1000 / (account?.settings.callsPerSecond ?? 1))
    for (let attempt = 0; ; attempt++) {
      try {
        const placed = await this.carrier.placeCall(request)
        await commands.handle(stream, leadDecider, { type: 'RecordCallPlaced', decisionId, callId: placed.callId, carrier: placed.carrier }, { actor: DIALER })
        return { kind: 'placed', callId: placed.callId, carrier: placed.carrier }
      } catch (error) {
        const retryIn = CARRIER_RETRIES[attempt]
        if (isRetryableCarrierFailure(error) && retryIn !== undefined) {
          const after = (error as CarrierError).details.retryAfterSeconds
          await new Promise((resolve) => setTimeout(resolve, Math.min(after !== undefined ? after * 1000 : retryIn, 5000)))
          continue
        }
        const failure = error instanceof CarrierError ? error.failure : 'unknown_outcome'
        const message = error instanceof Error ? error.message : String(error)
        if (failure === 'unknown_outcome') {
          // The carrier may have rung: record that we do not know, and never ring again for this decision.
          await commands.handle(stream, leadDecider, { type: 'RecordOutcomeUnknown', decisionId, reason: message }, { actor: DIALER })
          logger?.warn({ decisionId, accountId: account?.accountId }, 'call outcome unknown: not retried')
          return { kind: 'unknown', message }
        }
        await commands.handle(
          stream,
          leadDecider,
          { type: 'RecordCallFailed', decisionId, failure, message, carrierCode: error instanceof CarrierError ? (error.details.carrierCode ?? null) : null },
          { actor: DIALER },
        )
        return { kind: 'failed', failure, message }
      }
    }
  }

  /** A status the carrier reported (Twilio callback or the simulated carrier): recorded on its lead. */
  async recordCallStatus(update: CallStatusUpdate): Promise<boolean> {
    const call = await this.findCall(update.callId)
    if (!call) return false
    const account = await this.options.accounts.get(call.accountId)
    if (!account) return false
    await this.options.commands.handle(
      call.stream,
      leadDecider,
      { type: 'RecordCallStatus', settings: account.settings, update },
      { actor: { kind: 'carrier', id: update.carrier } },
    )
    return true
  }

  /**
   * The call a carrier call id belongs to. A callback can outrun the read model, and even the record
   * of its own call (CallPlaced is appended once the carrier has answered the request), so while any
   * attempt is in flight an unknown id is looked for again for a moment rather than dropped.
   */
  private async findCall(callId: string): Promise<CallRow | null> {
    const { calls, runner } = this.options
    const deadline = performance.now() + CALLBACK_WAIT_MS
    for (;;) {
      const call = calls.byCallId(callId) ?? (await runner.catchUp(), calls.byCallId(callId))
      if (call) return call
      if (performance.now() > deadline || !calls.hasAttemptsInFlight()) return null
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  async placeCall(account: AccountState, input: PlaceCallInput, context: CommandContext): Promise<PlaceCallResult> {
    const { commands, clock } = this.options
    const phone = normalizePhone(input.phone, account.settings.defaultCountry)
    if (!phone.ok) throw new DomainError(phone.error.code === 'phone_required' ? 'phone_required' : 'phone_invalid', phone.error.message)
    const stream = leadStream(account.accountId, phone.phone.last10)
    const loaded = await commands.load(stream, leadDecider)
    const lead: LeadState = loaded.state.exists
      ? loaded.state
      : {
          ...loaded.state,
          exists: true,
          fields: {
            phone: phone.phone.e164, phoneLast10: phone.phone.last10, phoneRaw: phone.phone.raw,
            ...(phone.phone.extension ? { phoneExtension: phone.phone.extension } : {}), industryFields: {}, extraFields: [],
          },
        }
    // The number asked is the number rung: never the one on record for the same last ten digits.
    const to = phone.phone.e164
    const check = checkLeadCall(account.settings, lead, clock(), 'place_call', to)
    const base = {
      leadId: loaded.state.exists ? loaded.state.leadId : null,
      from: account.settings.callerId,
      to,
      carrier: this.carrier.name,
      check,
    }
    if (input.dryRun) {
      return { status: check.allowed ? 'would_call' : 'would_not_call', callId: null, ...base, dryRun: true }
    }
    // A key already used returns its call's result, even if a new call would be refused now.
    const spent = Object.values(loaded.state.dialing.calls).some((c) => c.idempotencyKey === input.idempotencyKey)
    if (!check.allowed && !spent) throw callRefused(check)

    if (!loaded.state.exists) {
      // Someone the book has not met: the call still belongs in a lead's history (not in Inbound Leads).
      const name = input.name.trim()
      await commands.handle(
        stream,
        leadDecider,
        {
          type: 'ReceiveLead',
          accountId: account.accountId,
          newLeadId: newId('ld'),
          fields: { ...(lead.fields as NonNullable<LeadState['fields']>), ...(name ? { fullName: name } : {}), source: 'place_call' },
          list: false,
        },
        context,
      )
    }
    const decided = await commands.handle(
      stream,
      leadDecider,
      { type: 'DecidePlaceCall', settings: account.settings, decisionId: newId('dec'), idempotencyKey: input.idempotencyKey, to, toRaw: phone.phone.raw },
      context,
    )
    const call = Object.values(decided.state.dialing.calls).find((c) => c.idempotencyKey === input.idempotencyKey) as CallRecord
    const outcome = await this.dial(stream, call.decisionId)
    const settled = outcome.kind === 'not_ours' ? await this.awaitOutcome(stream, call.decisionId) : outcome
    const result = { ...base, leadId: decided.state.leadId, from: call.from, to: call.to }
    switch (settled.kind) {
      case 'placed':
        return { status: 'placed', callId: settled.callId, ...result, carrier: this.carrier.name, dryRun: false }
      case 'failed':
        // Refused by the check made as the call went out (the lead became do-not-call, the hours closed).
        if (NOT_DIALED.has(settled.failure)) throw new DomainError(settled.failure, settled.message)
        throw new DomainError('carrier_error', `the carrier refused the call: ${settled.message}`, { failure: settled.failure })
      default:
        throw new DomainError('carrier_outcome_unknown', 'the carrier did not confirm the call; it is not retried, so the person is never rung twice')
    }
  }

  /** Another node or an earlier request performs this decision: wait for its outcome on the log. */
  private async awaitOutcome(stream: string, decisionId: string, timeoutMs = 30_000): Promise<DialOutcome> {
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
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  /**
   * After a start: every decision no dialer claimed, however many, is dialed in its turn (each
   * account's are read back from the log a page at a time, oldest first); attempts left without an
   * outcome are marked unknown.
   */
  async recover(stuckAfterMs: number): Promise<void> {
    await this.options.runner.catchUp()
    for (const accountId of this.options.calls.accountsWithUnclaimed()) this.leaveOnLog(accountId)
    await this.sweep(stuckAfterMs)
  }

  /** Attempts started longer ago than any carrier request can take, with no outcome: never redialed. */
  async sweep(stuckAfterMs: number): Promise<number> {
    try {
      await this.options.runner.catchUp()
    } catch (error) {
      // Run from a timer: a store that fails for a moment is logged and the next sweep tries again.
      this.options.logger?.error({ err: error }, 'could not sweep stuck attempts')
      return 0
    }
    const before = new Date(this.options.clock().getTime() - stuckAfterMs).toISOString()
    let marked = 0
    for (const call of this.options.calls.stuckAttempts(before)) {
      if (this.inFlight.has(call.decisionId)) continue
      try {
        const result = await this.options.commands.handle(
          call.stream,
          leadDecider,
          { type: 'RecordOutcomeUnknown', decisionId: call.decisionId, reason: 'no outcome was recorded for the attempt (the process stopped while calling)' },
          { actor: DIALER },
        )
        marked += result.newEvents.length > 0 ? 1 : 0
      } catch (error) {
        this.options.logger?.error({ err: error, decisionId: call.decisionId }, 'could not mark a stuck attempt')
      }
    }
    return marked
  }
}
