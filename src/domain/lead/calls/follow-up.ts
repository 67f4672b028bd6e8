/** Follow-up: the next step of the account's policy after a call or a text step, and what holds, stops, pauses or resumes it. */
import type { AccountSettings } from '../../account/account-settings.ts'
import { mayCall, type CallCheck } from '../../dialing/may-call.ts'
import { followUpDueAt, parseFollowUpPolicy, withinDailyLimit } from '../../dialing/follow-up-policy.ts'
import { attemptTimes, leadCallTarget, requireLead, ruleOf } from './call-target.ts'
import type { CallEvent, FollowUpStopped } from './calls.events.ts'
import type { DialingState, LeadWithCalls } from './dialing-state.ts'

/** A lead that becomes do-not-call stops its pending follow-up at once. */
export function stopFollowUpForDoNotCall(state: DialingState, at: string): FollowUpStopped[] {
  if (!state.pendingFollowUp) return []
  return [{ type: 'FollowUpStopped', data: { reason: 'do_not_call', message: 'the lead became do-not-call', at } }]
}

const REPLIED = { reason: 'replied', message: 'the lead replied by text' } as const

/** A lead who texts back stops its pending follow-up at once, as an answer does. */
export function stopFollowUpForReply(state: DialingState, at: string): FollowUpStopped[] {
  if (!state.pendingFollowUp) return []
  return [{ type: 'FollowUpStopped', data: { ...REPLIED, at } }]
}

/** How many of the policy's steps were taken (follow-up calls, a callback among them, and text steps): the index of the next. */
function followUpStepsTaken(dialing: DialingState): number {
  return dialing.order.filter((id) => dialing.calls[id]?.purpose === 'follow_up').length + dialing.followUpTexts
}

/**
 * The text step the pending follow-up is, when it is one: the policy's next step (numbered from 1),
 * read when it falls due. A callback the lead asked for is always a call.
 */
export function pendingFollowUpText(dialing: DialingState, settings: AccountSettings): { readonly step: number; readonly template: string } | null {
  if (dialing.pendingFollowUp === null || dialing.callbackAt !== null || dialing.pendingFollowUp.connectMissed === true) return null
  const index = followUpStepsTaken(dialing)
  const template = parseFollowUpPolicy(settings.followUp).steps[index]?.text
  return template === undefined ? null : { step: index + 1, template }
}

/** A follow-up text step was decided (texts/): that step is taken, as a follow-up call's decision takes its step. */
export function followUpTextDecided(dialing: DialingState): DialingState {
  return { ...dialing, pendingFollowUp: null, followUpTexts: dialing.followUpTexts + 1 }
}

/**
 * After a call that was not answered, or a text step: the next follow-up per the account's policy,
 * or the reason there is none. A call step waits for the daily call limit; a text step does not
 * count toward it (the contact rules check it when it falls due).
 */
export function nextFollowUp(state: LeadWithCalls, settings: AccountSettings, afterDecisionId: string, now: Date): CallEvent[] {
  const at = now.toISOString()
  if (state.doNotCall) return [{ type: 'FollowUpStopped', data: { reason: 'do_not_call', message: 'the lead is do-not-call', at } }]
  // A reply ends the cadence for good, as an answer does: a later unanswered call starts no new one.
  if (state.lastReplyAt !== null) return [{ type: 'FollowUpStopped', data: { ...REPLIED, at } }]
  const policy = parseFollowUpPolicy(settings.followUp)
  const index = followUpStepsTaken(state.dialing)
  const step = policy.steps[index]
  if (!step) {
    const message = policy.steps.length === 0 ? 'follow-up is off for this account' : `all ${policy.steps.length} follow-ups were tried`
    return [{ type: 'FollowUpStopped', data: { reason: policy.steps.length === 0 ? 'policy_off' : 'attempts_exhausted', message, at } }]
  }
  const dueAt = followUpDueAt(step, now, settings.timeZone)
  const due = step.text === undefined ? withinDailyLimit(dueAt, attemptTimes(state), policy.maxPer24h) : dueAt
  const text = step.text === undefined ? {} : { textStep: index + 1 }
  return [{ type: 'FollowUpScheduled', data: { leadId: state.leadId, attempt: state.dialing.order.length + 1, dueAt: due.toISOString(), afterDecisionId, ...text } }]
}

/**
 * A due follow-up the contact check refused: stopped for good when it can never go out (do-not-call,
 * no caller id, no allowed time), else moved to the next allowed time. Calls and text steps alike.
 */
export function followUpHeld(check: Pick<CallCheck, 'reason' | 'message' | 'nextAllowedAt' | 'rule'>, attempt: number, at: string): CallEvent[] {
  const reason = check.reason as string
  if (reason === 'do_not_call' || reason === 'no_caller_id' || check.nextAllowedAt === null) {
    return [{ type: 'FollowUpStopped', data: { reason, message: check.message, at } }]
  }
  return [{ type: 'FollowUpRescheduled', data: { attempt, dueAt: check.nextAllowedAt, reason, message: check.message, ...ruleOf(check) } }]
}

/** Lifts a pause: a pending follow-up already due goes out at the next moment the contact policy allows (now, if it does). */
export function resumeFollowUp(state: LeadWithCalls, settings: AccountSettings, now: Date): CallEvent[] {
  requireLead(state)
  if (state.dialing.followUpPaused === null) return []
  const at = now.toISOString()
  const events: CallEvent[] = [{ type: 'FollowUpResumed', data: { leadId: state.leadId, at } }]
  const pending = state.dialing.pendingFollowUp
  if (pending === null || new Date(pending.dueAt) > now) return events
  const check = mayCall(settings, leadCallTarget(state, 'follow_up'), now)
  // Never allowed (do-not-call, no caller id): the claim stops it when due, with the reason.
  const dueAt = check.allowed || check.nextAllowedAt === null ? at : check.nextAllowedAt
  return [...events, { type: 'FollowUpRescheduled', data: { attempt: pending.attempt, dueAt, reason: 'resumed', message: 'follow-up resumed', ...ruleOf(check.allowed ? {} : check) } }]
}
