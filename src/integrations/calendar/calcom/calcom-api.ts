/**
 * A small typed client for the part of Cal.com's API v2 that booking needs: who the key belongs to, the
 * event types, their open slots, and bookings (list, read, create, reschedule, cancel). Each endpoint
 * pins the `cal-api-version` it was written against; every failure is a CalendarError that says whether
 * Cal.com can have acted on it. The API key is sent, never put in a message.
 */
import { CalendarError } from '../calendar.port.ts'

/** The versions each endpoint is written against (Cal.com answers other shapes without them). */
export const CAL_API_VERSION = { bookings: '2024-08-13', slots: '2024-09-04', eventTypes: '2024-06-14' } as const

export interface CalMe {
  readonly id: number
  readonly username?: string | null
  readonly email?: string | null
  readonly timeZone: string
}

export interface CalEventType {
  readonly id: number
  readonly title: string
  readonly slug?: string
  readonly lengthInMinutes: number
}

/** One open slot (`format=range` gives its end). */
export interface CalSlot {
  readonly start: string
  readonly end?: string
}

export type CalBookingStatus = 'accepted' | 'pending' | 'cancelled' | 'rejected'

export interface CalBooking {
  readonly uid: string
  readonly status: CalBookingStatus | string
  readonly start: string
  readonly end: string
  readonly eventTypeId?: number | null
  readonly metadata?: Record<string, unknown> | null
  readonly rescheduledFromUid?: string | null
  readonly rescheduledToUid?: string | null
  readonly createdAt?: string
}

export interface CalBookingQuery {
  readonly eventTypeId: number
  /** Only bookings starting at or after this instant. */
  readonly afterStart: string
  readonly take: number
  readonly skip: number
}

export interface CalPage {
  readonly bookings: CalBooking[]
  readonly hasNextPage: boolean
}

export interface CreateBookingBody {
  readonly start: string
  readonly eventTypeId: number
  readonly attendee: { readonly name: string; readonly timeZone: string; readonly phoneNumber: string; readonly language: 'en' }
  readonly metadata: Record<string, string>
  readonly bookingFieldsResponses?: Record<string, string>
}

interface CallOptions {
  readonly version?: string
  readonly query?: Record<string, string>
  readonly body?: unknown
  /** The request changes something: no answer then means the outcome is unknown. */
  readonly writes: boolean
}

/** Network errors raised before a request can have left this machine: nothing was sent. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])

export class CalComApi {
  readonly #origin: string
  readonly #apiKey: string
  readonly #timeoutMs: number
  readonly #fetch: typeof fetch

  constructor(baseUrl: string, apiKey: string, timeoutMs: number, fetcher: typeof fetch = fetch) {
    this.#fetch = fetcher
    this.#origin = baseUrl.replace(/\/+$/, '')
    this.#apiKey = apiKey
    this.#timeoutMs = timeoutMs
  }

  me(): Promise<CalMe> {
    return this.#call('GET', '/v2/me', { writes: false })
  }

  eventTypes(): Promise<CalEventType[]> {
    return this.#call('GET', '/v2/event-types', { version: CAL_API_VERSION.eventTypes, writes: false })
  }

  /** Open slots starting in [start, end), as start/end pairs; the day keys Cal.com groups them by are dropped. */
  async slots(eventTypeId: number, start: string, end: string): Promise<CalSlot[]> {
    const days = await this.#call<Record<string, CalSlot[]>>('GET', '/v2/slots', {
      version: CAL_API_VERSION.slots,
      query: { eventTypeId: String(eventTypeId), start, end, timeZone: 'UTC', format: 'range' },
      writes: false,
    })
    return Object.values(days).flat()
  }

  async bookings(query: CalBookingQuery): Promise<CalPage> {
    const { data, pagination } = await this.#envelope<CalBooking[]>('GET', '/v2/bookings', {
      version: CAL_API_VERSION.bookings,
      // Every status, named: together they cover every booking, whatever Cal.com lists by default.
      query: { eventTypeId: String(query.eventTypeId), status: 'upcoming,unconfirmed,past,cancelled', afterStart: query.afterStart, sortStart: 'asc', take: String(query.take), skip: String(query.skip) },
      writes: false,
    })
    const more = (pagination as { hasNextPage?: unknown } | undefined)?.hasNextPage
    return { bookings: data, hasNextPage: typeof more === 'boolean' ? more : data.length === query.take }
  }

  booking(uid: string): Promise<CalBooking> {
    return this.#call('GET', `/v2/bookings/${encodeURIComponent(uid)}`, { version: CAL_API_VERSION.bookings, writes: false })
  }

  createBooking(body: CreateBookingBody): Promise<CalBooking> {
    return this.#call('POST', '/v2/bookings', { version: CAL_API_VERSION.bookings, body, writes: true })
  }

  /** Cal.com moves a booking by making a new one (a new uid) and cancelling the old, which points to it. */
  reschedule(uid: string, start: string, reason: string): Promise<CalBooking> {
    return this.#call('POST', `/v2/bookings/${encodeURIComponent(uid)}/reschedule`, {
      version: CAL_API_VERSION.bookings,
      body: { start, reschedulingReason: reason },
      writes: true,
    })
  }

  cancel(uid: string, reason: string): Promise<CalBooking> {
    return this.#call('POST', `/v2/bookings/${encodeURIComponent(uid)}/cancel`, {
      version: CAL_API_VERSION.bookings,
      body: { cancellationReason: reason },
      writes: true,
    })
  }

  async #call<T>(method: string, path: string, options: CallOptions): Promise<T> {
    return (await this.#envelope<T>(method, path, options)).data
  }

  /** One request and Cal.com's `{status, data}` envelope; failures become CalendarErrors. */
  async #envelope<T>(method: string, path: string, options: CallOptions): Promise<{ data: T; pagination?: unknown }> {
    const url = new URL(`${this.#origin}${path}`)
    for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value)
    const headers: Record<string, string> = { authorization: `Bearer ${this.#apiKey}`, accept: 'application/json' }
    if (options.version !== undefined) headers['cal-api-version'] = options.version
    if (options.body !== undefined) headers['content-type'] = 'application/json'
    const doing = `${method} ${path}`
    let response: Response
    let text: string
    try {
      response = await this.#fetch(url, {
        method,
        headers,
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      })
      text = await response.text()
    } catch (error) {
      const code = (error as { cause?: { code?: unknown } }).cause?.code
      const sent = !(typeof code === 'string' && NOT_SENT.has(code))
      throw new CalendarError(options.writes && sent ? 'unknown_outcome' : 'unreachable', `no answer from Cal.com to ${doing}: ${(error as Error).message}`)
    }
    const body = parse(text)
    if (!response.ok) throw failure(response.status, doing, errorMessage(body), options.writes)
    if (body === null || typeof body !== 'object' || !('data' in body)) {
      throw new CalendarError(options.writes ? 'unknown_outcome' : 'unreachable', `Cal.com answered ${doing} without data`, response.status)
    }
    return body as { data: T; pagination?: unknown }
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

/** Cal.com's error body: `{status: "error", error: {code, message}}`. */
function errorMessage(body: unknown): string {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error
  const message = typeof error?.message === 'string' ? error.message : ''
  const code = typeof error?.code === 'string' ? error.code : ''
  return [code, message].filter((part) => part !== '').join(': ').slice(0, 300)
}

function failure(status: number, doing: string, said: string, writes: boolean): CalendarError {
  const detail = said === '' ? `${status}` : `${status} (${said})`
  if (status === 401 || status === 403) return new CalendarError('unauthorized', `Cal.com refused the API key on ${doing}: ${detail}`, status)
  if (status === 404) return new CalendarError('not_found', `Cal.com has no such booking or event type on ${doing}: ${detail}`, status)
  // Rate-limited: nothing was done; try again later.
  if (status === 429) return new CalendarError('unreachable', `Cal.com is rate-limiting ${doing}: ${detail}`, status)
  if (status >= 500) return new CalendarError(writes ? 'unknown_outcome' : 'unreachable', `Cal.com answered ${doing} with ${detail}`, status)
  return new CalendarError('rejected', `Cal.com refused ${doing}: ${detail}`, status)
}
