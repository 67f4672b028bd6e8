/**
 * What the edges (MCP tools, CLI) may ask of dialing and of the stale-leads view. Implemented by
 * src/services/dialing.service.ts and src/services/next-actions.service.ts.
 */
import type { AccountState } from '../domain/account/account.decider.ts'
import type { CommandContext } from '../eventstore/command-handler.ts'
import type { CarrierName } from '../integrations/carrier/carrier.port.ts'
import type { CallCheck } from '../domain/dialing/call-check.ts'

export type { CallCheck }

export interface PlaceCallInput {
  /** Any formatting; read in the account's default country. */
  readonly phone: string
  /** The person's name, used for a new lead and for the whisper to the owner. */
  readonly name: string
  /** Ties the call decision to the caller's idempotency key (the same key never rings twice). */
  readonly idempotencyKey: string
  readonly dryRun: boolean
}

export interface PlaceCallResult {
  /** `placed` after the carrier accepted the call; `would_call` / `would_not_call` for a dry run. */
  readonly status: 'placed' | 'would_call' | 'would_not_call'
  readonly callId: string | null
  readonly leadId: string | null
  readonly from: string | null
  readonly to: string
  readonly carrier: CarrierName
  readonly check: CallCheck
  /** True when the result says what would happen and nothing was changed. */
  readonly dryRun: boolean
}

export interface DialingApi {
  /**
   * Places a real call from the account's caller id (or reports what would happen, for a dry run).
   * Refusals throw DomainError with a call refusal code (CALL_REFUSALS: do_not_call, daily_limit,
   * country_not_allowed, …), phone_invalid, carrier_error or carrier_outcome_unknown.
   */
  placeCall(account: AccountState, input: PlaceCallInput, context: CommandContext): Promise<PlaceCallResult>
}

export interface StaleLead {
  readonly lead_id: string
  readonly name: string | null
  readonly phone: string
  readonly source: string | null
  /** ISO time of the last touch (a call or text out, an answer, a reply, an update). */
  readonly last_touch: string
  readonly attempts: number
  /** `contacted_untouched` or `never_contacted`. */
  readonly why: string
  readonly suggested_action: string
  /** ISO UTC when the suggested call is next allowed; null when never. */
  readonly next_allowed_at: string | null
}

export interface NextActions {
  readonly summary: string
  readonly stale_leads: StaleLead[]
}

export interface NextActionsApi {
  getNextActions(account: AccountState, options?: { limit?: number }): Promise<NextActions>
}
