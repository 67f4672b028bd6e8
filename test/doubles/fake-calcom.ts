/**
 * TEST DOUBLE: a fake Cal.com API v2 on 127.0.0.1, reached by Leadline's Cal.com adapter through its
 * `baseUrl`. Not a mock of our code: an HTTP server answering the requests the adapter makes, in the
 * shapes Cal.com documents (`{status: "success", data}`, `{status: "error", error: {code, message}}`).
 *
 * Cal.com behaviours it models:
 * - `Authorization: Bearer <API key>` on every request (401 UnauthorizedException otherwise), and the
 *   `cal-api-version` each endpoint needs (2024-08-13 bookings, 2024-09-04 slots, 2024-06-14 event
 *   types; 400 without it, as the double does not model the older shapes Cal.com would then answer in).
 * - `GET /v2/me`; `GET /v2/event-types`; `GET /v2/slots?eventTypeId&start&end&timeZone&format=range`:
 *   slots every event-length from the owner's weekly hours in their zone, minus every live booking of
 *   the owner, the owner's own busy times (`block`) and the past, grouped by day in `timeZone`.
 * - `POST /v2/bookings` (start UTC, eventTypeId, attendee {name, timeZone, email and/or phoneNumber},
 *   metadata ≤ 50 keys, bookingFieldsResponses): 201, or 400 when the slot is not open, no contact is
 *   given, or the event type requires an email the attendee lacks.
 * - `GET /v2/bookings` (eventTypeId, afterStart, beforeEnd, status: upcoming (not ended, neither
 *   cancelled nor rejected), unconfirmed, past, cancelled (or rejected), any of them; take, skip; by start) with
 *   `pagination`; `GET /v2/bookings/{uid}`; `POST /v2/bookings/{uid}/reschedule` (a new booking with a
 *   new uid and the old metadata; the old one cancelled, `rescheduledToUid` set); `POST
 *   /v2/bookings/{uid}/cancel` (400 when already cancelled).
 * Faults for the next matching request: a status (optionally after acting on it), or no answer at all
 * (optionally after acting): the timeout whose outcome the client cannot know.
 */
import { randomUUID } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { DateTime, IANAZone } from 'luxon'

export const FAKE_CALCOM_KEY = 'cal_live_fakeleadline0123456789abcdef'

export interface FakeEventType {
  readonly id: number
  readonly title: string
  readonly slug: string
  readonly lengthInMinutes: number
  /** Cal.com's default booking questions require an email; an owner can require a phone instead. */
  readonly emailRequired?: boolean
}

export interface FakeBooking {
  id: number
  uid: string
  title: string
  status: 'accepted' | 'pending' | 'cancelled' | 'rejected'
  start: string
  end: string
  duration: number
  eventTypeId: number
  eventType: { id: number; slug: string }
  attendees: { name: string; email: string | null; phoneNumber: string | null; timeZone: string; absent: boolean }[]
  metadata: Record<string, string>
  bookingFieldsResponses: Record<string, unknown>
  rescheduled?: boolean
  rescheduledFromUid?: string
  rescheduledToUid?: string
  cancellationReason?: string
  createdAt: string
  updatedAt: string
}

export type CalComFault =
  | { readonly kind: 'status'; readonly status: number; readonly act?: boolean }
  | { readonly kind: 'hang'; readonly act?: boolean }

export interface CalComRequest {
  readonly method: string
  readonly path: string
  readonly query: Record<string, string>
  readonly version: string | null
  readonly authorization: string | null
  readonly body: unknown
}

export interface FakeCalCom {
  readonly url: string
  readonly eventTypes: readonly FakeEventType[]
  /** The next request with this method and path (a RegExp matches paths with a uid) meets `fault`. */
  failNext(method: string, path: string | RegExp, fault: CalComFault): void
  /** The owner's own busy time (a calendar connected to Cal.com). */
  block(start: string, end: string): void
  bookings(): FakeBooking[]
  /** The owner cancels a booking in Cal.com. */
  cancelInCalCom(uid: string): void
  /** The owner moves a booking in Cal.com: the new booking's uid. */
  rescheduleInCalCom(uid: string, start: string): string
  requests(): CalComRequest[]
  close(): Promise<void>
}

export interface FakeCalComOptions {
  readonly apiKey?: string
  readonly timeZone?: string
  readonly eventTypes?: readonly FakeEventType[]
  /** Weekly hours in the owner's zone: ISO weekdays (1 = Monday) and HH:mm bounds. */
  readonly hours?: { readonly days: readonly number[]; readonly from: string; readonly to: string }
  readonly now?: () => Date
}

const VERSIONS: readonly [RegExp, string][] = [
  [/^\/v2\/bookings/, '2024-08-13'],
  [/^\/v2\/slots/, '2024-09-04'],
  [/^\/v2\/event-types/, '2024-06-14'],
]

class CalError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message)
  }
}

export async function startFakeCalCom(options: FakeCalComOptions = {}): Promise<FakeCalCom> {
  const apiKey = options.apiKey ?? FAKE_CALCOM_KEY
  const zone = options.timeZone ?? 'America/New_York'
  const eventTypes = options.eventTypes ?? [
    { id: 501, title: 'Roof estimate', slug: 'roof-estimate', lengthInMinutes: 60 },
    { id: 502, title: 'Quick call', slug: 'quick-call', lengthInMinutes: 30, emailRequired: true },
  ]
  const hours = options.hours ?? { days: [1, 2, 3, 4, 5], from: '09:00', to: '17:00' }
  const now = options.now ?? (() => new Date())
  const bookings = new Map<string, FakeBooking>()
  const blocks: { start: number; end: number }[] = []
  const faults: { method: string; path: string | RegExp; fault: CalComFault }[] = []
  const seen: CalComRequest[] = []
  let nextId = 1

  const typeOf = (id: unknown): FakeEventType => {
    const type = eventTypes.find((t) => t.id === Number(id))
    if (type === undefined) throw new CalError(404, 'NotFoundException', `Event type with id=${String(id)} not found`)
    return type
  }
  const bookingOf = (uid: string): FakeBooking => {
    const booking = bookings.get(uid)
    if (booking === undefined) throw new CalError(404, 'NotFoundException', `Booking with uid=${uid} not found`)
    return booking
  }
  const isLive = (b: FakeBooking) => b.status === 'accepted' || b.status === 'pending'

  /** Open slot starts (epoch ms) of a type in [from, to), leaving out `except` (the booking being moved). */
  function openSlots(type: FakeEventType, from: number, to: number, except?: string): number[] {
    const length = type.lengthInMinutes * 60_000
    const taken = [...bookings.values()].filter((b) => isLive(b) && b.uid !== except).map((b) => ({ start: Date.parse(b.start), end: Date.parse(b.end) }))
    const busy = [...taken, ...blocks]
    const out: number[] = []
    for (let day = DateTime.fromMillis(from, { zone }).startOf('day'); day.toMillis() < to; day = day.plus({ days: 1 })) {
      if (!hours.days.includes(day.weekday)) continue
      const open = DateTime.fromISO(`${day.toISODate()}T${hours.from}`, { zone }).toMillis()
      const close = DateTime.fromISO(`${day.toISODate()}T${hours.to}`, { zone }).toMillis()
      for (let start = open; start + length <= close; start += length) {
        if (start < from || start >= to || start < now().getTime()) continue
        if (busy.some((b) => b.start < start + length && start < b.end)) continue
        out.push(start)
      }
    }
    return out
  }
  const isOpen = (type: FakeEventType, start: number, except?: string) => openSlots(type, start, start + 1, except).includes(start)

  function create(body: Record<string, unknown>): FakeBooking {
    const type = typeOf(body.eventTypeId)
    const start = Date.parse(String(body.start))
    if (typeof body.start !== 'string' || Number.isNaN(start)) throw new CalError(400, 'BadRequestException', 'start must be a valid ISO 8601 date string')
    const attendee = (body.attendee ?? {}) as Record<string, unknown>
    if (typeof attendee.name !== 'string' || attendee.name === '') throw new CalError(400, 'BadRequestException', 'attendee.name must be a string')
    if (typeof attendee.timeZone !== 'string' || !IANAZone.isValidZone(attendee.timeZone)) throw new CalError(400, 'BadRequestException', 'attendee.timeZone must be a valid IANA time zone')
    const email = typeof attendee.email === 'string' && attendee.email !== '' ? attendee.email : null
    const phone = typeof attendee.phoneNumber === 'string' && attendee.phoneNumber !== '' ? attendee.phoneNumber : null
    if (phone !== null && !/^\+[1-9]\d{6,14}$/.test(phone)) throw new CalError(400, 'BadRequestException', 'Invalid phone number format. Please use international format.')
    if (email === null && phone === null) throw new CalError(400, 'BadRequestException', 'At least one contact method (email or phone number) must be provided')
    if (type.emailRequired === true && email === null) throw new CalError(400, 'BadRequestException', '{email}error_required_field')
    const metadata = (body.metadata ?? {}) as Record<string, string>
    const keys = Object.keys(metadata)
    if (keys.length > 50 || keys.some((k) => k.length > 40) || Object.values(metadata).some((v) => typeof v === 'string' && v.length > 500)) {
      throw new CalError(400, 'BadRequestException', 'Metadata must have at most 50 keys, each key up to 40 characters, and string values up to 500 characters.')
    }
    if (!isOpen(type, start)) throw new CalError(400, 'BadRequestException', 'no_available_users_found_error')
    return store(type, start, {
      attendees: [{ name: attendee.name, email, phoneNumber: phone, timeZone: attendee.timeZone, absent: false }],
      metadata: { ...metadata },
      bookingFieldsResponses: { ...((body.bookingFieldsResponses ?? {}) as Record<string, unknown>), name: attendee.name, ...(email === null ? {} : { email }), ...(phone === null ? {} : { attendeePhoneNumber: phone }) },
    })
  }

  function store(type: FakeEventType, start: number, rest: Pick<FakeBooking, 'attendees' | 'metadata' | 'bookingFieldsResponses'> & { rescheduledFromUid?: string }): FakeBooking {
    const at = now().toISOString()
    const booking: FakeBooking = {
      id: nextId++,
      uid: randomUUID().replaceAll('-', '').slice(0, 22),
      title: `${type.title} between Owner and ${rest.attendees[0]!.name}`,
      status: 'accepted',
      start: new Date(start).toISOString(),
      end: new Date(start + type.lengthInMinutes * 60_000).toISOString(),
      duration: type.lengthInMinutes,
      eventTypeId: type.id,
      eventType: { id: type.id, slug: type.slug },
      createdAt: at,
      updatedAt: at,
      ...rest,
    }
    bookings.set(booking.uid, booking)
    return booking
  }

  function reschedule(uid: string, startIso: unknown): FakeBooking {
    const old = bookingOf(uid)
    if (!isLive(old)) throw new CalError(400, 'BadRequestException', `Can't reschedule booking with uid=${uid} because it has been cancelled`)
    const start = Date.parse(String(startIso))
    if (Number.isNaN(start)) throw new CalError(400, 'BadRequestException', 'start must be a valid ISO 8601 date string')
    const type = typeOf(old.eventTypeId)
    if (!isOpen(type, start, uid)) throw new CalError(400, 'BadRequestException', 'no_available_users_found_error')
    const moved = store(type, start, { attendees: old.attendees, metadata: { ...old.metadata }, bookingFieldsResponses: old.bookingFieldsResponses, rescheduledFromUid: uid })
    Object.assign(old, { status: 'cancelled', rescheduled: true, rescheduledToUid: moved.uid, updatedAt: now().toISOString() })
    return moved
  }

  function cancel(uid: string, reason: unknown): FakeBooking {
    const booking = bookingOf(uid)
    if (booking.status === 'cancelled') {
      throw new CalError(400, 'BadRequestException', `Can't cancel booking with uid=${uid} because it has been cancelled already.`)
    }
    Object.assign(booking, { status: 'cancelled', updatedAt: now().toISOString(), ...(typeof reason === 'string' ? { cancellationReason: reason } : {}) })
    return booking
  }

  function list(query: Record<string, string>): { data: FakeBooking[]; pagination: Record<string, unknown> } {
    const take = Math.min(Number(query.take ?? 100), 250)
    const skip = Number(query.skip ?? 0)
    const statuses = query.status === undefined ? null : query.status.split(',').map((s) => s.trim())
    const at = now().getTime()
    const matches = (b: FakeBooking) => {
      if (statuses === null) return true
      const cancelled = b.status === 'cancelled' || b.status === 'rejected'
      const ended = Date.parse(b.end) <= at
      return statuses.some((s) =>
        s === 'cancelled' ? cancelled : s === 'upcoming' ? !cancelled && !ended : s === 'unconfirmed' ? b.status === 'pending' && !ended : s === 'past' ? !cancelled && ended : false,
      )
    }
    const all = [...bookings.values()]
      .filter((b) => query.eventTypeId === undefined || b.eventTypeId === Number(query.eventTypeId))
      .filter((b) => query.afterStart === undefined || Date.parse(b.start) >= Date.parse(query.afterStart))
      .filter((b) => query.beforeEnd === undefined || Date.parse(b.end) <= Date.parse(query.beforeEnd))
      .filter(matches)
      .sort((a, b) => (query.sortStart === 'desc' ? -1 : 1) * (Date.parse(a.start) - Date.parse(b.start)) || a.id - b.id)
    const data = all.slice(skip, skip + take)
    const pagination = {
      totalItems: all.length,
      remainingItems: Math.max(0, all.length - skip - data.length),
      returnedItems: data.length,
      itemsPerPage: take,
      currentPage: Math.floor(skip / take) + 1,
      totalPages: Math.ceil(all.length / take),
      hasNextPage: skip + data.length < all.length,
      hasPreviousPage: skip > 0,
    }
    return { data, pagination }
  }

  function slots(query: Record<string, string>): Record<string, { start: string; end?: string }[]> {
    const type = typeOf(query.eventTypeId)
    const out: Record<string, { start: string; end?: string }[]> = {}
    const bound = (value: string | undefined, edge: 'start' | 'end'): number => {
      if (value === undefined) throw new CalError(400, 'BadRequestException', `${edge} must be a valid ISO 8601 date string`)
      const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? DateTime.fromISO(value, { zone: 'utc' })[edge === 'start' ? 'startOf' : 'endOf']('day') : DateTime.fromISO(value, { zone: 'utc' })
      if (!date.isValid) throw new CalError(400, 'BadRequestException', `${edge} must be a valid ISO 8601 date string`)
      return date.toMillis()
    }
    const shownIn = query.timeZone ?? 'UTC'
    for (const start of openSlots(type, bound(query.start, 'start'), bound(query.end, 'end'))) {
      const local = DateTime.fromMillis(start, { zone: shownIn })
      const slot = query.format === 'range' ? { start: local.toISO()!, end: local.plus({ minutes: type.lengthInMinutes }).toISO()! } : { start: local.toISO()! }
      ;(out[local.toISODate()!] ??= []).push(slot)
    }
    return out
  }

  /** The answer to one request, or a CalError. */
  function route(method: string, path: string, query: Record<string, string>, body: Record<string, unknown>): { status: number; data: unknown; extra?: Record<string, unknown> } {
    if (method === 'GET' && path === '/v2/me') return { status: 200, data: { id: 1, username: 'owner', email: 'owner@example.com', timeZone: zone, weekStart: 'Monday' } }
    if (method === 'GET' && path === '/v2/event-types') return { status: 200, data: eventTypes.map(({ emailRequired: _, ...t }) => ({ ...t, hidden: false })) }
    if (method === 'GET' && path === '/v2/slots') return { status: 200, data: slots(query) }
    if (method === 'GET' && path === '/v2/bookings') {
      const { data, pagination } = list(query)
      return { status: 200, data, extra: { pagination } }
    }
    if (method === 'POST' && path === '/v2/bookings') return { status: 201, data: create(body) }
    const one = /^\/v2\/bookings\/([^/]+)(\/reschedule|\/cancel)?$/.exec(path)
    if (one !== null) {
      const uid = decodeURIComponent(one[1]!)
      if (method === 'GET' && one[2] === undefined) return { status: 200, data: bookingOf(uid) }
      if (method === 'POST' && one[2] === '/reschedule') return { status: 201, data: reschedule(uid, body.start) }
      if (method === 'POST' && one[2] === '/cancel') return { status: 200, data: cancel(uid, body.cancellationReason) }
    }
    throw new CalError(404, 'NotFoundException', `Cannot ${method} ${path}`)
  }

  const hung = new Set<http.ServerResponse>()
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://calcom.test')
      const method = request.method ?? 'GET'
      const path = url.pathname
      const query = Object.fromEntries(url.searchParams)
      const version = typeof request.headers['cal-api-version'] === 'string' ? request.headers['cal-api-version'] : null
      const authorization = request.headers.authorization ?? null
      let body: Record<string, unknown> = {}
      try {
        body = chunks.length === 0 ? {} : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>)
      } catch {
        body = {}
      }
      seen.push({ method, path, query, version, authorization, body })
      const send = (status: number, payload: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' })
        response.end(JSON.stringify(payload))
      }
      const error = (e: CalError) => send(e.status, { status: 'error', timestamp: now().toISOString(), path, error: { code: e.code, message: e.message } })
      const index = faults.findIndex((f) => f.method === method && (typeof f.path === 'string' ? f.path === path : f.path.test(path)))
      const fault = index === -1 ? null : faults.splice(index, 1)[0]!.fault
      try {
        if (authorization !== `Bearer ${apiKey}`) throw new CalError(401, 'UnauthorizedException', 'Invalid Access Token.')
        const needed = VERSIONS.find(([prefix]) => prefix.test(path))?.[1]
        if (needed !== undefined && version !== needed) throw new CalError(400, 'BadRequestException', `this double answers ${path} in cal-api-version ${needed} only`)
        if (fault !== null && fault.act !== true) {
          if (fault.kind === 'hang') return void hung.add(response)
          throw new CalError(fault.status, fault.status >= 500 ? 'InternalServerErrorException' : 'HttpException', `fault ${fault.status}`)
        }
        const answer = route(method, path, query, body)
        if (fault?.kind === 'hang') return void hung.add(response)
        if (fault?.kind === 'status') throw new CalError(fault.status, fault.status >= 500 ? 'InternalServerErrorException' : 'BadRequestException', `fault ${fault.status} after acting`)
        send(answer.status, { status: 'success', data: answer.data, ...answer.extra })
      } catch (e) {
        if (e instanceof CalError) return error(e)
        send(500, { status: 'error', error: { code: 'InternalServerErrorException', message: (e as Error).message } })
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    eventTypes,
    failNext: (method, path, fault) => void faults.push({ method, path, fault }),
    block: (start, end) => void blocks.push({ start: Date.parse(start), end: Date.parse(end) }),
    bookings: () => [...bookings.values()].map((b) => structuredClone(b)),
    cancelInCalCom: (uid) => void cancel(uid, 'Cancelled by the owner'),
    rescheduleInCalCom: (uid, start) => reschedule(uid, start).uid,
    requests: () => [...seen],
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hung) response.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
