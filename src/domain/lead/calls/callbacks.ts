/** Callbacks: the lead's menu (a key for a person, a callback, an opt-out), the callback they ask for, and the one the account schedules. */
import type { AccountSettings } from '../../account/account-settings.ts'
import { mayCall } from '../../dialing/may-call.ts'
import { DomainError } from '../../shared/decider.ts'
import { callRefused, leadCallTarget, requireCall, requireLead } from './call-target.ts'
import type { CallEvent, MenuChoice } from './calls.events.ts'
import type { LeadWithCalls } from './dialing-state.ts'

/** A lead who presses 2 is called back about this long after, inside calling hours. */
export const CALLBACK_AFTER_MS = 60 * 60 * 1000
/** How far ahead the account may schedule a callback: further out, the calling rules and the lead's interest are guesses. */
export const MAX_CALLBACK_AHEAD_MS = 30 * 24 * 60 * 60 * 1000

const MENU_DIGIT = /^[0-9*#]$/

/**
 * A key the lead pressed: a person is on the line, so the call is answered (if machine detection had
 * not said so yet). `1` connects the owner (when there is one), `2` asks for a callback inside calling
 * hours that follow-up then makes, `9` opts out (the lead decider marks the lead do-not-call). Once
 * per call: a repeated key changes nothing.
 */
export function pressMenuKey(state: LeadWithCalls, settings: AccountSettings, decisionId: string, digit: string, ownerNumber: string | null, now: Date): CallEvent[] {
  const call = requireCall(state, decisionId)
  if (call.callId === null || call.ended || call.machine || call.menuChoice !== null) return []
  const at = now.toISOString()
  const ref = { decisionId, callId: call.callId }
  const events: CallEvent[] = []
  if (!call.answered) {
    events.push({ type: 'CallAnswered', data: { ...ref, answeredBy: 'human', at } })
    if (state.dialing.pendingFollowUp) events.push({ type: 'FollowUpStopped', data: { reason: 'answered', message: 'the lead answered', at } })
  }
  const key = MENU_DIGIT.test(digit) ? digit : ''
  const choice: MenuChoice = key === '1' && ownerNumber !== null ? 'connect' : key === '2' ? 'callback' : key === '9' ? 'opt_out' : 'none'
  events.push({ type: 'MenuKeyPressed', data: { ...ref, digit: key, choice, at } })
  if (choice === 'callback') {
    const callbackAt = callbackTime(state, settings, now)
    if (callbackAt !== null) {
      events.push({ type: 'CallbackRequested', data: { decisionId, callbackAt, at } })
      events.push({ type: 'FollowUpScheduled', data: { leadId: state.leadId, attempt: state.dialing.order.length + 1, dueAt: callbackAt, afterDecisionId: decisionId } })
    }
  }
  return events
}

/**
 * The lead asked for a person (menu key 1, the assistant's transfer) and reached nobody: follow-up
 * calls them back at callbackTime, in place of any pending step; nothing when they may never be called
 * again, or a callback they asked for is already pending.
 */
export function connectMissedFollowUp(state: LeadWithCalls, settings: AccountSettings, decisionId: string, now: Date): CallEvent[] {
  if (state.doNotCall || state.dialing.callbackAt !== null || state.dialing.followUpPaused !== null) return []
  const dueAt = callbackTime(state, settings, now)
  if (dueAt === null) return []
  return [{ type: 'FollowUpScheduled', data: { leadId: state.leadId, attempt: state.dialing.order.length + 1, dueAt, afterDecisionId: decisionId, connectMissed: true } }]
}

/** An hour from now, or the first moment after it a call is allowed (calling hours, the lead's hours, the daily limit); null when never. */
export function callbackTime(state: LeadWithCalls, settings: AccountSettings, now: Date): string | null {
  const candidate = new Date(now.getTime() + CALLBACK_AFTER_MS)
  const check = mayCall(settings, leadCallTarget(state, 'follow_up'), candidate)
  return check.allowed ? candidate.toISOString() : check.nextAllowedAt
}

/**
 * The account's callback: refused in the past, too far ahead, while follow-up is paused, or when the
 * one contact policy would not allow a call to this lead at that moment (with `next_allowed_at`).
 * It takes the place of any pending follow-up; follow-up claims it when due, as a lead's own callback.
 */
export function scheduleCallback(state: LeadWithCalls, settings: AccountSettings, callbackAt: string, now: Date): CallEvent[] {
  requireLead(state)
  const when = new Date(callbackAt)
  if (Number.isNaN(when.getTime())) throw new DomainError('invalid_callback_at', 'callback_at must be an ISO-8601 time with an offset')
  if (when.getTime() < now.getTime()) throw new DomainError('callback_in_past', `callback_at ${callbackAt} is in the past`, { now: now.toISOString() })
  if (when.getTime() > now.getTime() + MAX_CALLBACK_AHEAD_MS) {
    throw new DomainError('callback_too_far', `callback_at must be at most ${MAX_CALLBACK_AHEAD_MS / 86_400_000} days ahead`, { latest: new Date(now.getTime() + MAX_CALLBACK_AHEAD_MS).toISOString() })
  }
  if (state.dialing.followUpPaused !== null) throw new DomainError('follow_up_paused', "this lead's follow-up is paused: resume_follow_up first")
  const check = mayCall(settings, leadCallTarget(state, 'follow_up'), when)
  if (!check.allowed) throw callRefused(check)
  const dueAt = when.toISOString()
  const after = state.dialing.order[state.dialing.order.length - 1] ?? ''
  return [
    { type: 'CallbackScheduled', data: { leadId: state.leadId, callbackAt: dueAt, replacedDueAt: state.dialing.pendingFollowUp?.dueAt ?? null, at: now.toISOString() } },
    { type: 'FollowUpScheduled', data: { leadId: state.leadId, attempt: state.dialing.order.length + 1, dueAt, afterDecisionId: after } },
  ]
}
