/**
 * The account's calendar (issue #45): connect one (the provider checks the credentials first, and they
 * are recorded only sealed), disconnect it, save and remove appointment types, and open the connection
 * for a booking from the sealed credentials (kept open per account until they change).
 */
import { accountDecider, type AccountState } from '../domain/account/account.decider.ts'
import { accountStream, type ConnectedCalendar } from '../domain/account/account.events.ts'
import type { AppointmentType } from '../domain/appointments/appointment-type.ts'
import type { Actor } from '../domain/event.ts'
import { DomainError } from '../domain/shared/decider.ts'
import type { CommandHandler } from '../eventstore/command-handler.ts'
import { CalendarError, type CalendarConnection, type CalendarCredentials } from '../integrations/calendar/calendar.port.ts'
import { calendarLabel, openCalendar } from '../integrations/calendar/open-calendar.ts'
import type { SecretBox } from '../integrations/secrets/secret-box.ts'
import type { Accounts } from './accounts.ts'

/** The connection as it is shown: never its credentials, sealed or not. */
export interface CalendarConnectionView {
  readonly provider: string
  readonly label: string
  readonly calendars: readonly ConnectedCalendar[]
  readonly connectedAt: string
}

export interface CalendarSetup {
  readonly connection: CalendarConnectionView | null
  readonly types: AppointmentType[]
}

/** The purpose the account's calendar credentials are sealed for: they open for this account only. */
export function calendarCredentialsPurpose(accountId: string): string {
  return `calendar-credentials:${accountId}`
}

export interface CalendarsDeps {
  readonly commands: CommandHandler
  readonly accounts: Accounts
  readonly secretBox: SecretBox
  /** Opens a calendar from its credentials; the registry (open-calendar.ts) unless a test brings its own. */
  readonly open?: (credentials: CalendarCredentials) => Promise<CalendarConnection>
}

export class Calendars {
  private readonly open_: (credentials: CalendarCredentials) => Promise<CalendarConnection>
  /** Open connections by account, with the sealed credentials they were opened from (a new connection opens anew). */
  private readonly opened = new Map<string, { readonly sealed: string; readonly connection: Promise<CalendarConnection> }>()

  constructor(private readonly deps: CalendarsDeps) {
    this.open_ = deps.open ?? openCalendar
  }

  /**
   * Connects the account's calendar, replacing any before it. The provider checks the credentials
   * first: refused ones are `calendar_unauthorized`, an unreachable server `calendar_unreachable`.
   */
  async connect(accountId: string, credentials: CalendarCredentials, actor: Actor): Promise<CalendarConnectionView> {
    await this.requireAccount(accountId)
    // A simulated calendar is the account's own, whatever the caller named.
    const checked: CalendarCredentials = credentials.kind === 'simulated' ? { kind: 'simulated', owner: accountId } : credentials
    const calendars = await this.offered(checked)
    const sealedCredentials = this.deps.secretBox.seal(JSON.stringify(checked), calendarCredentialsPurpose(accountId))
    const result = await this.deps.commands.handle(
      accountStream(accountId), accountDecider,
      { type: 'ConnectCalendar', provider: checked.kind, label: calendarLabel(checked), sealedCredentials, calendars }, { actor },
    )
    this.opened.delete(accountId)
    return connectionView(result.state.calendar!)
  }

  /** The calendars these credentials offer, checked with the provider; nothing is recorded (the console's Cal.com event-type step). */
  async offered(credentials: CalendarCredentials): Promise<ConnectedCalendar[]> {
    try {
      const connection = await this.open_(credentials)
      return (await connection.listCalendars()).map((c) => ({ id: c.id, name: c.name, timeZone: c.timeZone }))
    } catch (error) {
      throw calendarRefusal(error)
    }
  }

  async disconnect(accountId: string, actor: Actor): Promise<void> {
    await this.deps.commands.handle(accountStream(accountId), accountDecider, { type: 'DisconnectCalendar' }, { actor })
    this.opened.delete(accountId)
  }

  /** Creates or replaces an appointment type (checked by appointment-type.ts; its calendar must be the connection's). */
  async saveType(accountId: string, input: unknown, actor: Actor): Promise<AppointmentType> {
    const result = await this.deps.commands.handle(accountStream(accountId), accountDecider, { type: 'SaveAppointmentType', input }, { actor })
    const id = (input as { id?: unknown } | null)?.id
    return result.state.appointmentTypes.get(String(id))!
  }

  async removeType(accountId: string, typeId: string, actor: Actor): Promise<void> {
    await this.deps.commands.handle(accountStream(accountId), accountDecider, { type: 'RemoveAppointmentType', typeId }, { actor })
  }

  async setup(accountId: string): Promise<CalendarSetup> {
    const account = await this.requireAccount(accountId)
    return { connection: account.calendar === null ? null : connectionView(account.calendar), types: [...account.appointmentTypes.values()] }
  }

  /** The account's calendar, opened from its sealed credentials; null when none is connected. */
  async open(accountId: string): Promise<CalendarConnection | null> {
    const account = await this.requireAccount(accountId)
    if (account.calendar === null) return null
    const sealed = account.calendar.sealedCredentials
    const kept = this.opened.get(accountId)
    if (kept?.sealed === sealed) return kept.connection
    const connection = this.open_(JSON.parse(this.deps.secretBox.open(sealed, calendarCredentialsPurpose(accountId))) as CalendarCredentials)
    this.opened.set(accountId, { sealed, connection })
    // A connection that failed to open is tried afresh next time (the server may be back).
    connection.catch(() => {
      if (this.opened.get(accountId)?.connection === connection) this.opened.delete(accountId)
    })
    try {
      return await connection
    } catch (error) {
      throw calendarRefusal(error)
    }
  }

  private async requireAccount(accountId: string): Promise<AccountState> {
    const account = await this.deps.accounts.get(accountId)
    if (!account) throw new DomainError('account_not_found', 'account not found')
    return account
  }
}

function connectionView(c: NonNullable<AccountState['calendar']>): CalendarConnectionView {
  return { provider: c.provider, label: c.label, calendars: c.calendars, connectedAt: c.connectedAt }
}

/** A calendar's failure as a refusal with a stable code (`calendar_unauthorized`, `calendar_unreachable`, …). */
export function calendarRefusal(error: unknown): unknown {
  if (!(error instanceof CalendarError)) return error
  const messages: Record<CalendarError['kind'], string> = {
    unauthorized: 'the calendar refused the credentials: check the username and the app password (or connect again)',
    not_found: 'the calendar or the event was not found',
    conflict: 'the event was changed in the calendar meanwhile',
    rejected: 'the calendar refused the request',
    unreachable: 'the calendar could not be reached; nothing was written',
    unknown_outcome: 'the calendar did not answer in time: the change may or may not have been made',
  }
  return new DomainError(`calendar_${error.kind}`, `${messages[error.kind]} (${error.message})`, error.status === null ? {} : { status: error.status })
}
