/**
 * `leadline calendar connect|status|disconnect|types|type add|type remove`: the account's calendar
 * (issue #45) and its appointment types, on the store directly, each change an account event. A CalDAV
 * password or a Cal.com API key is read from standard input only (--password-stdin, --api-key-stdin),
 * never from the command line, and is recorded only sealed; nothing here prints it. Google Calendar needs
 * the owner's consent in a browser: Setup → Calendar in the console.
 */
import type { CalendarSetup } from '../../commands/calendars.ts'
import type { CalendarSyncStatus } from '../../processes/calendar-sync/calendar-sync.process.ts'
import type { AppointmentType } from '../../domain/appointments/appointment-type.ts'
import type { CalendarCredentials } from '../../integrations/calendar/calendar.port.ts'
import { json, listing, operator, parse, required, table, UsageError, withLeadline, type Io } from '../cli-io.ts'

type ConnectValues = {
  caldav?: string | undefined; username?: string | undefined; 'password-stdin'?: boolean | undefined; simulated?: boolean | undefined
  calcom?: boolean | undefined; 'api-key-stdin'?: boolean | undefined; 'event-type'?: string | undefined; 'calcom-url'?: string | undefined
}

/** The one secret a connection needs, from standard input only (never the command line, where `ps` and the shell history see it). */
async function secretFromStdin(io: Io, flag: string, what: string): Promise<string> {
  if (io.stdin === undefined) throw new UsageError(`the ${what} is read from standard input: add ${flag} and pipe it in (it never goes on the command line)`)
  const secret = (await io.stdin()).replace(/\r?\n$/, '')
  if (secret === '') throw new UsageError(`no ${what} on standard input`)
  return secret
}

async function credentialsOf(values: ConnectValues, io: Io): Promise<CalendarCredentials> {
  const kinds = [values.caldav !== undefined, values.simulated === true, values.calcom === true].filter(Boolean).length
  if (kinds > 1) throw new UsageError('give one of --caldav URL, --calcom or --simulated')
  if (values.simulated === true) return { kind: 'simulated' }
  if (values.calcom === true) {
    if (values['api-key-stdin'] !== true) throw new UsageError('the Cal.com API key is read from standard input: add --api-key-stdin and pipe it in (it never goes on the command line)')
    const eventType = required(values['event-type'], '--event-type ID (the Cal.com event type Leadline books)')
    if (!/^\d+$/.test(eventType)) throw new UsageError('--event-type takes the event type\'s number, as Cal.com shows it')
    const apiKey = await secretFromStdin(io, '--api-key-stdin', 'Cal.com API key')
    return { kind: 'calcom', apiKey, eventTypeId: Number(eventType), ...(values['calcom-url'] === undefined ? {} : { baseUrl: values['calcom-url'] }) }
  }
  const serverUrl = required(values.caldav, '--caldav URL (or --calcom, or --simulated)')
  const username = required(values.username, '--username')
  if (values['password-stdin'] !== true) throw new UsageError('the app password is read from standard input: add --password-stdin and pipe it in (it never goes on the command line)')
  const password = await secretFromStdin(io, '--password-stdin', 'app password')
  return { kind: 'caldav', serverUrl, username, password }
}

function typeRows(types: readonly AppointmentType[]): string[][] {
  return types.map((t) => [t.id, t.name, `${t.durationMinutes} min`, `${t.bufferMinutes} min`, t.bookableHours ?? '(business hours)', `${t.minimumNoticeMinutes} min`, t.maxPerDay === null ? '-' : String(t.maxPerDay), t.calendarId])
}

function statusText(setup: CalendarSetup, sync: CalendarSyncStatus): string {
  if (setup.connection === null) return 'no calendar connected: leadline calendar connect --account ACCOUNT_ID --caldav URL --username USER --password-stdin (or --simulated)'
  const c = setup.connection
  const error = sync.lastError
  const following = error === null ? 'ok' : `failing since ${error.at} (${error.kind}): ${error.message}${error.kind === 'unauthorized' ? ' (connect the calendar again)' : ''}`
  const conflicts = sync.conflicts.map((x): [string, string] => ['moved onto a taken time', `appointment ${x.appointmentId} at ${x.start} (${x.kind === 'slot_taken' ? `booking ${x.otherBookingId ?? '?'} holds it` : 'the day was full'})`])
  return [
    listing([['calendar', `${c.provider}: ${c.label}`], ['connected', c.connectedAt], ['edits in the calendar', following], ...conflicts]),
    table(['calendar id', 'name', 'time zone'], c.calendars.map((cal) => [cal.id, cal.name, cal.timeZone ?? ''])),
    setup.types.length === 0 ? 'no appointment types: leadline calendar type add --account ACCOUNT_ID --id ID --name NAME --duration MINUTES' : table(TYPE_HEADERS, typeRows(setup.types)),
  ].join('\n')
}

const TYPE_HEADERS = ['id', 'name', 'duration', 'buffer', 'hours', 'notice', 'max a day', 'calendar']

function minutes(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} takes a whole number of minutes`)
  return Number(value)
}

export async function calendarCommand(args: string[], io: Io): Promise<void> {
  const [sub, ...rest] = args
  switch (sub) {
    case 'connect': {
      const { values } = parse(rest, {
        account: { type: 'string' }, caldav: { type: 'string' }, username: { type: 'string' }, 'password-stdin': { type: 'boolean' }, simulated: { type: 'boolean' },
        calcom: { type: 'boolean' }, 'api-key-stdin': { type: 'boolean' }, 'event-type': { type: 'string' }, 'calcom-url': { type: 'string' }, json: { type: 'boolean' },
      })
      const accountId = required(values.account, '--account')
      const credentials = await credentialsOf(values, io)
      await withLeadline(io, async (leadline) => {
        const connection = await leadline.calendars.connect(accountId, credentials, operator().actor)
        if (values.json) return io.out(json({ accountId, connection }))
        io.out([`calendar connected for account ${accountId}: ${connection.provider}, ${connection.label} (credentials kept sealed)`, table(['calendar id', 'name', 'time zone'], connection.calendars.map((c) => [c.id, c.name, c.timeZone ?? '']))].join('\n'))
      })
      return
    }
    case 'status':
    case 'types': {
      const { values } = parse(rest, { account: { type: 'string' }, json: { type: 'boolean' } })
      const accountId = required(values.account, '--account')
      await withLeadline(io, async (leadline) => {
        const setup = await leadline.calendars.setup(accountId)
        const sync = await leadline.calendarSync.status(accountId)
        if (values.json) return io.out(json(sub === 'types' ? { accountId, types: setup.types } : { accountId, ...setup, sync }))
        io.out(sub === 'status' ? statusText(setup, sync) : setup.types.length === 0 ? 'no appointment types' : table(TYPE_HEADERS, typeRows(setup.types)))
      })
      return
    }
    case 'disconnect': {
      const { values } = parse(rest, { account: { type: 'string' }, json: { type: 'boolean' } })
      const accountId = required(values.account, '--account')
      await withLeadline(io, async (leadline) => {
        await leadline.calendars.disconnect(accountId, operator().actor)
        if (values.json) return io.out(json({ accountId, connection: null }))
        io.out(`calendar disconnected for account ${accountId}; its appointment types stay, and are booked again once a calendar is connected`)
      })
      return
    }
    case 'type':
      return typeCommand(rest, io)
    default:
      throw new UsageError(`unknown command "calendar ${sub ?? ''}": use connect, status, disconnect, types or type`)
  }
}

async function typeCommand(args: string[], io: Io): Promise<void> {
  const [sub, ...rest] = args
  if (sub === 'add') {
    const { values } = parse(rest, {
      account: { type: 'string' }, id: { type: 'string' }, name: { type: 'string' }, duration: { type: 'string' }, buffer: { type: 'string' }, hours: { type: 'string' },
      notice: { type: 'string' }, 'max-per-day': { type: 'string' }, calendar: { type: 'string' }, json: { type: 'boolean' },
    })
    const accountId = required(values.account, '--account')
    await withLeadline(io, async (leadline) => {
      const setup = await leadline.calendars.setup(accountId)
      // One calendar in the connection: the type goes there unless told otherwise.
      const only = setup.connection?.calendars.length === 1 ? setup.connection.calendars[0]!.id : undefined
      const maxPerDay = values['max-per-day'] === undefined ? undefined : minutes(values['max-per-day'], '--max-per-day')
      const input = {
        id: required(values.id, '--id'), name: required(values.name, '--name'), durationMinutes: minutes(required(values.duration, '--duration'), '--duration'),
        ...(values.buffer === undefined ? {} : { bufferMinutes: minutes(values.buffer, '--buffer') }),
        ...(values.hours === undefined ? {} : { bookableHours: values.hours }),
        ...(values.notice === undefined ? {} : { minimumNoticeMinutes: minutes(values.notice, '--notice') }),
        ...(maxPerDay === undefined ? {} : { maxPerDay }),
        calendarId: values.calendar ?? only ?? required(undefined, '--calendar (the connection has several calendars: leadline calendar status lists them)'),
      }
      const type = await leadline.calendars.saveType(accountId, input, operator().actor)
      if (values.json) return io.out(json({ accountId, type }))
      io.out([`appointment type ${type.id} saved for account ${accountId}`, table(TYPE_HEADERS, typeRows([type]))].join('\n'))
    })
    return
  }
  if (sub === 'remove') {
    const { values, positionals } = parse(rest, { account: { type: 'string' }, json: { type: 'boolean' } }, true)
    const accountId = required(values.account, '--account')
    const typeId = required(positionals[0], 'the type id (leadline calendar type remove --account ACCOUNT_ID ID)')
    await withLeadline(io, async (leadline) => {
      await leadline.calendars.removeType(accountId, typeId, operator().actor)
      if (values.json) return io.out(json({ accountId, removed: typeId }))
      io.out(`appointment type ${typeId} removed; appointments already booked keep their time`)
    })
    return
  }
  throw new UsageError(`unknown command "calendar type ${sub ?? ''}": use add or remove`)
}
