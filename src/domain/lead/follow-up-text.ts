/**
 * A follow-up text step falling due: where the calls slice's timers meet the texts slice's decision.
 * The pending follow-up is claimed by deciding its text (`TextDecided`, reason `follow_up`, the step's
 * number), checked by the one contact policy for the text channel (hours, the lead's rules,
 * do-not-call, the destination; the account's call limit does not count texts), with the next step
 * scheduled in the same append, timed from the text as after a call that was not answered. The
 * texter then sends it once (claim before send).
 */
import type { AccountSettings } from '../account/account-settings.ts'
import { fillTemplate } from '../shared/template.ts'
import { DomainError } from '../shared/decider.ts'
import { followUpHeld, followUpTextDecided, nextFollowUp, pendingFollowUpText, type DialingState } from './calls/calls.decider.ts'
import type { CallEvent } from './calls/calls.events.ts'
import type { IntakeState } from './intake/intake.decider.ts'
import { checkText, decideTexts, type TextsState } from './texts/texts.decider.ts'
import type { TextEvent } from './texts/texts.events.ts'

/** A lead's first name in a text is cut to this many characters, so a long one cannot make the text too long to send. */
const MAX_NAME_IN_TEXT = 60
/** `{business}` when the timer did not say the account's name. */
const NO_BUSINESS_NAME = 'our team'

type LeadWithCallsAndTexts = IntakeState & { readonly dialing: DialingState; readonly texts: TextsState }

export interface ClaimFollowUpText {
  readonly settings: AccountSettings
  readonly attempt: number
  readonly decisionId: string
  /** The text's id (a call's `decisionId` when absent). */
  readonly textId?: string
  readonly business?: string
}

/** A text step's message for this lead, placeholders filled (the texts slice adds the opt-out line). */
export function followUpTextBody(template: string, state: IntakeState, settings: AccountSettings, business: string | undefined): string {
  const fields = state.fields
  const firstName = (fields?.firstName ?? fields?.fullName?.split(/\s+/)[0] ?? '').slice(0, MAX_NAME_IN_TEXT).trim()
  return fillTemplate(template, { first_name: firstName || 'there', business: business ?? NO_BUSINESS_NAME, callback_number: settings.callerId ?? '' })
}

/**
 * The events that claim the pending follow-up when it is a text step due now; null when it is not
 * (a call, not due, claimed already, or the lead answered: the calls slice answers those).
 */
export function claimFollowUpText(command: ClaimFollowUpText, state: LeadWithCallsAndTexts, now: Date): Array<CallEvent | TextEvent> | null {
  const pending = state.dialing.pendingFollowUp
  if (!pending || pending.attempt !== command.attempt || new Date(pending.dueAt) > now || state.dialing.answeredAt !== null) return null
  const step = pendingFollowUpText(state.dialing, command.settings)
  if (step === null) return null
  const at = now.toISOString()
  const check = checkText(command.settings, state, now)
  if (!check.allowed) return followUpHeld(check, pending.attempt, at)
  const body = followUpTextBody(step.template, state, command.settings, command.business)
  const textId = command.textId ?? command.decisionId
  let decided: TextEvent[]
  try {
    decided = decideTexts({ type: 'DecideText', settings: command.settings, textId, reason: 'follow_up', body, idempotencyKey: null, step: step.step }, state, now)
  } catch (error) {
    // The filled text cannot go out (too long for one message): stopped, with why, rather than retried for ever.
    if (!(error instanceof DomainError)) throw error
    return [{ type: 'FollowUpStopped', data: { reason: error.code, message: `text step ${step.step}: ${error.message}`, at } }]
  }
  const after = { ...state, dialing: followUpTextDecided(state.dialing) }
  return [...decided, ...nextFollowUp(after, command.settings, textId, now)]
}
