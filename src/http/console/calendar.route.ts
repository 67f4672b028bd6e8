/**
 * Setup → Calendar (issue #45): the account's calendar and its appointment types. Connect one by
 * Google's consent (state random, single-use, tied to the session; the PKCE verifier kept sealed in a
 * short-lived cookie, see calendar-pending.ts), by CalDAV with an app password, by a Cal.com API key and
 * then its event type, or the simulated calendar; disconnect behind a confirm step. Every post is
 * CSRF-checked; a refusal is shown beside its field and changes nothing.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { CalendarSetup } from '../../commands/calendars.ts'
import type { ConnectedCalendar } from '../../domain/account/account.events.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import type { CalendarCredentials } from '../../integrations/calendar/calendar.port.ts'
import { html } from './html.ts'
import { PendingSetups, type PendingOwner } from './calendar-pending.ts'
import {
  CALENDAR_HERE, CALENDAR_PATH, calcomEventTypePage, connectSection, disconnectPage, GOOGLE_CALLBACK_PATH, NEW_TYPE, statusSection, typeFormValues,
  typesSection, type FormError, type TypedValues, type TypeFormValues,
} from './calendar-view.ts'
import { actingUser, formField, frameOf, requireSession, sendFailedPage, sendPage, signedIn } from './session.ts'
import { consoleForm, consolePage } from './console.schema.ts'
import { CONSOLE_PREFIX } from './layout.ts'

type PageQuery = { edit?: string; connected?: string; disconnected?: string; saved?: string; removed?: string }
type CallbackQuery = { state?: string; code?: string; scope?: string; error?: string }

const NOT_CONFIGURED = 'Google Calendar is not set up on this server: your Leadline operator sets GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET first'

const CONSENT_MESSAGES: Readonly<Record<string, string>> = {
  no_refresh_token: 'Google gave no lasting permission: nothing was connected. Connect again, and allow access on the screen Google shows',
  scope_not_granted: 'Leadline needs both permissions Google asks for (your calendars, and the events it books): nothing was connected. Connect again and leave both ticked',
  code_refused: 'Google refused the consent (it may have expired): nothing was connected. Connect Google Calendar again',
  unreachable: 'Google could not be reached: nothing was connected. Try again in a minute',
}

/** A whole number of minutes (or a count) from a form field; blank is `undefined` (the type's default). */
function wholeNumber(text: string, field: string): number | undefined {
  const value = text.trim()
  if (value === '') return undefined
  if (!/^\d{1,6}$/.test(value)) throw new DomainError('invalid_appointment_type', 'must be a whole number', { field })
  return Number(value)
}

/** zod's words for a refused number or text, as an owner reads them. */
function plainly(message: string): string {
  return message
    .replace(/^invalid appointment type: [\w.]+: /, '')
    .replace(/^Too small: expected number to be >=(\d+)$/, 'must be at least $1')
    .replace(/^Too big: expected number to be <=(\d+)$/, 'must be at most $1')
    .replace(/^Too small: expected string to have >=1 characters?$/, 'must not be empty')
    .replace(/^Too big: expected string to have <=(\d+) characters$/, 'must be at most $1 characters')
}

const TYPE_LABELS: Readonly<Record<string, string>> = {
  name: 'Name', durationMinutes: 'Length', bufferMinutes: 'Buffer', bookableHours: 'Bookable hours', minimumNoticeMinutes: 'Minimum notice', maxPerDay: 'At most a day', calendarId: 'Calendar',
}

/** A new type's id from its name: lowercase words joined by `-`, made unique among the account's. */
function newTypeId(name: string, taken: ReadonlySet<string>): string {
  const base = name.normalize('NFKD').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 48).replace(/-+$/, '') || 'type'
  let id = base
  for (let n = 2; taken.has(id); n += 1) id = `${base}-${n}`
  return id
}

function typeValuesFrom(body: unknown): TypeFormValues {
  const field = (name: string) => formField(body, name)
  return {
    id: field('id').trim(), name: field('name'), duration: field('duration'), buffer: field('buffer'), hours: field('hours'), notice: field('notice'),
    maxPerDay: field('maxPerDay'), calendarId: field('calendar'),
  }
}

/** What the account's decider checks, from the form (blank fields take the type's defaults). */
function typeInput(values: TypeFormValues, setup: CalendarSetup): Record<string, unknown> {
  const durationMinutes = wholeNumber(values.duration, 'durationMinutes')
  if (durationMinutes === undefined) throw new DomainError('invalid_appointment_type', 'is needed, in minutes', { field: 'durationMinutes' })
  const optional = (name: string, value: number | undefined) => (value === undefined ? {} : { [name]: value })
  const maxPerDay = wholeNumber(values.maxPerDay, 'maxPerDay')
  return {
    id: values.id !== '' ? values.id : newTypeId(values.name, new Set(setup.types.map((t) => t.id))),
    name: values.name,
    durationMinutes,
    ...optional('bufferMinutes', wholeNumber(values.buffer, 'bufferMinutes')),
    bookableHours: values.hours.trim() === '' ? null : values.hours.trim(),
    ...optional('minimumNoticeMinutes', wholeNumber(values.notice, 'minimumNoticeMinutes')),
    maxPerDay: maxPerDay ?? null,
    calendarId: values.calendarId,
  }
}

/** An http(s) address typed by the owner, or a refusal naming its field. */
function httpAddress(text: string, form: FormError['form'], field: string, what: string, example: string): string | FormError {
  const value = text.trim()
  let url: URL | null = null
  try {
    url = new URL(value)
  } catch {
    url = null
  }
  if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '') {
    return { form, field, message: `${what} must be a web address starting with https://, such as ${example}` }
  }
  return value
}

export const calendarRoutes: FastifyPluginAsync = async (fastify) => {
  const leadline = fastify.leadline
  const calendars = leadline.calendars
  const google = leadline.googleCalendar
  const pending = new PendingSetups(leadline.secretBox, fastify.publicUrl, leadline.clock)
  const redirectUri = `${fastify.publicUrl.replace(/\/+$/, '')}${CONSOLE_PREFIX}${GOOGLE_CALLBACK_PATH}`
  const googleEndpoints = async () => {
    const module = await import('../../integrations/calendar/google/index.ts')
    return { module, endpoints: google.apiUrl === null ? {} : { endpoints: module.googleEndpointsAt(google.apiUrl) } }
  }

  const ownerOf = (request: FastifyRequest): PendingOwner => {
    const { principal, account } = signedIn(request)
    return { accountId: account.accountId, sessionId: principal.sessionId }
  }

  /** The page; refused (400, nothing changed) when it comes back with an error. */
  const show = async (request: FastifyRequest, reply: FastifyReply, extra: { error?: FormError | null; typed?: TypedValues; notice?: string | null; editing?: string } = {}) => {
    const frame = frameOf(request, reply, 'calendar')
    const { account } = signedIn(request)
    const setup = await calendars.setup(account.accountId)
    const error = extra.error ?? null
    const edited = extra.editing === undefined ? undefined : setup.types.find((t) => t.id === extra.editing)
    const firstCalendar = setup.connection?.calendars[0]?.id ?? ''
    const typeValues = extra.typed?.type ?? (edited ? typeFormValues(edited) : { ...NEW_TYPE, calendarId: firstCalendar })
    // Once a calendar is connected, its appointment types are the work left; connecting another comes after.
    const connected = setup.connection !== null
    const connect = connectSection({ csrfToken: frame.csrfToken, connected, google: { configured: google.client !== null, redirectUri }, typed: extra.typed ?? {}, error })
    const types = typesSection(setup, typeValues, frame.csrfToken, error)
    const body = html`<h1>Setup → Calendar</h1>
<p>Leadline books appointments into the calendar ${account.name} already uses: open slots come from its free and busy times, and each booking is one event there, with the lead's name, phone, source and a link to the lead.</p>
${statusSection(setup.connection, account.settings.timeZone, setup.connection === null ? null : await leadline.calendarSync.status(account.accountId))}
${connected ? html`${types}${connect}` : html`${connect}${types}`}`
    const page = { title: 'Calendar', frame, body, notice: extra.notice ?? null }
    if (error !== null) return sendFailedPage(reply, page, 400, { error: 'invalid_request', detail: error.message })
    return sendPage(reply, page)
  }

  /** A domain refusal shown on the page; anything else (a missing account, a fault) goes to the console's error handler. */
  const refusal = (error: unknown, form: FormError['form'], fieldOf: (code: string) => string | null): FormError => {
    if (!(error instanceof DomainError) || error.code === 'account_not_found') throw error
    return { form, field: fieldOf(error.code), message: `Nothing was connected: ${error.message}.` }
  }

  const connectedNow = (reply: FastifyReply) => reply.redirect(`${CALENDAR_HERE}?connected`, 303)

  /** Cal.com's second step, with the event types the kept key offers (looked up again, never kept in the page). */
  const eventTypeStep = async (request: FastifyRequest, reply: FastifyReply, eventTypes: readonly ConnectedCalendar[], error: FormError | null) => {
    const frame = frameOf(request, reply, 'calendar')
    const page = { title: 'Cal.com event type', frame, body: calcomEventTypePage(eventTypes, frame.csrfToken, error) }
    return error === null ? sendPage(reply, page) : sendFailedPage(reply, page, 400, { error: 'invalid_request', detail: error.message })
  }

  fastify.register(async (routes) => {
    routes.addHook('onRequest', requireSession(fastify))

    routes.get<{ Querystring: PageQuery }>(CALENDAR_PATH, { schema: consolePage('edit', 'connected', 'disconnected', 'saved', 'removed') }, async (request, reply) => {
      const q = request.query
      let notice: string | null = null
      if (q.connected !== undefined) {
        const { connection } = await calendars.setup(signedIn(request).account.accountId)
        notice = connection === null ? null : `Connected: ${connection.label}. Add an appointment type below so leads can book.`
      } else if (q.disconnected !== undefined) notice = 'Calendar disconnected. The appointment types stay, and are booked again once a calendar is connected.'
      else if (q.saved !== undefined) notice = 'Appointment type saved.'
      else if (q.removed !== undefined) notice = 'Appointment type removed. Appointments already booked keep their time.'
      return show(request, reply, { notice, ...(typeof q.edit === 'string' ? { editing: q.edit } : {}) })
    })

    routes.get(`${CALENDAR_PATH}/disconnect`, { schema: consolePage() }, async (request, reply) => {
      const { connection } = await calendars.setup(signedIn(request).account.accountId)
      if (connection === null) return reply.redirect(CALENDAR_HERE, 303)
      const frame = frameOf(request, reply, 'calendar')
      return sendPage(reply, { title: 'Disconnect the calendar', frame, body: disconnectPage(connection, frame.csrfToken) })
    })

    routes.post(`${CALENDAR_PATH}/disconnect`, { schema: consoleForm(), preHandler: fastify.csrfProtection }, async (request, reply) => {
      await calendars.disconnect(signedIn(request).account.accountId, actingUser(request).actor)
      return reply.redirect(`${CALENDAR_HERE}?disconnected`, 303)
    })

    routes.post(`${CALENDAR_PATH}/caldav`, { schema: consoleForm(), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const typed = { serverUrl: formField(request.body, 'server_url').trim(), username: formField(request.body, 'username').trim() }
      const password = formField(request.body, 'password')
      const again = (error: FormError) => show(request, reply, { error, typed: { caldav: typed } })
      const serverUrl = httpAddress(typed.serverUrl, 'caldav', 'serverUrl', 'The server address', 'https://caldav.fastmail.com')
      if (typeof serverUrl !== 'string') return again(serverUrl)
      if (typed.username === '') return again({ form: 'caldav', field: 'username', message: 'The username is needed: usually your email address' })
      if (password === '') return again({ form: 'caldav', field: 'password', message: 'The app password is needed' })
      try {
        await calendars.connect(signedIn(request).account.accountId, { kind: 'caldav', serverUrl, username: typed.username, password }, actingUser(request).actor)
      } catch (error) {
        const refused = refusal(error, 'caldav', (code) => (code === 'calendar_unauthorized' ? 'password' : code === 'calendar_rejected' ? null : 'serverUrl'))
        if (refused.field === 'password') return again({ ...refused, message: 'The server refused this username and app password: check both, and that it is an app password (iCloud and Fastmail refuse your main one). Nothing was connected' })
        return again(refused)
      }
      return connectedNow(reply)
    })

    routes.post(`${CALENDAR_PATH}/calcom`, { schema: consoleForm(), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const typed = { baseUrl: formField(request.body, 'base_url').trim() }
      const apiKey = formField(request.body, 'api_key').trim()
      const again = (error: FormError) => show(request, reply, { error, typed: { calcom: typed } })
      if (apiKey === '') return again({ form: 'calcom', field: 'apiKey', message: 'The API key is needed: Cal.com → Settings → Developer → API keys' })
      const baseUrl = typed.baseUrl === '' ? null : httpAddress(typed.baseUrl, 'calcom', 'baseUrl', 'The API address', 'https://cal.example.com/api')
      if (baseUrl !== null && typeof baseUrl !== 'string') return again(baseUrl)
      let eventTypes: ConnectedCalendar[]
      try {
        eventTypes = await calendars.offered({ kind: 'calcom', apiKey, ...(baseUrl === null ? {} : { baseUrl }) })
      } catch (error) {
        const refused = refusal(error, 'calcom', (code) => (code === 'calendar_unauthorized' ? 'apiKey' : baseUrl === null ? null : 'baseUrl'))
        if (refused.field === 'apiKey') return again({ ...refused, message: 'Cal.com refused this API key: check it, or create a new one. Nothing was connected' })
        return again(refused)
      }
      pending.keep(reply, ownerOf(request), { kind: 'calcom', apiKey, baseUrl })
      return eventTypeStep(request, reply, eventTypes, null)
    })

    routes.post(`${CALENDAR_PATH}/calcom/event-type`, { schema: consoleForm(), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const kept = pending.read(request, ownerOf(request), 'calcom')
      if (kept === null) return show(request, reply, { error: { form: 'calcom', field: 'apiKey', message: 'The Cal.com step expired (or was started in another session): enter the API key again. Nothing was connected' } })
      const credentials: CalendarCredentials = { kind: 'calcom', apiKey: kept.apiKey, ...(kept.baseUrl === null ? {} : { baseUrl: kept.baseUrl }) }
      const chosen = formField(request.body, 'event_type').trim()
      const again = async (message: string) => {
        try {
          return await eventTypeStep(request, reply, await calendars.offered(credentials), { form: 'calcom-event-type', field: null, message })
        } catch (error) {
          return show(request, reply, { error: refusal(error, 'calcom', () => null) })
        }
      }
      if (!/^\d{1,12}$/.test(chosen)) return again('Choose the event type leads book into')
      try {
        await calendars.connect(signedIn(request).account.accountId, { ...credentials, eventTypeId: Number(chosen) }, actingUser(request).actor)
      } catch (error) {
        return again(refusal(error, 'calcom-event-type', () => null).message)
      }
      pending.clear(reply)
      return connectedNow(reply)
    })

    routes.post(`${CALENDAR_PATH}/simulated`, { schema: consoleForm(), preHandler: fastify.csrfProtection }, async (request, reply) => {
      try {
        await calendars.connect(signedIn(request).account.accountId, { kind: 'simulated' }, actingUser(request).actor)
      } catch (error) {
        return show(request, reply, { error: refusal(error, 'simulated', () => null) })
      }
      return connectedNow(reply)
    })

    // Only the browser's own pending cookie changes here: the owner's Google account decides the rest.
    routes.get(`${CALENDAR_PATH}/google/start`, { schema: consolePage() }, async (request, reply) => {
      if (google.client === null) return show(request, reply, { error: { form: 'google', field: null, message: `${NOT_CONFIGURED}.` } })
      const state = randomBytes(32).toString('base64url')
      const { module, endpoints } = await googleEndpoints()
      const consent = await module.googleConsentUrl({ clientId: google.client.clientId, redirectUri, state, ...endpoints })
      pending.keep(reply, ownerOf(request), { kind: 'google', state, codeVerifier: consent.codeVerifier })
      return reply.redirect(consent.url, 303)
    })

    routes.get<{ Querystring: CallbackQuery }>(GOOGLE_CALLBACK_PATH, { schema: consolePage('state', 'code', 'scope', 'error') }, async (request, reply) => {
      const q = request.query
      const kept = pending.read(request, ownerOf(request), 'google')
      pending.clear(reply)
      const refuse = (message: string) => show(request, reply, { error: { form: 'google', field: null, message: `${message}.` } })
      if (kept === null || typeof q.state !== 'string' || !pending.spend(kept, q.state)) {
        return refuse('This Google consent has expired, was already used, or was started in another session: nothing was connected. Connect Google Calendar again')
      }
      if (typeof q.error === 'string') {
        return refuse(q.error === 'access_denied'
          ? 'You did not allow Leadline to use Google Calendar: nothing was connected. Connect again when you are ready'
          : `Google did not give access (${q.error}): nothing was connected. Connect Google Calendar again`)
      }
      if (typeof q.code !== 'string' || q.code === '') return refuse('Google sent no consent code: nothing was connected. Connect Google Calendar again')
      if (google.client === null) return refuse(NOT_CONFIGURED)
      const { module, endpoints } = await googleEndpoints()
      const { clientId, clientSecret } = google.client
      let refreshToken: string
      try {
        refreshToken = (await module.exchangeGoogleCode({ code: q.code, codeVerifier: kept.codeVerifier, redirectUri, clientId, clientSecret, ...endpoints })).refreshToken
      } catch (error) {
        if (!(error instanceof module.GoogleConsentError)) throw error
        return refuse(CONSENT_MESSAGES[error.code] ?? error.message)
      }
      try {
        await calendars.connect(signedIn(request).account.accountId, { kind: 'google', refreshToken, clientId, clientSecret }, actingUser(request).actor)
      } catch (error) {
        return show(request, reply, { error: refusal(error, 'google', () => null) })
      }
      return connectedNow(reply)
    })

    routes.post(`${CALENDAR_PATH}/types`, { schema: consoleForm(), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const accountId = signedIn(request).account.accountId
      const values = typeValuesFrom(request.body)
      try {
        await calendars.saveType(accountId, typeInput(values, await calendars.setup(accountId)), actingUser(request).actor)
      } catch (error) {
        if (!(error instanceof DomainError) || error.code === 'account_not_found') throw error
        const named = error.details?.field
        const field = error.code === 'unknown_calendar' ? 'calendarId' : typeof named === 'string' && named in TYPE_LABELS ? named : null
        const why = error.code === 'unknown_calendar' ? 'not one of the connected calendar\'s: choose one from the list' : plainly(error.message)
        const message = field === null ? `Nothing was saved: ${error.message}.` : `${TYPE_LABELS[field]}: ${why}. Nothing was saved.`
        return show(request, reply, { error: { form: 'type', field, message }, typed: { type: values } })
      }
      return reply.redirect(`${CALENDAR_HERE}?saved`, 303)
    })

    routes.post<{ Params: { typeId: string } }>(`${CALENDAR_PATH}/types/:typeId/remove`, { schema: consoleForm('typeId'), preHandler: fastify.csrfProtection }, async (request, reply) => {
      await calendars.removeType(signedIn(request).account.accountId, request.params.typeId, actingUser(request).actor)
      return reply.redirect(`${CALENDAR_HERE}?removed`, 303)
    })
  })
}
