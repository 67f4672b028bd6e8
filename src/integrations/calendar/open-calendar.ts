/**
 * The calendar adapters' registration: one entry per kind of calendar, loaded only when an account uses
 * it (a CalDAV or Google client is not loaded for an account on the simulated calendar). A new kind is
 * its adapter folder, its credentials in the port's union, and one entry here.
 */
import type { CalendarConnection, CalendarCredentials, CalendarKind, CalendarProvider } from './calendar.port.ts'

interface Registration<C extends CalendarCredentials> {
  readonly load: () => Promise<CalendarProvider<C>>
  /** How the connection is shown (never a secret): whose calendar, where. */
  readonly label: (credentials: C) => string
}

type Registrations = { readonly [K in CalendarKind]: Registration<Extract<CalendarCredentials, { kind: K }>> }

const PROVIDERS: Registrations = {
  caldav: { load: async () => (await import('./caldav/index.ts')).createCalDavCalendar(), label: (c) => `${c.username} at ${hostOf(c.serverUrl)}` },
  google: { load: async () => (await import('./google/index.ts')).createGoogleCalendar(), label: () => 'Google Calendar' },
  calcom: { load: async () => (await import('./calcom/index.ts')).createCalComCalendar(), label: (c) => `Cal.com${c.eventTypeId === undefined ? '' : ` (event type ${c.eventTypeId})`} at ${hostOf(c.baseUrl ?? 'https://api.cal.com')}` },
  simulated: { load: async () => (await import('./simulated/index.ts')).createSimulatedCalendar(), label: () => 'Simulated calendar (in memory: nothing reaches a real calendar)' },
}

/** The kinds of calendar an account can connect. */
export const CALENDAR_KINDS = Object.keys(PROVIDERS) as CalendarKind[]

function registration<C extends CalendarCredentials>(credentials: C): Registration<C> {
  return PROVIDERS[credentials.kind as CalendarKind] as unknown as Registration<C>
}

/** Connects with `credentials` (the provider checks them at once). */
export async function openCalendar(credentials: CalendarCredentials): Promise<CalendarConnection> {
  const provider = await registration(credentials).load()
  return provider.connect(credentials)
}

/** What the connection is called in the console and the CLI. */
export function calendarLabel(credentials: CalendarCredentials): string {
  return registration(credentials).label(credentials)
}

function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return url
  }
}
