/**
 * A lead's calls in a few facts, for the people and agents who decide what to do next (get_lead, the
 * console's lead page): how often the lead was called, how the last call went, and when follow-up
 * calls again. Read from the calls slice's state only, so every view says the same.
 */
import { DateTime } from 'luxon'
import { zoneOrUtc } from '../intake/dates.ts'
import type { CallRecord, DialingState } from './calls.decider.ts'
import type { MenuChoice } from './calls.events.ts'
import { callResult, connectedToOwner, recordOutcomeFacts, type CallResult } from './call-outcome.ts'
import { leadAttemptAt } from './lead-attempts.ts'

export type { CallResult } from './call-outcome.ts'

export interface LastCallOutcome {
  readonly result: CallResult
  /** Machine detection's verdict (`human`, `machine_end_beep`, …, `unknown`); null when there was none. */
  readonly answeredBy: string | null
  readonly voicemailLeft: boolean
  readonly menuChoice: MenuChoice | null
  /** When the lead asked on this call to be called back. */
  readonly callbackAt: string | null
  /** After a connect to the owner (menu key 1, agent-first, the assistant's transfer): whether they talked; null when not asked, or while the owner's phone rings. */
  readonly connectedToOwner: boolean | null
  /** The lead pressed 9 on this call. */
  readonly optedOut: boolean
  readonly at: string
}

export interface CallSummary {
  /**
   * Calls that rang the lead today in the account's time zone: each counts toward the daily limit. An
   * agent-first call counts once the lead was dialed (on that day), never for the owner's legs alone.
   */
  readonly attemptsToday: number
  readonly attemptsTotal: number
  /** The latest call with an outcome; a call still ringing has none yet. */
  readonly lastOutcome: LastCallOutcome | null
  readonly nextFollowUpAt: string | null
}

function outcomeOf(call: CallRecord, at: string): LastCallOutcome {
  const facts = recordOutcomeFacts(call)
  return {
    result: callResult(facts),
    answeredBy: call.answeredBy,
    voicemailLeft: call.voicemail === 'left',
    menuChoice: call.menuChoice,
    callbackAt: call.callbackAt,
    connectedToOwner: connectedToOwner(facts),
    optedOut: call.menuChoice === 'opt_out',
    at,
  }
}

/** The summary of a lead's calls as of `now`; "today" is the calendar day in `timeZone` (the account's). */
export function callSummary(dialing: DialingState, timeZone: string, now: Date): CallSummary {
  const zone = zoneOrUtc(timeZone)
  const today = DateTime.fromJSDate(now, { zone })
  const calls = dialing.order.flatMap((id) => (dialing.calls[id] ? [dialing.calls[id]] : []))
  const attemptsToday = calls.filter((call) => {
    const at = leadAttemptAt(call)
    return at !== null && DateTime.fromISO(at, { zone }).hasSame(today, 'day')
  }).length
  const last = calls.findLast((call) => call.outcomeAt !== null)
  return {
    attemptsToday,
    attemptsTotal: calls.length,
    lastOutcome: last ? outcomeOf(last, last.outcomeAt as string) : null,
    nextFollowUpAt: dialing.pendingFollowUp?.dueAt ?? null,
  }
}
