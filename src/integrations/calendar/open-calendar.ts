/**
 * The calendar adapters' registration: one entry per kind of calendar, loaded only when an account uses
 * it (a CalDAV or Google client is not loaded for an account on the simulated calendar). A new kind is
 * its adapter folder, its credentials in the port's union, and one entry here.
 */
import type { OwnerNetwork } from '../network/public-fetch.ts'
import type { CalendarConnection, CalendarCredentials, CalendarKind, CalendarProvider } from './calendar.port.ts'

/** Where the providers are, for the few deployments that point them elsewhere (a test double, a proxy). */
export interface CalendarOptions {
  /** One address serving Google's consent page, token endpoint and Calendar API (LEADLINE_GOOGLE_API_URL); null: Google's own. */
  readonly googleApiUrl?: string | null
  /** How addresses an owner typed (a CalDAV server, a self-hosted Cal.com) are reached: public only unless the operator allows private networks. */
  readonly network?: OwnerNetwork
}

interface Registration<C extends CalendarCredentials> {
  readonly load: (options: CalendarOptions) => Promise<CalendarProvider<C>>
  /** How the connection is shown (never a secret): whose calendar, where. */
  readonly label: (credentials: C) => string
}

type Registrations = { readonly [K in CalendarKind]: Registration<Extract<CalendarCredentials, { kind: K }>> }

const PROVIDERS: Registrations = {
  caldav: { load: async (options) => (await import('./caldav/index.ts')).createCalDavCalendar(options.network ? { network: options.network } : {}), label: (c) => `${c.username} at ${hostOf(c.serverUrl)}` },
  google: {
    load: async (options) => {
      const google = await import('./google/index.ts')
      return google.createGoogleCalendar(options.googleApiUrl ? { endpoints: google.googleEndpointsAt(options.googleApiUrl) } : {})
    },
    label: () => 'Google Calendar',
  },
  calcom: { load: async (options) => (await import('./calcom/index.ts')).createCalComCalendar(options.network ? { network: options.network } : {}), label: (c) => `Cal.com${c.eventTypeId === undefined ? '' : ` (event type ${c.eventTypeId})`} at ${hostOf(c.baseUrl ?? 'https://api.cal.com')}` },
  simulated: { load: async () => (await import('./simulated/index.ts')).createSimulatedCalendar(), label: () => 'Simulated calendar (in memory: nothing reaches a real calendar)' },
}

/** The kinds of calendar an account can connect. */
export const CALENDAR_KINDS = Object.keys(PROVIDERS) as CalendarKind[]

function registration<C extends CalendarCredentials>(credentials: C): Registration<C> {
  return PROVIDERS[credentials.kind as CalendarKind] as unknown as Registration<C>
}

/** Opens calendars with these options: connects with `credentials` (the provider checks them at once). */
export function calendarOpener(options: CalendarOptions = {}): (credentials: CalendarCredentials) => Promise<CalendarConnection> {
  return async (credentials) => (await registration(credentials).load(options)).connect(credentials)
}

/** Connects with `credentials` at the providers' own addresses. */
export const openCalendar = calendarOpener()

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
