/**
 * Events of the `idempotency-{accountId}-{keyDigest}` stream: who claimed an idempotency key for which
 * call, and what that call came to. A stream holds claim, outcome, claim, outcome, …: a claim is
 * appended only when there is no live one (first use, or the previous claim has expired), and its
 * outcome is appended at the revision right after it, so an outcome always belongs to the claim before it.
 */
import type { DomainEvent } from '../shared/decider.ts'
import { sha256Hex } from '../shared/sha256.ts'
import { printable, type EventSummaries } from '../shared/printable.ts'

export type IdempotencyKeyClaimed = DomainEvent<
  'IdempotencyKeyClaimed',
  {
    /** The tool the key was first used with. */
    tool: string
    /** SHA-256 (hex) of the canonical JSON of the tool name and its arguments (without the key and dry_run). */
    argsHash: string
    /** The API key that made the call (any key of the account may replay it). */
    keyId: string
    claimedAt: string
    /** Until when the key is honoured; retention is fixed at claim time, so changing it never revives or shortens a claim. */
    expiresAt: string
  }
>

/** A stable error code and message, as the caller saw them (DomainError codes such as `outside_calling_hours`). */
export interface RecordedFailure {
  readonly code: string
  readonly message: string
  readonly details?: Record<string, unknown>
}

export type IdempotencyResultRecorded = DomainEvent<
  'IdempotencyResultRecorded',
  { recordedAt: string } & ({ result: unknown } | { error: RecordedFailure })
>

export type IdempotencyEvent = IdempotencyKeyClaimed | IdempotencyResultRecorded

/** One stream per account and key; the key itself never reaches the log, only a digest of it. */
export function idempotencyStream(accountId: string, idempotencyKey: string): string {
  return `idempotency-${accountId}-${sha256Hex(idempotencyKey).slice(0, 32)}`
}

export const IDEMPOTENCY_SUMMARIES: EventSummaries<IdempotencyEvent> = {
  IdempotencyKeyClaimed: (d) => `idempotency key claimed for ${printable(d.tool)} by API key ${printable(d.keyId)}, honoured until ${printable(d.expiresAt)}`,
  IdempotencyResultRecorded: (d) => `idempotency result recorded: ${'error' in d ? `failed with ${printable(d.error.code)}` : 'succeeded'}`,
}
