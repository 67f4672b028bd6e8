/**
 * Idempotency keys for every write tool (spec §2.4), kept as events: the command side of the
 * idempotency decider (src/domain/idempotency/). The first call with a key claims
 * it by appending `IdempotencyKeyClaimed` to the key's own stream with an expected revision, so of
 * any number of simultaneous calls (on one node or many) exactly one wins and runs; it then appends
 * the outcome. Every other call with the key re-reads the stream until the outcome is there and
 * answers with it. A claim that never got an outcome (the process stopped mid-call) is answered as
 * "in doubt", never by running the call a second time.
 */
import { randomUUID } from 'node:crypto'
import canonicalize from 'canonicalize'
import type { Logger } from 'pino'
import { DomainError } from '../domain/shared/decider.ts'
import type { NewEvent, RecordedEvent } from '../domain/event.ts'
import { isWrongExpectedRevision, StoreUnavailableError, type EventStore } from '../eventstore/event-store.port.ts'
import { sha256Hex } from '../domain/shared/sha256.ts'
import { idempotencyStream, type IdempotencyEvent, type RecordedFailure } from '../domain/idempotency/idempotency.events.ts'
import {
  foldKey, idempotencyDecider, statusOf, STORE_UNAVAILABLE, type Claim, type IdempotencyCommand, type IdempotencyState, type Outcome,
} from '../domain/idempotency/idempotency.decider.ts'

export { keyStatus, type KeyStatus } from '../domain/idempotency/idempotency.decider.ts'

/** How long a key is honoured after its first use: 24 hours. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000
/** A claim this old without an outcome is in doubt: the call outlived every time limit, so its process is gone. */
export const IDEMPOTENCY_IN_DOUBT_AFTER_MS = 60 * 1000
/** How long a call waits for a simultaneous call with the same key to finish before answering "in progress". */
export const IDEMPOTENCY_WAIT_MS = 20 * 1000
/** Idempotency keys: 1 to 255 printable ASCII characters (space through tilde). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/

export interface IdempotencyOptions {
  readonly clock?: () => Date
  readonly retentionMs?: number
  readonly inDoubtAfterMs?: number
  readonly waitMs?: number
  readonly logger?: Pick<Logger, 'error'>
}

export interface IdempotentCall {
  readonly accountId: string
  /** The API key making the call (recorded on the claim; not part of the key's identity). */
  readonly keyId: string
  readonly idempotencyKey: string
  readonly tool: string
  /** The call's arguments, without the idempotency key and dry_run. */
  readonly args: unknown
  readonly correlationId?: string
}

export interface IdempotentResult {
  readonly value: unknown
  /** True when the value is the recorded outcome of an earlier call with the same key. */
  readonly replayed: boolean
}

/** SHA-256 of the canonical JSON of a tool name and its arguments: key order and whitespace do not matter. */
export function argumentsHash(tool: string, args: unknown): string {
  return sha256Hex(canonicalize({ tool, args }) ?? '')
}

const MAX_REFUSED_CLAIMS = 10_000

function failureOf(error: unknown): RecordedFailure {
  if (error instanceof DomainError) return { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) }
  if (error instanceof StoreUnavailableError) return { code: STORE_UNAVAILABLE, message: 'the log could not take a write during the call' }
  return { code: 'internal_error', message: 'the call failed unexpectedly' }
}

export class IdempotencyKeys {
  private readonly clock: () => Date
  private readonly retentionMs: number
  private readonly inDoubtAfterMs: number
  private readonly waitMs: number
  private readonly logger: Pick<Logger, 'error'> | undefined
  /**
   * Claims (`stream#revision`) whose call the log refused and whose outcome it refused too: a repeat
   * in this process claims the key again rather than wait for an outcome that will never come.
   */
  private readonly refused = new Set<string>()
  /** Calls in this process waiting on a key's stream; woken as soon as this process records an outcome. */
  private readonly waiting = new Map<string, Set<() => void>>()

  constructor(
    private readonly store: EventStore,
    options: IdempotencyOptions = {},
  ) {
    this.clock = options.clock ?? (() => new Date())
    this.retentionMs = options.retentionMs ?? IDEMPOTENCY_RETENTION_MS
    this.inDoubtAfterMs = options.inDoubtAfterMs ?? IDEMPOTENCY_IN_DOUBT_AFTER_MS
    this.waitMs = options.waitMs ?? IDEMPOTENCY_WAIT_MS
    this.logger = options.logger
  }

  /**
   * Runs `perform` at most once per account and key: the first call runs it and records its result
   * or error; a repeat with the same arguments gets that result or error back; a repeat with other
   * arguments is refused (`idempotency_key_reused`).
   */
  async run(call: IdempotentCall, perform: () => Promise<unknown>): Promise<IdempotentResult> {
    const stream = idempotencyStream(call.accountId, call.idempotencyKey)
    const argsHash = argumentsHash(call.tool, call.args)
    const started = Date.now()
    let pause = 5
    for (;;) {
      const now = this.clock()
      const state = foldKey(await this.store.readStream(stream))
      const status = statusOf(state, now)
      const refusedClaim = status.kind === 'claimed' && status.outcome === null ? `${stream}#${status.claimRevision}` : null
      const retake = refusedClaim !== null && this.refused.has(refusedClaim) ? { retake: (status as { claimRevision: number }).claimRevision } : {}
      if (status.kind === 'free' || 'retake' in retake) {
        // A claim with no outcome is the stream's last event: the new claim goes right after it.
        const claimRevision = await this.decideAndAppend(stream, state, { type: 'ClaimKey', claim: this.claimOf(call, argsHash, now), ...retake }, call)
        if (refusedClaim !== null) this.refused.delete(refusedClaim)
        if (claimRevision === null) continue // another call claimed it first: answer as it does
        return { value: await this.perform(stream, claimRevision, call, perform), replayed: false }
      }
      const { claim, outcome } = status
      if (claim.argsHash !== argsHash) {
        throw new DomainError(
          'idempotency_key_reused',
          `idempotency key already used with different arguments (first used with ${claim.tool} at ${claim.claimedAt}); use a new key for a different call`,
          { tool: claim.tool, claimedAt: claim.claimedAt },
        )
      }
      if (outcome) {
        if ('error' in outcome) throw new DomainError(outcome.error.code, outcome.error.message, outcome.error.details)
        return { value: outcome.result, replayed: true }
      }
      if (now.getTime() - Date.parse(claim.claimedAt) >= this.inDoubtAfterMs) {
        throw new DomainError(
          'idempotency_in_doubt',
          `a call with this idempotency key started at ${claim.claimedAt} and never recorded an outcome; it will not run again under this key. Check the lead's history before retrying with a new key`,
          { claimedAt: claim.claimedAt },
        )
      }
      if (Date.now() - started >= this.waitMs) {
        throw new DomainError('idempotency_in_progress', 'a call with this idempotency key is still running; retry shortly for its result', {
          retryAfterSeconds: 2,
        })
      }
      await this.pauseOn(stream, pause)
      pause = Math.min(pause * 2, 200)
    }
  }

  private claimOf(call: IdempotentCall, argsHash: string, now: Date): Claim {
    return {
      tool: call.tool,
      argsHash,
      keyId: call.keyId,
      claimedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.retentionMs).toISOString(),
    }
  }

  /**
   * Appends what the decider makes of `command` on `state`, at the revision `state` was folded to;
   * the new revision, or null when there was nothing to append or another call appended first.
   */
  private async decideAndAppend(stream: string, state: IdempotencyState, command: IdempotencyCommand, call: IdempotentCall): Promise<number | null> {
    const events = idempotencyDecider.decide(command, state, this.clock())
    if (events.length === 0) return null
    try {
      const appended = await this.store.appendToStream(stream, events.map((event) => this.event(call, event.type, event.data)), state.revision === -1 ? 'no_stream' : state.revision)
      return appended.nextExpectedRevision
    } catch (error) {
      if (isWrongExpectedRevision(error)) return null
      throw error
    }
  }

  private async perform(stream: string, claimRevision: number, call: IdempotentCall, perform: () => Promise<unknown>): Promise<unknown> {
    let outcome: Outcome
    let thrown: unknown
    try {
      outcome = { result: await perform() }
    } catch (error) {
      thrown = error
      outcome = { error: failureOf(error) }
    }
    // The outcome goes right after its claim: if anything else got there first, it is not ours to record.
    try {
      const recordOutcome = { type: 'RecordOutcome', claimRevision, recordedAt: this.clock().toISOString(), outcome } as const
      const claimed = { ...idempotencyDecider.initialState(), revision: claimRevision }
      if ((await this.decideAndAppend(stream, claimed, recordOutcome, call)) === null) throw new Error(`the key's stream moved past its claim (revision ${claimRevision})`)
    } catch (error) {
      // The call happened (or failed) all the same: say so to this caller; repeats will find the claim in doubt,
      // unless the log refused the call itself, when a repeat here may claim the key again.
      if (thrown instanceof StoreUnavailableError) {
        this.refused.add(`${stream}#${claimRevision}`)
        // Only an outage fills it, and a repeat empties it; past this, the oldest wait to be in doubt.
        if (this.refused.size > MAX_REFUSED_CLAIMS) this.refused.delete(this.refused.values().next().value as string)
      }
      this.logger?.error({ err: error, stream }, 'idempotency outcome not recorded')
    } finally {
      this.wake(stream)
    }
    if ('error' in outcome) throw thrown
    return outcome.result
  }

  private event(call: IdempotentCall, type: IdempotencyEvent['type'], data: unknown): NewEvent {
    return {
      id: randomUUID(),
      type,
      data,
      metadata: {
        correlationId: call.correlationId ?? randomUUID(),
        causationId: null,
        actor: { kind: 'api_key', id: call.keyId },
        schemaVersion: 1,
      },
    }
  }

  private pauseOn(stream: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let waiters = this.waiting.get(stream)
      if (!waiters) this.waiting.set(stream, (waiters = new Set()))
      const done = () => {
        clearTimeout(timer)
        waiters.delete(done)
        if (waiters.size === 0 && this.waiting.get(stream) === waiters) this.waiting.delete(stream)
        resolve()
      }
      const timer = setTimeout(done, ms)
      waiters.add(done)
    })
  }

  private wake(stream: string): void {
    for (const done of [...(this.waiting.get(stream) ?? [])]) done()
  }
}
