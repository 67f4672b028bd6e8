/**
 * What the live-call commands share: the call a carrier's report is about, found by the carrier's
 * call id or by Leadline's decision id (a report can outrun the read model, and even the record of
 * its own call), and the account it belongs to.
 */
import type { CommandContext, CommandHandler } from '../eventstore/command-handler.ts'
import type { Carrier } from '../integrations/carrier/carrier.port.ts'
import type { ProjectionRunner } from '../read-models/projection-runner.ts'
import type { AccountState } from '../domain/account/account.decider.ts'
import type { CallRow, CallsQueries } from '../../projections/calls/calls.queries.ts'
import type { ClaimsQueries } from '../../projections/claims/claims.queries.ts'
import { CALL_EFFECT } from '../domain/lead/calls/calls.events.ts'
import type { Accounts } from './accounts.ts'

/** How long a report for a call id not on the log yet waits for an in-flight attempt to record it. */
const CALLBACK_WAIT_MS = 5000

export interface LiveCallDeps {
  readonly commands: CommandHandler
  readonly accounts: Pick<Accounts, 'get'>
  readonly calls: CallsQueries
  /** Whether any call attempt is in flight (a report may then outrun the record of its call). */
  readonly claims: Pick<ClaimsQueries, 'hasClaimsInFlight'>
  readonly runner: ProjectionRunner
  readonly clock: () => Date
  /** The carrier that placed the call: it is asked to play a voicemail or hang up. */
  readonly carrier: () => Pick<Carrier, 'name' | 'updateCall'>
  /** Who claims a voicemail (host and pid). */
  readonly node: string
}

export interface LiveCall {
  readonly call: CallRow
  readonly account: AccountState
}

/** The actor of events a carrier's report causes. */
export function carrierActor(deps: Pick<LiveCallDeps, 'carrier'>): CommandContext {
  return { actor: { kind: 'carrier', id: deps.carrier().name } }
}

/** The call with this carrier id and its account; null when either is not known here. */
export async function callByCarrierId(deps: Pick<LiveCallDeps, 'accounts' | 'calls' | 'claims' | 'runner'>, callId: string): Promise<LiveCall | null> {
  const deadline = performance.now() + CALLBACK_WAIT_MS
  for (;;) {
    const call = deps.calls.byCallId(callId) ?? (await deps.runner.catchUp(), deps.calls.byCallId(callId))
    if (call) return withAccount(deps, call)
    if (performance.now() > deadline || !deps.claims.hasClaimsInFlight(CALL_EFFECT.name)) return null
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The call made for this decision and its account; null when either is not known here. */
export async function callByDecision(deps: Pick<LiveCallDeps, 'accounts' | 'calls' | 'runner'>, decisionId: string): Promise<LiveCall | null> {
  const call = deps.calls.byDecisionId(decisionId) ?? (await deps.runner.catchUp(), deps.calls.byDecisionId(decisionId))
  return call ? withAccount(deps, call) : null
}

async function withAccount(deps: Pick<LiveCallDeps, 'accounts'>, call: CallRow): Promise<LiveCall | null> {
  const account = await deps.accounts.get(call.accountId)
  return account ? { call, account } : null
}
