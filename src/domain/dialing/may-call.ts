/**
 * May this account call (or text) this number now? `mayContact` is the one answer, for a channel:
 * `mayCall` asks it for calls (speed to lead, follow-up, place_call, the dialer as a call goes out,
 * every dry run and get_next_actions' next allowed time), send_sms and the texter for texts. The
 * rules, in order: do-not-call, the number's own opt-out (the account's suppression list), a test lead (a lead form's test submission), the account's caller id, the destination (a valid fixed-line or
 * mobile number in an allowed country: destination.ts), the daily limit (every call to the person
 * counts, whatever its purpose), then calling hours and the lead-time guard (calling-window.ts). The
 * first rule that refuses is the reason.
 * With the lead-time guard on, the calling rules of contact-rules.ts apply: their hours through
 * calling-window.ts, and the smallest daily cap of the state rows reaching the lead must be met as
 * well as the account's. A refusal by a row of that table names it in `rule`.
 *
 * A text is held to the same rules but one: the account's daily limit (the follow-up policy's
 * `max N per 24h`) is a limit on calls and does not count texts. A state row's cap does: we read FL,
 * OK and MD's "3 per 24 h" as covering every solicitation to the person, so texts and calls count
 * together toward it (`textTimes`), for a call as for a text: the stricter reading (docs/send-sms.md).
 */
import { callCountries, type AccountSettings } from '../account/account-settings.ts'
import { callPermission, nextAllowedAt } from './calling-window.ts'
import { stateRulesFor, strictestDailyCap } from './contact-rules.ts'
import { checkDestination } from './destination.ts'
import { parseFollowUpPolicy, withinDailyLimit } from './follow-up-policy.ts'

/** Every reason a call is refused before the carrier is asked; stable codes (docs/errors.md). */
export const CALL_REFUSALS: ReadonlySet<string> = new Set([
  'do_not_call', 'suppressed', 'test_lead', 'no_caller_id', 'phone_not_valid', 'number_type_not_allowed', 'country_not_allowed', 'daily_limit',
  'outside_calling_hours', 'outside_lead_hours', 'no_calling_hours',
])

/** How the person is reached: the rules are the same, but for the daily limits (above). */
export type ContactChannel = 'call' | 'text'

export interface CallCheck {
  readonly allowed: boolean
  /** Stable code when not allowed: one of CALL_REFUSALS. */
  readonly reason: string | null
  readonly message: string
  /** ISO UTC; null when allowed now, or when never. */
  readonly nextAllowedAt: string | null
  readonly accountZone: string
  readonly leadZone: string | null
  /**
   * Every zone the lead may be in: its state's and its number's when they disagree (both must be inside
   * the lead's hours). Empty when neither places the lead, or when a rule before the hours refused.
   */
  readonly leadZones: readonly string[]
  /**
   * At most this many calls to one person in any rolling 24 hours: the follow-up policy's `max N per
   * 24h`, or a state's cap when smaller and the lead-time guard is on.
   */
  readonly dailyLimit: number
  /**
   * The calling rule (a row of contact-rules.ts, e.g. `FL 501.616`) behind this answer: the row that
   * refused (`outside_lead_hours`, `daily_limit`). Absent when no row of the table refused.
   */
  readonly rule?: string
}

export interface CallTargetFacts {
  /** The number the call would ring (E.164). */
  readonly phone: string
  readonly state?: string | undefined
  readonly doNotCall: boolean
  /**
   * This exact number (E.164) opted out by number: on the account's suppression list, read from the
   * log of its last ten digits (the lead's stream), never from a read model, when deciding. Required,
   * so no path can forget it; another number with the same last ten digits is not suppressed by it.
   */
  readonly suppressed: boolean
  /** Received as a lead form's test submission (Google's `is_test`): never dialed or texted. */
  readonly testLead?: boolean
  /** place_call may ring the further countries the account widens it to. */
  readonly placeCall?: boolean
  /**
   * When every earlier call to this person was decided: the daily limit is checked against them.
   * Absent for a call already decided (checked again as it goes out): it was counted when decided.
   */
  readonly attemptTimes?: readonly string[]
  /** When every earlier text to this person was decided: a state's cap counts them with the calls, for a call as for a text. */
  readonly textTimes?: readonly string[]
}

/** A check for either channel: a text to a lead no state cap reaches has no daily limit (null). */
export type ContactCheck = Omit<CallCheck, 'dailyLimit'> & { readonly dailyLimit: number | null }

/**
 * The rules about the person alone, whatever the hour: do-not-call, the number's own opt-out, a test
 * lead. mayContact asks them first; a pay-link, texted when it is asked for, keeps only these.
 */
export function personBarred(channel: ContactChannel, target: Pick<CallTargetFacts, 'phone' | 'doNotCall' | 'suppressed' | 'testLead'>): { reason: string; message: string } | null {
  const verb = channel === 'call' ? 'dialed' : 'texted'
  if (target.doNotCall) return { reason: 'do_not_call', message: `the lead is do-not-call: it is never ${verb}` }
  if (target.suppressed) return { reason: 'suppressed', message: `${target.phone} opted out by number (the account's suppression list): it is never called or texted` }
  if (target.testLead === true) return { reason: 'test_lead', message: "a test lead (a lead form's test submission): it is never dialed or texted" }
  return null
}

/**
 * `hours` is calling-window.ts's `callPermission`; a caller asking for many leads at once may pass a
 * memo of it (get_next_actions does), as its answer depends on the lead only through the lead's zone.
 */
export function mayCall(settings: AccountSettings, target: CallTargetFacts, now: Date, hours: typeof callPermission = callPermission): CallCheck {
  return mayContact('call', settings, target, now, hours) as CallCheck
}

/** The one "may we contact now?" answer, for a call or a text (see above for how they differ). */
export function mayContact(channel: ContactChannel, settings: AccountSettings, target: CallTargetFacts, now: Date, hours: typeof callPermission = callPermission): ContactCheck {
  const accountLimit = channel === 'call' ? parseFollowUpPolicy(settings.followUp).maxPer24h : null
  const stateCap = settings.leadTimeGuard ? strictestDailyCap(stateRulesFor(target)) : null
  // The daily limit shown: the state's cap when it is no looser than the account's.
  const capRule = stateCap !== null && (accountLimit === null || stateCap.max <= accountLimit) ? stateCap.rule : null
  const dailyLimit = capRule === null ? accountLimit : capRule.maxPer24h ?? accountLimit
  // The account's limit counts calls; a state's cap counts calls and texts together. Each must be met.
  const limits: Array<{ readonly max: number; readonly times: readonly string[]; readonly rule: typeof capRule }> =
    target.attemptTimes === undefined
      ? []
      : [
          ...(stateCap === null ? [] : [{ max: stateCap.max, times: [...target.attemptTimes, ...(target.textTimes ?? [])], rule: stateCap.rule }]),
          ...(accountLimit === null ? [] : [{ max: accountLimit, times: target.attemptTimes, rule: null }]),
        ]
  const zones = { accountZone: settings.timeZone, leadZone: null, leadZones: [], dailyLimit }
  const refused = (reason: string, message: string, nextAllowedAt: string | null = null): ContactCheck => ({ allowed: false, reason, message, nextAllowedAt, ...zones })
  const barred = personBarred(channel, target)
  if (barred !== null) return refused(barred.reason, barred.message)
  if (!settings.callerId) {
    return refused('no_caller_id', `the account has no caller id to ${channel} from (leadline account set ID --caller-id +1…)`)
  }
  const destination = checkDestination(target.phone, callCountries(settings, target.placeCall === true))
  if (!destination.allowed) return refused(destination.reason, destination.message)

  const policy = { timeZone: settings.timeZone, callingHours: settings.callingHours, leadTimeGuard: settings.leadTimeGuard }
  const where = { phone: target.phone, ...(target.state ? { state: target.state } : {}) }
  const permission = hours(policy, where, now)
  const placed = { accountZone: permission.accountZone, leadZone: permission.leadZone, leadZones: permission.leadZones, dailyLimit }
  // The limit that holds the contact back longest refuses it (the state's, on a tie: it names the law).
  let binding: { limit: (typeof limits)[number]; freeAt: Date } | null = null
  for (const limit of limits) {
    const freeAt = withinDailyLimit(now, limit.times, limit.max)
    if (freeAt > now && (binding === null || freeAt > binding.freeAt)) binding = { limit, freeAt }
  }
  if (binding !== null) {
    const { limit, freeAt } = binding
    // The next contact must both fit the limit and fall inside the hours.
    const next = nextAllowedAt(policy, where, freeAt)
    const what = limit.rule === null ? 'calls' : 'calls and texts'
    return {
      allowed: false,
      reason: 'daily_limit',
      message: `at most ${limit.max} ${what} to one person in any 24 hours${limit.rule === null ? '' : ` (${limit.rule.rule}, ${limit.rule.citation})`}; the next may go out at ${(next ?? freeAt).toISOString()}`,
      nextAllowedAt: next === null ? null : next.toISOString(),
      ...placed,
      dailyLimit: limit.max,
      ...(limit.rule === null ? {} : { rule: limit.rule.rule }),
    }
  }
  if (permission.allowed) return { allowed: true, reason: null, message: 'allowed now', nextAllowedAt: null, ...placed }
  return {
    allowed: false,
    reason: permission.reason,
    message: permission.message,
    nextAllowedAt: permission.nextAllowedAt,
    ...placed,
    ...(permission.rule === undefined ? {} : { rule: permission.rule }),
  }
}
