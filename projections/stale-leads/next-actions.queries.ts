/**
 * get_next_actions: the leads that need a person (or an agent) now. First what leads asked for: a
 * call back (they called and nobody took it), a text back (a reply), then a callback that is due, a lead the voice assistant qualified, a press of 1 that reached
 * nobody, a no-show (marked, or an appointment that ended with no mark) and an appointment today. Then the stale ones:
 * contacted but not touched back for longer than the account's threshold, or new and never contacted
 * 15 minutes after arriving. Each comes with the suggested call and when it is next allowed (mayCall).
 */
import type { AccountState } from '../../src/domain/account/account.decider.ts'
import { callPermission, leadHoursKey, type CallPermission } from '../../src/domain/dialing/calling-window.ts'
import { mayCall, type CallCheck } from '../../src/domain/dialing/may-call.ts'
import { leadTimeZones } from '../../src/domain/dialing/lead-time-zone.ts'
import { COUNT_CAP, type LeadActivityRow, type StaleLeadsQueries } from './stale-leads.queries.ts'
import type { AppointmentRow, AppointmentsQueries, NoShowRow } from '../appointments/appointments.queries.ts'

export interface StaleLead {
  readonly lead_id: string
  readonly name: string | null
  readonly phone: string
  readonly source: string | null
  /** ISO time of the last touch (a call or text out, an answer, a reply, an update). */
  readonly last_touch: string
  readonly attempts: number
  /** `call_back`, `replied`, `callback_due`, `assistant_qualified`, `connect_missed`, `appointment_no_show`, `appointment_today`, `never_contacted` or `contacted_untouched`, in that order of urgency. */
  readonly why: Why
  /** `call_back` only: when the missed inbound call came in (ISO UTC). */
  readonly called_at?: string
  /** `appointment_no_show` and `appointment_today` only: the appointment (`marked`: false when it ended with no mark yet). */
  readonly appointment?: NextActionAppointment
  readonly suggested_action: string
  /** ISO UTC when the suggested call is next allowed; null when never. */
  readonly next_allowed_at: string | null
  /** Every zone the lead may be in (its state's and its number's when they disagree); the call waits for all. */
  readonly lead_zones: string[]
}

export interface NextActionAppointment {
  readonly appointment_id: string
  readonly type: string
  readonly start: string
  readonly end: string
  readonly status: string
  readonly marked: boolean
}

export interface NextActions {
  readonly summary: string
  readonly stale_leads: StaleLead[]
}

/** The same page with the policy's whole answer for each lead's call (which rule holds it back): the console's call-now queue. */
export interface CallQueue extends NextActions {
  readonly checks: ReadonlyMap<string, CallCheck>
  /** What the read model knows of each (when they replied, asked for a callback, pressed 1), by lead id. */
  readonly rows: ReadonlyMap<string, LeadActivityRow>
}

export type Why = 'call_back' | 'replied' | 'callback_due' | 'assistant_qualified' | 'connect_missed' | 'appointment_no_show' | 'appointment_today' | 'never_contacted' | 'contacted_untouched'

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

function suggestedAction(row: LeadActivityRow, why: Why, appointment: AppointmentRow | NoShowRow | undefined): string {
  switch (why) {
    case 'call_back':
      return `call back: the lead called at ${row.missedCallAt} and nobody took the call`
    case 'replied':
      return `replied: call now: the lead texted back at ${row.repliedAt} and nobody has called since`
    case 'callback_due':
      return row.callbackBy === 'account'
        ? `call back: a callback was scheduled (schedule_callback) for ${row.callbackAt}`
        : `call back: the lead asked (pressing 2) to be called back at ${row.callbackAt}`
    case 'assistant_qualified':
      return `call now: the voice assistant qualified the lead at ${row.qualifiedAt} (its answers are in get_lead)`
    case 'connect_missed':
      return 'call now: the lead pressed 1 to talk to someone and the owner did not pick up'
    case 'appointment_no_show':
      return appointment !== undefined && 'kind' in appointment && appointment.kind === 'unmarked'
        ? `mark attended or no-show (update_lead appointment): the ${appointment.typeName} appointment ended at ${appointment.end} with no mark`
        : `call: the lead did not come to the ${appointment?.typeName ?? ''} appointment at ${appointment?.start ?? ''} (follow-up calls again)`
    case 'appointment_today':
      return `appointment today: ${appointment?.typeName ?? ''} at ${appointment?.start ?? ''}; mark attended or no-show once it has begun`
    case 'never_contacted':
      return 'call: a new lead nobody has reached yet'
    case 'contacted_untouched':
      return 'call again: contacted, no answer or reply since'
  }
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
    private readonly appointments: AppointmentsQueries,
  ) {}

  /** The listed leads (not do-not-call) the appointments belong to, by stream. */
  private leadsOf(accountId: string, appointments: readonly AppointmentRow[]): ReadonlyMap<string, LeadActivityRow> {
    if (appointments.length === 0) return new Map()
    const rows = this.queries.byStreams(accountId, [...new Set(appointments.map((a) => a.stream))])
    return new Map(rows.map((row) => [row.stream, row]))
  }

  /** The page get_next_actions answers: the stale leads and a summary of how many there are. */
  async getNextActions(account: AccountState, options: { limit?: number } = {}): Promise<NextActions> {
    const { summary, stale_leads } = await this.getCallQueue(account, options)
    return { summary, stale_leads }
  }

  /** get_next_actions' page, each lead with mayCall's answer for its call now (by lead id). */
  async getCallQueue(account: AccountState, options: { limit?: number } = {}): Promise<CallQueue> {
    const now = this.clock()
    const limit = Math.min(Math.max(Math.trunc(options.limit ?? DEFAULT_NEXT_ACTIONS), 1), MAX_NEXT_ACTIONS)
    const staleAfter = account.settings.staleAfterMinutes
    const newCutoff = new Date(now.getTime() - NEVER_CONTACTED_AFTER_MINUTES * 60_000).toISOString()
    const staleCutoff = new Date(now.getTime() - staleAfter * 60_000).toISOString()
    const id = account.accountId

    // What the leads asked for comes first, each group newest first; a lead is listed once, for its most urgent reason.
    const missedCalls = this.queries.missedCalls(id, limit)
    const replied = this.queries.replied(id, limit)
    const due = this.queries.callbacksDue(id, now.toISOString(), limit)
    const qualified = this.queries.qualified(id, limit)
    const missed = this.queries.connectsMissed(id, limit)
    const noShows = this.appointments.noShows(id, now, limit)
    const today = this.appointments.today(id, now, account.settings.timeZone, limit)
    const ofAppointments = this.leadsOf(id, [...noShows, ...today])
    const appointmentOf = new Map<string, AppointmentRow | NoShowRow>()
    const appointmentRows = (rows: readonly AppointmentRow[]): LeadActivityRow[] =>
      rows.flatMap((appointment) => {
        const lead = ofAppointments.get(appointment.stream)
        if (lead === undefined || appointmentOf.has(lead.leadId)) return []
        appointmentOf.set(lead.leadId, appointment)
        return [lead]
      })
    const noShowLeads = appointmentRows(noShows)
    const todayLeads = appointmentRows(today)
    const asked: Array<[LeadActivityRow, Why]> = []
    const listed = new Set<string>()
    for (const [rows, why] of [
      [missedCalls, 'call_back'], [replied, 'replied'], [due, 'callback_due'], [qualified, 'assistant_qualified'], [missed, 'connect_missed'],
      [noShowLeads, 'appointment_no_show'], [todayLeads, 'appointment_today'],
    ] as const) {
      for (const row of rows) {
        if (listed.has(row.stream) || asked.length >= limit) continue
        asked.push([row, why])
        listed.add(row.stream)
      }
    }

    const freshRows = this.queries.neverContacted(id, newCutoff, limit)
    const waitingRows = this.queries.contactedUntouched(id, staleCutoff, limit)
    const fresh = freshRows.filter((row) => !listed.has(row.stream))
    const waiting = waitingRows.filter((row) => !listed.has(row.stream))
    // The rest of the page: half each, the rest to whichever has more.
    const room = limit - asked.length
    const half = Math.ceil(room / 2)
    const takeWaiting = Math.min(waiting.length, Math.max(half, room - fresh.length))
    const takeFresh = Math.min(fresh.length, room - takeWaiting)
    const page: Array<[LeadActivityRow, Why]> = [
      ...asked,
      ...fresh.slice(0, takeFresh).map((row) => [row, 'never_contacted'] as [LeadActivityRow, Why]),
      ...waiting.slice(0, takeWaiting).map((row) => [row, 'contacted_untouched'] as [LeadActivityRow, Why]),
    ]
    const recentCalls = this.calls.decidedSince(page.map(([row]) => row.stream), new Date(now.getTime() - DAY_MS).toISOString())
    const checkOf = this.checkFor(account, now, recentCalls)
    const checks = new Map<string, CallCheck>()
    const nextAllowed = (row: LeadActivityRow): string | null => {
      const check = checkOf(row)
      checks.set(row.leadId, check)
      return check.allowed ? now.toISOString() : check.nextAllowedAt
    }
    const stale_leads = page.map(([row, why]): StaleLead => ({
      lead_id: row.leadId,
      name: row.name,
      phone: row.phone,
      source: row.source,
      last_touch: row.lastTouchAt,
      attempts: row.attempts,
      why,
      ...(why === 'call_back' && row.missedCallAt !== null ? { called_at: row.missedCallAt } : {}),
      ...appointmentField(why, appointmentOf.get(row.leadId)),
      suggested_action: suggestedAction(row, why, appointmentOf.get(row.leadId)),
      next_allowed_at: nextAllowed(row),
      lead_zones: leadTimeZones({ phone: row.phone, ...(row.state ? { state: row.state } : {}) }).map((z) => z.zone),
    }))

    const calledIn = missedCalls.length < limit ? missedCalls.length : this.queries.countMissedCalls(id)
    const replies = replied.length < limit ? replied.length : this.queries.countReplied(id)
    const callbacks = due.length < limit ? due.length : this.queries.countCallbacksDue(id, now.toISOString())
    const connects = missed.length < limit ? missed.length : this.queries.countConnectsMissed(id)
    // Leads (not do-not-call), each once; past a page, the appointments counted.
    const leadsWith = (rows: readonly AppointmentRow[]) => new Set(rows.filter((a) => ofAppointments.has(a.stream)).map((a) => a.stream)).size
    const absent = noShows.length < limit ? leadsWith(noShows) : this.appointments.countNoShows(id, now)
    const booked = today.length < limit ? leadsWith(today) : this.appointments.countToday(id, now, account.settings.timeZone)
    const untouched = waitingRows.length < limit ? waitingRows.length : this.queries.countContactedUntouched(id, staleCutoff)
    const never = freshRows.length < limit ? freshRows.length : this.queries.countNeverContacted(id, newCutoff)
    const stale =
      untouched + never === 0
        ? `No stale leads: every contacted lead was touched within ${duration(staleAfter)} and no new lead has waited over ${NEVER_CONTACTED_AFTER_MINUTES} minutes for a first contact.`
        : `${plural(untouched, 'lead was', 'leads were')} contacted but untouched for over ${duration(staleAfter)}; ${plural(never, 'new lead has', 'new leads have')} not been contacted ${NEVER_CONTACTED_AFTER_MINUTES} minutes after arriving.`
    const wanted = [
      ...(calledIn > 0 ? [`${plural(calledIn, 'lead', 'leads')} called and ${calledIn === 1 ? 'was' : 'were'} not answered`] : []),
      ...(replies > 0 ? [`${plural(replies, 'lead', 'leads')} replied by text and ${replies === 1 ? 'was' : 'were'} not called since`] : []),
      ...(callbacks > 0 ? [`${plural(callbacks, 'lead is', 'leads are')} due the callback they asked for`] : []),
      ...(connects > 0 ? [`${plural(connects, 'lead', 'leads')} pressed 1 to talk to someone and ${connects === 1 ? 'was' : 'were'} not connected`] : []),
      ...(absent > 0 ? [`${plural(absent, 'lead', 'leads')} missed an appointment or ${absent === 1 ? 'its' : 'their'} appointment has no mark yet`] : []),
      ...(booked > 0 ? [`${plural(booked, 'lead has', 'leads have')} an appointment today`] : []),
    ]
    const rows = new Map(page.map(([row]) => [row.leadId, row]))
    return { summary: wanted.length === 0 ? stale : `${wanted.join('; ')}. ${stale}`, stale_leads, checks, rows }
  }

  /**
   * When each lead's suggested call (a place_call) may go out, as mayCall answers: the caller id, the
   * destination, the daily limit, calling hours and the lead-time guard (the rows are never do-not-call).
   */
  private checkFor(account: AccountState, now: Date, recentCalls: ReadonlyMap<string, readonly string[]>): (row: LeadActivityRow) => CallCheck {
    const { timeZone, callingHours, leadTimeGuard } = account.settings
    const policy = `${timeZone}|${leadTimeGuard ? 'guard' : 'no-guard'}|${callingHours}`
    const at = now.getTime()
    // Calling hours depend on the lead only through its zones and state rows: one answer per such key, for as long as it holds.
    const hours: typeof callPermission = (rules, target, when) => {
      const key = `${policy}|${leadHoursKey(target)}`
      let answer = this.permissions.get(key)
      if (answer === undefined || at < answer.from || at >= answer.until) {
        answer = permissionSpan(callPermission(rules, target, when), at)
        if (this.permissions.size >= PERMISSION_MEMO_SIZE) this.permissions.clear()
        this.permissions.set(key, answer)
      }
      return answer.permission
    }
    return (row) => {
      // A listing: the lead's own number opting out flags the lead (no row here); place_call decides on the log.
      const target = { phone: row.phone, ...(row.state ? { state: row.state } : {}), doNotCall: false, suppressed: false, placeCall: true, attemptTimes: recentCalls.get(row.stream) ?? [] }
      return mayCall(account.settings, target, now, hours)
    }
  }
}

function appointmentField(why: Why, appointment: AppointmentRow | NoShowRow | undefined): { appointment?: NextActionAppointment } {
  if (appointment === undefined || (why !== 'appointment_no_show' && why !== 'appointment_today')) return {}
  const marked = !('kind' in appointment) || appointment.kind === 'marked'
  return { appointment: { appointment_id: appointment.appointmentId, type: appointment.typeName, start: appointment.start, end: appointment.end, status: appointment.status, marked: why === 'appointment_today' ? false : marked } }
}
