/**
 * get_next_actions: the leads that need a person (or an agent) now. Stale means contacted but not
 * touched back for longer than the account's threshold, or new and never contacted 15 minutes after
 * arriving. Each comes with the suggested call and when it is next allowed (mayCall).
 */
import type { AccountState } from '../../src/domain/account/account.decider.ts'
import { callPermission, type CallPermission } from '../../src/domain/dialing/calling-window.ts'
import { mayCall } from '../../src/domain/dialing/may-call.ts'
import { leadTimeZone } from '../../src/domain/dialing/lead-time-zone.ts'
import { COUNT_CAP, type LeadActivityRow, type StaleLeadsQueries } from './stale-leads.queries.ts'

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

/** A new lead not contacted within this long is stale. */
export const NEVER_CONTACTED_AFTER_MINUTES = 15
export const DEFAULT_NEXT_ACTIONS = 20
export const MAX_NEXT_ACTIONS = 100

function plural(n: number, one: string, many: string): string {
  const shown = n >= COUNT_CAP ? `${COUNT_CAP.toLocaleString('en-US')}+` : String(n)
  return `${shown} ${n === 1 ? one : many}`
}

function duration(minutes: number): string {
  if (minutes % (24 * 60) === 0) return minutes === 24 * 60 ? '24 hours' : `${minutes / (24 * 60)} days`
  if (minutes % 60 === 0) return `${minutes / 60} hour${minutes === 60 ? '' : 's'}`
  return `${minutes} minutes`
}

/**
 * A calling-hours answer and the span of time it holds for. Windows, the lead guard and zone offsets
 * all change on whole minutes, so "allowed" holds to the end of its minute; "not before T" holds
 * until T (nothing in between is allowed, or T would not be the earliest).
 */
interface PermissionSpan {
  readonly permission: CallPermission
  readonly from: number
  readonly until: number
}

/** Policy-and-zone answers kept; an agent polling get_next_actions asks the same few again and again. */
const PERMISSION_MEMO_SIZE = 10_000
const MINUTE_MS = 60_000

function permissionSpan(permission: CallPermission, at: number): PermissionSpan {
  const endOfMinute = (Math.floor(at / MINUTE_MS) + 1) * MINUTE_MS
  if (permission.allowed) return { permission, from: at, until: endOfMinute }
  const next = permission.nextAllowedAt
  return { permission, from: at, until: next === null ? endOfMinute : Date.parse(next) }
}

/** When each lead's recent calls were decided (the calls read model answers), for the daily limit. */
export interface RecentCallTimes {
  decidedSince(streams: readonly string[], since: string): ReadonlyMap<string, readonly string[]>
}

const DAY_MS = 24 * 60 * 60 * 1000

export class NextActionsQueries {
  private readonly permissions = new Map<string, PermissionSpan>()

  constructor(
    private readonly queries: StaleLeadsQueries,
    private readonly calls: RecentCallTimes,
    private readonly clock: () => Date,
  ) {}

  /** The page get_next_actions answers: the stale leads and a summary of how many there are. */
  async getNextActions(account: AccountState, options: { limit?: number } = {}): Promise<NextActions> {
    const now = this.clock()
    const limit = Math.min(Math.max(Math.trunc(options.limit ?? DEFAULT_NEXT_ACTIONS), 1), MAX_NEXT_ACTIONS)
    const staleAfter = account.settings.staleAfterMinutes
    const newCutoff = new Date(now.getTime() - NEVER_CONTACTED_AFTER_MINUTES * 60_000).toISOString()
    const staleCutoff = new Date(now.getTime() - staleAfter * 60_000).toISOString()
    const id = account.accountId

    const fresh = this.queries.neverContacted(id, newCutoff, limit)
    const waiting = this.queries.contactedUntouched(id, staleCutoff, limit)
    // Half the page each, the rest to whichever has more.
    const half = Math.ceil(limit / 2)
    const takeWaiting = Math.min(waiting.length, Math.max(half, limit - fresh.length))
    const takeFresh = Math.min(fresh.length, limit - takeWaiting)
    const page = [...fresh.slice(0, takeFresh), ...waiting.slice(0, takeWaiting)]
    const recentCalls = this.calls.decidedSince(page.map((row) => row.stream), new Date(now.getTime() - DAY_MS).toISOString())
    const nextAllowed = this.nextAllowedFor(account, now, recentCalls)
    const item = (row: LeadActivityRow, why: 'never_contacted' | 'contacted_untouched'): StaleLead => ({
      lead_id: row.leadId,
      name: row.name,
      phone: row.phone,
      source: row.source,
      last_touch: row.lastTouchAt,
      attempts: row.attempts,
      why,
      suggested_action: why === 'never_contacted' ? 'call: a new lead nobody has reached yet' : 'call again: contacted, no answer or reply since',
      next_allowed_at: nextAllowed(row),
    })
    const stale_leads = [...fresh.slice(0, takeFresh).map((r) => item(r, 'never_contacted')), ...waiting.slice(0, takeWaiting).map((r) => item(r, 'contacted_untouched'))]

    const untouched = waiting.length < limit ? waiting.length : this.queries.countContactedUntouched(id, staleCutoff)
    const never = fresh.length < limit ? fresh.length : this.queries.countNeverContacted(id, newCutoff)
    const summary =
      untouched + never === 0
        ? `No stale leads: every contacted lead was touched within ${duration(staleAfter)} and no new lead has waited over ${NEVER_CONTACTED_AFTER_MINUTES} minutes for a first contact.`
        : `${plural(untouched, 'lead was', 'leads were')} contacted but untouched for over ${duration(staleAfter)}; ${plural(never, 'new lead has', 'new leads have')} not been contacted ${NEVER_CONTACTED_AFTER_MINUTES} minutes after arriving.`
    return { summary, stale_leads }
  }

  /**
   * When each lead's suggested call (a place_call) may go out, as mayCall answers: the caller id, the
   * destination, the daily limit, calling hours and the lead-time guard (the rows are never do-not-call).
   */
  private nextAllowedFor(account: AccountState, now: Date, recentCalls: ReadonlyMap<string, readonly string[]>): (row: LeadActivityRow) => string | null {
    const { timeZone, callingHours, leadTimeGuard } = account.settings
    const policy = `${timeZone}|${leadTimeGuard ? 'guard' : 'no-guard'}|${callingHours}`
    const at = now.getTime()
    // Calling hours depend on the lead only through its zone: one answer per zone, for as long as it holds.
    const hours: typeof callPermission = (rules, target, when) => {
      const key = `${policy}|${leadTimeZone(target)?.zone ?? 'account'}`
      let answer = this.permissions.get(key)
      if (answer === undefined || at < answer.from || at >= answer.until) {
        answer = permissionSpan(callPermission(rules, target, when), at)
        if (this.permissions.size >= PERMISSION_MEMO_SIZE) this.permissions.clear()
        this.permissions.set(key, answer)
      }
      return answer.permission
    }
    return (row) => {
      const target = { phone: row.phone, ...(row.state ? { state: row.state } : {}), doNotCall: false, placeCall: true, attemptTimes: recentCalls.get(row.stream) ?? [] }
      const check = mayCall(account.settings, target, now, hours)
      return check.allowed ? now.toISOString() : check.nextAllowedAt
    }
  }
}
