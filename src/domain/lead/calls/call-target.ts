/** Finding a call on the lead, and what the one contact policy weighs for a call to this lead. */
import type { CallCheck, CallTargetFacts } from '../../dialing/may-call.ts'
import { DomainError } from '../../shared/decider.ts'
import * as agentFirst from './agent-first.ts'
import { leadAttemptTimes } from './lead-attempts.ts'
import type { CallPurpose } from './calls.events.ts'
import type { CallRecord, LeadWithCalls } from './dialing-state.ts'

export function requireLead(state: LeadWithCalls): void {
  if (!state.exists || !state.fields) throw new DomainError('lead_not_found', 'lead not found')
}

export function requireCall(state: LeadWithCalls, decisionId: string): CallRecord {
  const call = state.dialing.calls[decisionId]
  if (!call) throw new DomainError('call_not_found', `no call decision ${decisionId} on this lead`)
  return call
}

export function callByCarrierId(state: LeadWithCalls, callId: string): CallRecord {
  const call = state.dialing.order.map((id) => state.dialing.calls[id] as CallRecord).find((c) => c.callId === callId || agentFirst.isOwnerLeg(c, callId))
  if (!call) throw new DomainError('call_not_found', `no call ${callId} on this lead`)
  return call
}

function targetFacts(state: LeadWithCalls, phone: string | undefined, purpose: CallPurpose): CallTargetFacts {
  const fields = state.fields
  const to = phone ?? fields?.phone ?? ''
  return {
    phone: to, ...(fields?.state ? { state: fields.state } : {}), doNotCall: state.doNotCall, suppressed: Object.hasOwn(state.suppressed, to),
    placeCall: purpose === 'place_call', ...(state.test ? { testLead: true } : {}),
  }
}

/** The texts decided to the lead (the texts slice's state, read by shape): a state's cap counts them with the calls. */
export type WithTexts = { readonly texts?: { readonly order: readonly string[]; readonly texts: Readonly<Record<string, { readonly decidedAt: string }>> } }

/**
 * What mayCall weighs for a new call to this lead, of this purpose, to `to` (the lead's own number
 * when absent): every call that rang the lead counts toward the daily limit (lead-attempts.ts), and
 * every text too toward a state's cap. `except`: a call being checked again, left out of its own count.
 */
export function leadCallTarget(state: LeadWithCalls & WithTexts, purpose: CallPurpose, to?: string, except?: string): CallTargetFacts {
  const texts = state.texts
  const textTimes = texts === undefined ? [] : texts.order.map((id) => texts.texts[id]?.decidedAt ?? '')
  return { ...targetFacts(state, to, purpose), attemptTimes: leadAttemptTimes(state.dialing, except), textTimes }
}

/** The same question again as a decided call goes out: its own number, the limit already counted. */
export function decidedCallTarget(state: LeadWithCalls, call: CallRecord): CallTargetFacts {
  return targetFacts(state, call.to, call.purpose)
}

/** The calls that rang the lead (every purpose; agent-first only once the lead was dialed): what the daily limit counts. */
export function attemptTimes(state: LeadWithCalls): string[] {
  return leadAttemptTimes(state.dialing)
}

/** A refusal as place_call reports it: the rule's code, when a call is next allowed, and the daily limit. */
export function callRefused(check: CallCheck): DomainError {
  return new DomainError(check.reason as string, check.message, { next_allowed_at: check.nextAllowedAt, daily_limit: check.dailyLimit, ...(check.rule === undefined ? {} : { rule: check.rule }) })
}

/** The calling rule that refused, as an optional event field (absent in older events and when none did). */
export function ruleOf(check: Pick<CallCheck, 'rule'>): { rule?: string } {
  return check.rule === undefined ? {} : { rule: check.rule }
}
