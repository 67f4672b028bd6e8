/**
 * Click-to-call from the console (issue #44): Leadline rings the owner's phone first and dials the lead
 * only once the owner pressed 1: agent-first for this one call, whatever the account's other calls do.
 * The owner's phone is the one the account's on-answer names (ownerPhones). Every rule of may-call.ts
 * applies to the lead as it would to place_call (do-not-call, suppression, the hours, the daily cap),
 * when decided and again as the lead is dialed; the form's idempotency key makes a double click one call.
 */
import type { AccountState } from '../domain/account/account.decider.ts'
import { mayCall, type CallCheck } from '../domain/dialing/may-call.ts'
import { ownerPhones } from '../domain/dialing/on-answer.ts'
import { callRefused, leadCallTarget, type CallRecord } from '../domain/lead/calls/calls.decider.ts'
import { leadDecider } from '../domain/lead/lead.decider.ts'
import { DomainError } from '../domain/shared/decider.ts'
import { newId } from '../domain/shared/ids.ts'
import type { CommandContext } from '../eventstore/command-handler.ts'
import { dialDecided, type PlaceCallDeps } from './place-call.command.ts'

export interface ClickToCallResult {
  /** The lead's call decision (`dec_…`). */
  readonly decisionId: string
  /** The carrier's id of the owner's leg, rung first. */
  readonly callId: string
  /** The owner's numbers, rung in turn until one presses 1. */
  readonly ownerNumbers: readonly string[]
  /** The lead's number, dialed after the owner pressed 1. */
  readonly to: string
}

/** May the account click-to-call this lead now? mayCall's answer for a call to the lead (owner legs do not count toward its cap). */
export async function clickToCallCheck(deps: Pick<PlaceCallDeps, 'commands' | 'clock'>, account: AccountState, stream: string): Promise<CallCheck> {
  const { state } = await deps.commands.load(stream, leadDecider)
  if (!state.exists) throw new DomainError('lead_not_found', 'no such lead in this account')
  return mayCall(account.settings, leadCallTarget(state, 'place_call'), deps.clock())
}

/**
 * Rings the owner, then (on 1) the lead of `stream`. Refusals throw DomainError: lead_not_found,
 * owner_phone_required (the account names no owner phone), a call refusal code (do_not_call,
 * outside_lead_hours, daily_limit, …, with its rule), carrier_error or carrier_outcome_unknown.
 */
export async function clickToCall(deps: PlaceCallDeps, account: AccountState, stream: string, idempotencyKey: string, context: CommandContext): Promise<ClickToCallResult> {
  const owners = ownerPhones(account.settings.onAnswer)
  if (owners.length === 0) {
    throw new DomainError('owner_phone_required', 'the account names no owner phone to ring first: set one in Settings (on answer: bridge:+1… or agent-first:+1…)')
  }
  const loaded = await deps.commands.load(stream, leadDecider)
  if (!loaded.state.exists) throw new DomainError('lead_not_found', 'no such lead in this account')
  // A key already used answers its own call, even if a new one would be refused now.
  const spent = Object.values(loaded.state.dialing.calls).some((c) => c.idempotencyKey === idempotencyKey)
  const check = mayCall(account.settings, leadCallTarget(loaded.state, 'place_call'), deps.clock())
  if (!check.allowed && !spent) throw callRefused(check)
  const decided = await deps.commands.handle(
    stream,
    leadDecider,
    { type: 'DecidePlaceCall', settings: account.settings, decisionId: newId('dec'), idempotencyKey, ownerNumbers: owners },
    context,
  )
  const call = Object.values(decided.state.dialing.calls).find((c) => c.idempotencyKey === idempotencyKey) as CallRecord
  const callId = await dialDecided(deps, stream, call)
  return { decisionId: call.decisionId, callId, ownerNumbers: call.ownerNumbers ?? owners, to: call.to }
}
