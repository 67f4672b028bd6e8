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
import type { RecordedEvent } from '../domain/event.ts'
import type { Effect } from '../domain/shared/effect.ts'
import type { CommandContext, CommandHandler } from '../eventstore/command-handler.ts'
import { CarrierError, isRetryableCarrierFailure } from '../integrations/carrier/carrier.port.ts'
import type { ProjectionRunner } from '../read-models/projection-runner.ts'
import type { ClaimsQueries, OpenClaim } from '../../projections/claims/claims.queries.ts'
import type { Reaction, Reactor } from './process-runner.ts'

/** Who this process is, in a claim's event (host and pid: enough to tell nodes apart). */
export const NODE_ID = `${os.hostname()}:${process.pid}`

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

  /** What the process runner feeds. */
  reactor(): Reactor {
    return { name: this.name, handles: this.handles, react: (event) => this.react(event) }
  }

  /** After a start: every decision no one performed is performed in its turn; claims left without an outcome are marked unknown. */
  async recover(stuckAfterMs: number): Promise<void> {
    await this.options.runner.catchUp()
    await this.resume()
    await this.sweep(stuckAfterMs)
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
