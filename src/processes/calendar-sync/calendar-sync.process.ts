/**
 * The calendar sync (issue #45): notices appointments the owner moved or deleted in the calendar and
 * makes the lead's appointment follow (follow-calendar-edit.ts). On a timer, each account with booked
 * appointments still to come (no others: idle accounts are never polled) asks each calendar in use what
 * changed since its saved token (`changes`), and looks only at changed UIDs that are its appointments';
 * a token the calendar no longer honours (`full`) is answered by comparing every watched appointment
 * with its event, never by taking the listing as a change. The token is saved on `calsync-{accountId}`
 * only once every change it covers has been followed, so a crash repeats the same changes, harmlessly.
 * A failure (a changed password: `unauthorized`) is logged and recorded there for the owner to see.
 */
import type { Logger } from 'pino'
import { DEFAULT_CALENDAR_SYNC_SECONDS } from '../../config/config.ts'
import type { AccountState } from '../../domain/account/account.decider.ts'
import { calendarSyncDecider, type CalendarSyncCommand, type CalendarSyncConflict } from '../../domain/calendar-sync/calendar-sync.decider.ts'
import { calendarSyncStream } from '../../domain/calendar-sync/calendar-sync.events.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import type { CommandHandler } from '../../eventstore/command-handler.ts'
import { CalendarError, type CalendarConnection } from '../../integrations/calendar/calendar.port.ts'
import type { ProjectionRunner } from '../../read-models/projection-runner.ts'
import type { Accounts } from '../../commands/accounts.ts'
import type { Calendars } from '../../commands/calendars.ts'
import type { CalendarSyncQueries, WatchedAppointment } from '../../../projections/calendar-sync/calendar-sync.queries.ts'
import { CALENDAR_SYNC_ACTOR, followCalendarEdit, type FollowOutcome } from './follow-calendar-edit.ts'

/** A token unchanged in content is saved again after this long, so a server's expiry of idle tokens (Google's) does not force full listings. */
const TOKEN_REFRESH_MS = 6 * 60 * 60_000

export interface CalendarSyncOptions {
  readonly commands: CommandHandler
  readonly accounts: Pick<Accounts, 'get'>
  readonly calendars: Pick<Calendars, 'open'>
  readonly queries: CalendarSyncQueries
  readonly runner: ProjectionRunner
  readonly clock: () => Date
  readonly logger?: Pick<Logger, 'error' | 'warn'>
}

/** What the owner is shown of the sync (Setup → Calendar). */
export interface CalendarSyncStatus {
  /** When a sync last succeeded (this node's last look, else the log's last record of one); null before any. */
  readonly lastSyncAt: string | null
  /** Why the last sync failed, while none has succeeded since; null when it works. */
  readonly lastError: { readonly kind: string; readonly message: string; readonly at: string } | null
  /** Moves made in the calendar onto a time another booking holds, or past a day's limit. */
  readonly conflicts: readonly CalendarSyncConflict[]
}

/** One account's sync: how many appointments followed an edit, and how many waited for Leadline's own work. */
export interface AccountSync {
  readonly moved: number
  readonly cancelled: number
  readonly inFlight: number
}

export class CalendarSync {
  private timer: NodeJS.Timeout | null = null
  private running: Promise<number> | null = null
  /** This node's last successful sync per account (the log records one only when something changed). */
  private readonly lastSync = new Map<string, string>()

  constructor(private readonly options: CalendarSyncOptions) {}

  /** Syncs every account with appointments to come; returns how many appointments followed an edit. A tick asked for while one runs joins it. */
  tick(): Promise<number> {
    this.running ??= this.syncAll().finally(() => {
      this.running = null
    })
    return this.running
  }

  private async syncAll(): Promise<number> {
    const { runner, queries, clock, logger } = this.options
    await runner.catchUp()
    let followed = 0
    for (const accountId of queries.accountsToWatch(clock().toISOString())) {
      try {
        const sync = await this.syncAccount(accountId)
        followed += sync.moved + sync.cancelled
      } catch (error) {
        logger?.error({ err: error, accountId }, 'calendar sync failed')
      }
    }
    if (followed > 0) await runner.catchUp()
    return followed
  }

  /**
   * Syncs one account: each calendar its booked appointments are in. A calendar's failure is recorded
   * on the account's sync stream (once, while it lasts) and thrown.
   */
  async syncAccount(accountId: string): Promise<AccountSync> {
    const { accounts, calendars, queries, clock } = this.options
    const account = await accounts.get(accountId)
    const connected = account?.calendar ?? null
    if (!account || connected === null) return { moved: 0, cancelled: 0, inFlight: 0 }
    // Appointments in a calendar the account no longer has connected cannot be watched.
    const watched = queries.watched(accountId, clock().toISOString())
      .filter((a) => a.provider === connected.provider && connected.calendars.some((c) => c.id === a.calendarId))
    const total = { moved: 0, cancelled: 0, inFlight: 0 }
    if (watched.length === 0) return total
    try {
      const calendar = await calendars.open(accountId)
      if (calendar === null) return total
      const { state } = await this.options.commands.load(calendarSyncStream(accountId), calendarSyncDecider)
      for (const calendarId of new Set(watched.map((a) => a.calendarId))) {
        const saved = state.tokens[calendarId]
        const token = saved !== undefined && saved.connectedAt === connected.connectedAt ? saved : null
        const outcomes = await this.syncCalendar(account, calendar, calendarId, watched.filter((a) => a.calendarId === calendarId), token)
        total.moved += outcomes.filter((o) => o === 'moved').length
        total.cancelled += outcomes.filter((o) => o === 'cancelled').length
        total.inFlight += outcomes.filter((o) => o === 'in_flight').length
      }
    } catch (error) {
      await this.recordFailure(accountId, error)
      throw error
    }
    await this.record(accountId, { type: 'RecordSyncSuccess', accountId })
    this.lastSync.set(accountId, clock().toISOString())
    return total
  }

  private async syncCalendar(account: AccountState, calendar: CalendarConnection, calendarId: string, watched: WatchedAppointment[], saved: { token: string; savedAt: string } | null): Promise<FollowOutcome[]> {
    const { commands, clock } = this.options
    const changes = await calendar.changes(calendarId, saved?.token ?? null)
    const etags = new Map(changes.changed.map((c) => [c.uid, c.etag]))
    const touched = new Set([...changes.changed.map((c) => c.uid), ...changes.removed])
    // A full listing is compared event by event: an appointment not in it is read to see whether it is gone.
    const candidates = changes.full ? watched : watched.filter((a) => touched.has(a.eventUid))
    const outcomes: FollowOutcome[] = []
    for (const appointment of candidates) {
      try {
        outcomes.push(await followCalendarEdit({ commands, calendar, clock }, account, appointment, etags.get(appointment.eventUid) ?? null))
      } catch (error) {
        // The calendar's failures are the account's; anything else (a lead changed meanwhile) is this appointment's, tried again next time.
        if (error instanceof CalendarError) throw error
        this.options.logger?.error({ err: error, accountId: account.accountId, appointmentId: appointment.appointmentId }, 'calendar edit not followed; tried again at the next sync')
        outcomes.push('in_flight')
      }
    }
    // Leadline's own move or cancel still under way, or a failure: the same changes are asked for again next time.
    if (outcomes.includes('in_flight')) return outcomes
    const stale = saved === null || clock().getTime() - Date.parse(saved.savedAt) >= TOKEN_REFRESH_MS
    if (changes.token !== saved?.token && (stale || changes.full || touched.size > 0)) {
      await this.record(account.accountId, { type: 'SaveSyncToken', accountId: account.accountId, connectedAt: account.calendar!.connectedAt, calendarId, token: changes.token })
    }
    return outcomes
  }

  private async recordFailure(accountId: string, error: unknown): Promise<void> {
    const kind = error instanceof CalendarError ? error.kind : error instanceof DomainError ? error.code.replace(/^calendar_/, '') : 'error'
    const message = error instanceof Error ? error.message : String(error)
    this.options.logger?.warn({ accountId, kind, message }, 'calendar sync: the calendar refused or did not answer')
    await this.record(accountId, { type: 'RecordSyncFailure', accountId, kind, message: message.slice(0, 500) }).catch((failure: unknown) => {
      this.options.logger?.error({ err: failure, accountId }, 'calendar sync failure not recorded')
    })
  }

  private async record(accountId: string, command: CalendarSyncCommand): Promise<void> {
    await this.options.commands.handle(calendarSyncStream(accountId), calendarSyncDecider, command, { actor: CALENDAR_SYNC_ACTOR })
  }

  /** Where the account's sync stands, for the owner: the last success, the failure that lasts, the conflicts. */
  async status(accountId: string): Promise<CalendarSyncStatus> {
    const { state } = await this.options.commands.load(calendarSyncStream(accountId), calendarSyncDecider)
    const here = this.lastSync.get(accountId) ?? null
    const lastSyncAt = [here, state.lastSyncAt].filter((at): at is string => at !== null).sort().at(-1) ?? null
    return { lastSyncAt, lastError: state.failing, conflicts: state.conflicts }
  }

  start(intervalMs = DEFAULT_CALENDAR_SYNC_SECONDS * 1000): void {
    if (this.timer) return
    // A tick that fails as a whole (the store is down) is logged; the next tick tries again.
    this.timer = setInterval(() => {
      this.tick().catch((error: unknown) => this.options.logger?.error({ err: error }, 'calendar sync tick failed'))
    }, intervalMs)
    this.timer.unref()
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    await this.running?.catch(() => 0)
  }
}
