/**
 * An idempotency key's stream as a decider: a key is claimed when it is free (first use, an expired
 * claim, or a call the log refused), and a claim's outcome is recorded right after it, so an outcome
 * always belongs to the claim before it. Waiting for a simultaneous call's outcome is the
 * command side's (src/commands/idempotency.ts).
 */
import type { Decider, DomainEvent } from '../shared/decider.ts'
import type { IdempotencyEvent, IdempotencyKeyClaimed, RecordedFailure } from './idempotency.events.ts'

export type Claim = IdempotencyKeyClaimed['data']
export type Outcome = { result: unknown } | { error: RecordedFailure }

/** The code a call's outcome carries when the log refused it: nothing was done, so the key is free again. */
export const STORE_UNAVAILABLE = 'store_unavailable'
/**
 * The code of a calendar write whose outcome could not be known: the booking tools act by the key's own
 * appointment id and the event's stable UID, so a repeat runs again and finds what landed.
 */
export const CALENDAR_UNKNOWN_OUTCOME = 'calendar_unknown_outcome'
/** Outcomes that leave the key free for a repeat to run the call afresh. */
const RUN_AGAIN: ReadonlySet<string> = new Set([STORE_UNAVAILABLE, CALENDAR_UNKNOWN_OUTCOME])

export interface IdempotencyState {
  /** The stream's last revision; -1 before the first claim. */
  readonly revision: number
  /** The last claim and its revision, and its outcome once recorded. */
  readonly claim: { readonly data: Claim; readonly revision: number } | null
  readonly outcome: Outcome | null
}

/** What the key's stream says now: free to claim (at `revision`), or claimed, with or without an outcome. */
export type KeyStatus =
  | { readonly kind: 'free'; readonly revision: number }
  | { readonly kind: 'claimed'; readonly claim: Claim; readonly claimRevision: number; readonly outcome: Outcome | null }

export type IdempotencyCommand =
  /** `retake`: the revision of a claim without an outcome that this process may take over (its call and its outcome the log refused). */
  | { readonly type: 'ClaimKey'; readonly claim: Claim; readonly retake?: number }
  | { readonly type: 'RecordOutcome'; readonly claimRevision: number; readonly recordedAt: string; readonly outcome: Outcome }

/**
 * The key's status at `now`. An expired claim leaves the key free, and so does one whose call the
 * log refused (`store_unavailable`): nothing was done, and the tools act on the lead's own record by
 * key (a call or a pay-link decided under it is found there, not made again), so a repeat runs the
 * call afresh once the log takes writes, as the error's retry_after_seconds invites.
 */
export function statusOf(state: IdempotencyState, now: Date): KeyStatus {
  const { claim, outcome } = state
  const refused = outcome !== null && 'error' in outcome && RUN_AGAIN.has(outcome.error.code)
  if (!claim || refused || Date.parse(claim.data.expiresAt) <= now.getTime()) return { kind: 'free', revision: state.revision }
  return { kind: 'claimed', claim: claim.data, claimRevision: claim.revision, outcome }
}

export const idempotencyDecider: Decider<IdempotencyCommand, IdempotencyEvent, IdempotencyState> = {
  initialState: () => ({ revision: -1, claim: null, outcome: null }),
  evolve(state, event) {
    const revision = state.revision + 1
    switch (event.type) {
      case 'IdempotencyKeyClaimed':
        return { revision, claim: { data: event.data, revision }, outcome: null }
      case 'IdempotencyResultRecorded':
        return { ...state, revision, outcome: 'error' in event.data ? { error: event.data.error } : { result: event.data.result } }
    }
  },
  decide(command, state, now) {
    switch (command.type) {
      case 'ClaimKey': {
        const status = statusOf(state, now)
        const retaken = status.kind === 'claimed' && status.outcome === null && status.claimRevision === command.retake
        return status.kind === 'free' || retaken ? [{ type: 'IdempotencyKeyClaimed', data: command.claim }] : []
      }
      case 'RecordOutcome':
        // Only right after its claim: if anything else got there first, the outcome is not this claim's to record.
        if (state.revision !== command.claimRevision) return []
        return [{ type: 'IdempotencyResultRecorded', data: { recordedAt: command.recordedAt, ...command.outcome } }]
    }
  },
}

/** Folds a key's stream (in order, from its first event) into its status at `now`. */
export function keyStatus(events: readonly DomainEvent[], now: Date): KeyStatus {
  return statusOf(foldKey(events), now)
}

export function foldKey(events: readonly DomainEvent[]): IdempotencyState {
  let state = idempotencyDecider.initialState()
  for (const event of events) state = idempotencyDecider.evolve(state, event as IdempotencyEvent)
  return state
}
