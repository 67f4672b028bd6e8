/**
 * The one shape of every process manager that acts on the world (the dialer, the pay-link sender):
 * a decision on the log is claimed with an append before the provider is asked, so it is performed
 * at most once on any node and across crashes; the provider's answer is recorded as its outcome.
 * The process runner feeds it decisions as they are appended (`reactor`); after a start `recover`
 * resumes the decisions no one performed, and `sweep` marks claims left without an outcome as
 * "outcome unknown", never performing them again. Which events decide, claim and end its work is
 * its effect, declared by the domain; the claims read model lists both kinds of leftover work from it.
 */
import os from 'node:os'
import type { Logger } from 'pino'
import type { AccountState } from '../domain/account/account.decider.ts'
import type { RecordedEvent } from '../domain/event.ts'
import { leadDecider, type LeadCommand, type LeadState } from '../domain/lead/lead.decider.ts'
import { parseLeadStream } from '../domain/lead/lead.events.ts'
import type { Effect } from '../domain/shared/effect.ts'
import { LOG_RESTORES_STREAM, logRestoreDecider } from '../domain/restore/log-restore.ts'
import type { CommandContext, CommandHandler } from '../eventstore/command-handler.ts'
import { CarrierError, isRetryableCarrierFailure } from '../integrations/carrier/carrier.port.ts'
import type { ProjectionRunner } from '../read-models/projection-runner.ts'
import type { ClaimsQueries, OpenClaim, UnclaimedDecision } from '../../projections/claims/claims.queries.ts'
import type { Accounts } from '../commands/accounts.ts'
import type { Reaction, Reactor } from './process-runner.ts'

/** Who this process is, in a claim's event (host and pid: enough to tell nodes apart). */
export const NODE_ID = `${os.hostname()}:${process.pid}`

/** How many open decisions a start reads at a time when it expires those a restore brought back. */
const EXPIRE_PAGE = 200

/** Retries of a carrier request that cannot have reached anyone (429, connection refused). */
const CARRIER_RETRIES = [250, 1000]

export interface EffectProcessOptions {
  readonly commands: CommandHandler
  readonly runner: ProjectionRunner
  /** The claims read model: its decisions no one claimed, its claims without an outcome. */
  readonly claims: ClaimsQueries
  readonly clock: () => Date
  readonly logger?: Pick<Logger, 'info' | 'warn' | 'error'>
}

/** A claim the claims read model lists as made with no outcome: its stream and its decision's id. */
export type StuckClaim = OpenClaim

export abstract class EffectProcess<Options extends EffectProcessOptions = EffectProcessOptions> {
  /** What the process performs, as the domain declares it: its decision, claim and outcome events. */
  abstract readonly effect: Effect
  /** Decisions this process is performing or holds, by decision id: a second caller joins the first, and the sweep leaves them be. */
  protected readonly inFlight = new Map<string, Promise<unknown>>()

  constructor(protected readonly options: Options) {}

  /** The process's name (its effect's): its actor id on the events it appends, its reactor's name, its rows in the claims read model. */
  get name(): string {
    return this.effect.name
  }

  /** The decision events the process runner feeds it (see `react`). */
  get handles(): readonly string[] {
    return [this.effect.decision]
  }

  protected get actor(): CommandContext['actor'] {
    return { kind: 'process', id: this.name }
  }

  /** Takes a decision from the log; a `settled` handed back holds the runner's checkpoint until it no longer depends on memory. */
  protected async react(_event: RecordedEvent): Promise<Reaction> {}
  /** After a start, with the read models caught up: feeds the decisions no one performed. */
  protected abstract resume(): Promise<void>
  /** Claims made before `before` (ISO) that have no outcome. */
  protected stuck(before: string): readonly StuckClaim[] {
    return this.options.claims.claimedBefore(this.name, before)
  }
  /** Records that a claim's outcome is unknown, so it is never performed again; true when this call recorded it. */
  protected abstract markUnknown(claim: StuckClaim): Promise<boolean>

  /**
   * Records that a decision the log was restored with is never carried out (`restored_from_backup`);
   * true when this call recorded it. An effect that is harmless to repeat (reading a Facebook lead) keeps its decisions: false.
   */
  protected async expire(_decision: UnclaimedDecision): Promise<boolean> {
    return false
  }

  /** Records `command` on a lead's stream as this process; true when it appended anything (a repeat appends nothing). */
  protected async recordOnLead(stream: string, command: LeadCommand): Promise<boolean> {
    const result = await this.options.commands.handle(stream, leadDecider, command, { actor: this.actor })
    return result.newEvents.length > 0
  }

  /** What the process runner feeds. */
  reactor(): Reactor {
    return { name: this.name, handles: this.handles, react: (event) => this.react(event) }
  }

  /** After a start: every decision no one performed is performed in its turn; claims left without an outcome are marked unknown. */
  async recover(stuckAfterMs: number): Promise<void> {
    await this.options.runner.catchUp()
    await this.expireRestored()
    await this.resume()
    await this.sweep(stuckAfterMs)
  }

  /**
   * After a restore (a LogRestored on the log, read on every start and on every node): every decision
   * at or before the backup's head that is still open, unclaimed or claimed with no outcome, may have
   * been carried out after the backup was taken, so it is expired rather than performed. Each expiry
   * is an append with an expected revision: on many nodes, and after a crash halfway, it is recorded once.
   */
  async expireRestored(): Promise<number> {
    const { commands, claims, runner, logger } = this.options
    const { state } = await commands.load(LOG_RESTORES_STREAM, logRestoreDecider)
    if (state.backupHead === null) return 0
    let expired = 0
    let after = -1
    for (;;) {
      const page = claims.openUpTo(this.name, state.backupHead, after, EXPIRE_PAGE)
      if (page.length === 0) break
      for (const decision of page) {
        after = decision.decidedPosition
        if (await this.expire(decision)) expired++
      }
    }
    if (expired > 0) {
      await runner.catchUp()
      logger?.warn({ process: this.name, expired, backupHead: state.backupHead }, 'decisions restored from a backup expired: never carried out')
    }
    return expired
  }

  /** Stops taking decisions; what is already going out finishes and records its outcome. */
  async stop(): Promise<void> {}

  /** Claims older than any provider request can take, with no outcome: marked unknown, never performed again. */
  async sweep(stuckAfterMs: number): Promise<number> {
    const { runner, clock, logger } = this.options
    try {
      await runner.catchUp()
    } catch (error) {
      // Run from a timer: a store that fails for a moment is logged and the next sweep tries again.
      logger?.error({ err: error, process: this.name }, 'could not sweep stuck claims')
      return 0
    }
    const before = new Date(clock().getTime() - stuckAfterMs).toISOString()
    let marked = 0
    for (const claim of this.stuck(before)) {
      if (this.inFlight.has(claim.id)) continue
      try {
        if (await this.markUnknown(claim)) marked++
      } catch (error) {
        logger?.error({ err: error, process: this.name, decisionId: claim.id }, 'could not mark a stuck claim')
      }
    }
    return marked
  }
}

export interface OnceEffectProcessOptions extends EffectProcessOptions {
  readonly accounts: Pick<Accounts, 'get'>
}

/**
 * An effect process that performs each decision of a lead at once, unpaced (the pay-link sender, the
 * texter): the runner's delivery and a caller waiting for the outcome join one performance per
 * decision in this process, and the claim lets one node perform it. After a start, decisions made
 * within `resumeWindowMs` that no one claimed are performed; older ones (a runner far behind after a
 * long stop) are left as they are, by `react` as by `resume`.
 */
export abstract class OnceEffectProcess<Options extends OnceEffectProcessOptions, Outcome> extends EffectProcess<Options> {
  protected abstract readonly resumeWindowMs: number
  /** Claims and performs the decision `id` of the lead's `stream`, or waits for another's outcome. */
  protected abstract perform(stream: string, id: string, account: AccountState): Promise<Outcome>

  protected override async react(event: RecordedEvent): Promise<Reaction> {
    const { clock, accounts, logger } = this.options
    if (Date.parse(event.recordedAt) < clock().getTime() - this.resumeWindowMs) return
    const id = (event.data as Record<string, unknown>)[this.effect.id] as string
    const account = await accounts.get(parseLeadStream(event.stream)?.accountId ?? '')
    if (!account) return
    const performed = this.send(event.stream, id, account).catch((error: unknown) => {
      logger?.error({ err: error, process: this.name, id }, 'performing a decision failed')
    })
    return { settled: performed }
  }

  /** Performs a decision once per process; a caller that finds it running waits for the same outcome. */
  send(stream: string, id: string, account: AccountState): Promise<Outcome> {
    let running = this.inFlight.get(id) as Promise<Outcome> | undefined
    if (!running) {
      running = this.perform(stream, id, account).finally(() => this.inFlight.delete(id))
      this.inFlight.set(id, running)
    }
    return running
  }

  /** Decisions made within `resumeWindowMs` and never claimed are performed, without waiting for them. */
  protected override async resume(): Promise<void> {
    const { claims, clock, accounts, logger } = this.options
    const since = new Date(clock().getTime() - this.resumeWindowMs).toISOString()
    for (const row of claims.unclaimedSince(this.name, since)) {
      const account = await accounts.get(row.accountId)
      if (!account) continue
      this.send(row.stream, row.id, account).catch((error: unknown) => {
        logger?.error({ err: error, process: this.name, id: row.id }, 'resuming a decision failed')
      })
    }
  }

  /** Another node or an earlier call performs the decision: reads the lead until `outcomeOf` finds its outcome. */
  protected async awaitOutcome(stream: string, outcomeOf: (lead: LeadState) => Outcome | undefined, timedOut: Outcome, timeoutMs = 25_000): Promise<Outcome> {
    const deadline = performance.now() + timeoutMs
    for (;;) {
      const { state } = await this.options.commands.load(stream, leadDecider)
      const outcome = outcomeOf(state)
      if (outcome !== undefined) return outcome
      if (performance.now() > deadline) return timedOut
      await pause(100)
    }
  }
}

/** Why a carrier request came to nothing; `unknown_outcome` when it may have reached the person. */
export interface CarrierFailure {
  readonly failure: string
  readonly message: string
  readonly carrierCode: number | null
}

/**
 * Performs `request` (ask the carrier, record what it did), retrying only failures that cannot have
 * reached anyone, at the carrier's own Retry-After when it gives one; anything else goes to `failed`.
 */
export async function withCarrierRetries<T>(request: () => Promise<T>, failed: (failure: CarrierFailure) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await request()
    } catch (error) {
      const retryIn = CARRIER_RETRIES[attempt]
      if (isRetryableCarrierFailure(error) && retryIn !== undefined) {
        const after = (error as CarrierError).details.retryAfterSeconds
        await pause(Math.min(after !== undefined ? after * 1000 : retryIn, 5000))
        continue
      }
      return failed({
        failure: error instanceof CarrierError ? error.failure : 'unknown_outcome',
        message: error instanceof Error ? error.message : String(error),
        carrierCode: error instanceof CarrierError ? (error.details.carrierCode ?? null) : null,
      })
    }
  }
}

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
