/**
 * Setup → Calendar's HTML: the connected calendar, the four ways to connect one, Cal.com's event-type
 * step, the disconnect confirmation, and the appointment types with their form. A refusal is shown
 * beside the field it names; a password or API key is never written back into a page.
 */
import type { CalendarSyncStatus } from '../../processes/calendar-sync/calendar-sync.process.ts'
import type { CalendarConnectionView, CalendarSetup } from '../../commands/calendars.ts'
import type { ConnectedCalendar } from '../../domain/account/account.events.ts'
import type { AppointmentType } from '../../domain/appointments/appointment-type.ts'
import { html, type Html } from './html.ts'
import { CONSOLE_PREFIX, csrfField, timeElement } from './layout.ts'

export const CALENDAR_PATH = '/setup/calendar'
export const CALENDAR_HERE = `${CONSOLE_PREFIX}${CALENDAR_PATH}`
export const GOOGLE_CALLBACK_PATH = `${CALENDAR_PATH}/google/callback`

/** Which form a refusal belongs to, the field it names (null: the form as a whole) and what to say. */
export interface FormError {
  readonly form: 'caldav' | 'calcom' | 'calcom-event-type' | 'google' | 'simulated' | 'type'
  readonly field: string | null
  readonly message: string
}

/** What the owner typed, shown again after a refusal: never a password or a key. */
export interface TypedValues {
  readonly caldav?: { readonly serverUrl: string; readonly username: string }
  readonly calcom?: { readonly baseUrl: string }
  readonly type?: TypeFormValues
}

export interface TypeFormValues {
  /** Empty for a new type; the type's id when editing one. */
  readonly id: string
  readonly name: string
  readonly duration: string
  readonly buffer: string
  readonly hours: string
  readonly notice: string
  readonly maxPerDay: string
  readonly calendarId: string
}

export const NEW_TYPE: TypeFormValues = { id: '', name: '', duration: '30', buffer: '0', hours: '', notice: '120', maxPerDay: '', calendarId: '' }

export function typeFormValues(type: AppointmentType): TypeFormValues {
  return {
    id: type.id, name: type.name, duration: String(type.durationMinutes), buffer: String(type.bufferMinutes), hours: type.bookableHours ?? '',
    notice: String(type.minimumNoticeMinutes), maxPerDay: type.maxPerDay === null ? '' : String(type.maxPerDay), calendarId: type.calendarId,
  }
}

const PROVIDERS: Readonly<Record<string, string>> = { caldav: 'CalDAV', google: 'Google Calendar', calcom: 'Cal.com', simulated: 'Simulated (demo)' }

/** The provider as people call it. */
export function providerName(provider: string): string {
  return PROVIDERS[provider] ?? provider
}

/** `aria-invalid` and the id of the message beside a field, when the refusal names it. */
function invalid(form: FormError['form'], field: string, error: FormError | null): Html | string {
  return error?.form === form && error.field === field ? html` aria-invalid="true" aria-describedby="${form}-${field}-error"` : ''
}

/** The refusal, beside the field it names. */
function besideField(form: FormError['form'], field: string, error: FormError | null): Html | string {
  return error?.form === form && error.field === field ? html`<p class="error" role="alert" id="${form}-${field}-error">${error.message}</p>` : ''
}

/** A refusal that names no field, at the top of its form. */
function formWide(form: FormError['form'], error: FormError | null): Html | string {
  return error?.form === form && error.field === null ? html`<p class="error" role="alert" id="${form}-error">${error.message}</p>` : ''
}

function calendarsList(calendars: readonly ConnectedCalendar[]): Html {
  if (calendars.length === 0) return html`<span class="muted">none it lets Leadline write to</span>`
  return html`<ul>${calendars.map((c) => html`<li>${c.name}${c.timeZone ? html` <span class="muted">(${c.timeZone})</span>` : ''}</li>`)}</ul>`
}

/** Whether Leadline still sees the calendar's edits: when it last looked, or since when and why it cannot; moves onto a taken time. */
function syncLine(sync: CalendarSyncStatus | null, zone: string): Html | string {
  if (sync === null) return ''
  const seen = sync.lastError === null
    ? html`<dd id="calendar-sync">${sync.lastSyncAt === null ? 'checked every minute while an appointment is booked' : html`checked ${timeElement(sync.lastSyncAt, zone)}`}</dd>`
    : html`<dd id="calendar-sync" class="error">not seen since ${timeElement(sync.lastError.at, zone)}: ${sync.lastError.message}. Appointments moved or deleted there are not followed until this is fixed (connect the calendar again with a working password).</dd>`
  const conflicts = sync.conflicts.length === 0 ? '' : html`<dt>Moved onto a taken time</dt><dd id="calendar-conflicts"><ul>${sync.conflicts.map((c) => html`<li>appointment ${c.appointmentId} moved in the calendar to ${timeElement(c.start, zone)} (${c.kind.replaceAll('_', ' ')})</li>`)}</ul></dd>`
  return html`<dt>Edits in the calendar</dt>${seen}${conflicts}`
}

export function statusSection(connection: CalendarConnectionView | null, zone: string, sync: CalendarSyncStatus | null = null): Html {
  if (connection === null) {
    return html`<h2 id="status-title">Connected calendar</h2><section class="panel" aria-labelledby="status-title">
<p id="calendar-status">No calendar is connected: appointments cannot be booked until one is. Connect one below.</p></section>`
  }
  return html`<h2 id="status-title">Connected calendar</h2><section class="panel" aria-labelledby="status-title">
<dl class="fields" id="calendar-status">
<dt>Calendar</dt><dd>${connection.label}</dd>
<dt>Provider</dt><dd>${providerName(connection.provider)}</dd>
<dt>Calendars it offers</dt><dd>${calendarsList(connection.calendars)}</dd>
<dt>Connected</dt><dd>${timeElement(connection.connectedAt, zone)}</dd>
${syncLine(sync, zone)}
</dl>
<p class="hint">Free and busy times come from this calendar, so your own events there block slots. Its credentials are kept sealed and never shown.</p>
<div class="actions" id="calendar-actions"><a class="button secondary" href="${CALENDAR_HERE}/disconnect">Disconnect…</a></div></section>`
}

export function disconnectPage(connection: CalendarConnectionView, csrfToken: string): Html {
  return html`<div class="narrow"><h1>Disconnect ${connection.label}?</h1>
<p>Leadline stops booking into it and forgets its credentials. Appointments already booked stay in the calendar and on the leads; the appointment types stay too, and can be booked again once a calendar is connected.</p>
<form method="post" action="${CALENDAR_HERE}/disconnect" class="panel">${csrfField(csrfToken)}
<div class="actions"><button type="submit" class="danger">Disconnect</button> <a href="${CALENDAR_HERE}">Cancel</a></div></form></div>`
}

export interface GoogleOffer {
  /** GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET are set. */
  readonly configured: boolean
  /** The redirect URI the OAuth client must list. */
  readonly redirectUri: string
}

function googlePanel(google: GoogleOffer, error: FormError | null): Html {
  return html`<section class="panel" aria-labelledby="google-title"><h3 id="google-title">Google Calendar</h3>
${formWide('google', error)}
${google.configured
    ? html`<p>Google asks you to let Leadline see your calendars and add, change and delete the events it books; nothing else (it cannot share or delete a calendar).</p>
<div class="actions"><a class="button" href="${CALENDAR_HERE}/google/start" id="google-connect">Connect Google Calendar</a></div>`
    : html`<p id="google-not-configured">Google Calendar is not set up on this server. Your Leadline operator sets <code>GOOGLE_CLIENT_ID</code> and <code>GOOGLE_CLIENT_SECRET</code> (an OAuth client of type "Web application" in Google Cloud, with the Google Calendar API enabled and this redirect URI: <code>${google.redirectUri}</code>), then restarts Leadline. Until then, use one of the other ways below.</p>`}
</section>`
}

function caldavPanel(csrfToken: string, typed: TypedValues['caldav'], error: FormError | null): Html {
  return html`<section class="panel" aria-labelledby="caldav-title"><h3 id="caldav-title">CalDAV: iCloud, Fastmail, Nextcloud, Zoho and others</h3>
<form method="post" action="${CALENDAR_HERE}/caldav" novalidate>${csrfField(csrfToken)}
${formWide('caldav', error)}
<label for="caldav-serverUrl">Server address <span class="hint">iCloud: <code>https://caldav.icloud.com</code>. Fastmail: <code>https://caldav.fastmail.com</code>. Nextcloud: <code>https://your-cloud.example.com/remote.php/dav</code>. Any other CalDAV server: the address its help pages give.</span></label>
<input type="text" id="caldav-serverUrl" name="server_url" inputmode="url" autocomplete="off" spellcheck="false" value="${typed?.serverUrl ?? ''}"${invalid('caldav', 'serverUrl', error)}>
${besideField('caldav', 'serverUrl', error)}
<label for="caldav-username">Username <span class="hint">Usually your email address (iCloud: your Apple Account's).</span></label>
<input type="text" id="caldav-username" name="username" autocomplete="off" spellcheck="false" value="${typed?.username ?? ''}"${invalid('caldav', 'username', error)}>
${besideField('caldav', 'username', error)}
<label for="caldav-password">App password <span class="hint">An app password, not your main one: iCloud (account.apple.com → Sign-In and Security → App-Specific Passwords), Fastmail (Settings → Privacy &amp; Security → App passwords, with calendar access), Nextcloud (Personal settings → Security → Create new app password). You can revoke it there at any time. Kept sealed, never shown again.</span></label>
<input type="password" id="caldav-password" name="password" autocomplete="off"${invalid('caldav', 'password', error)}>
${besideField('caldav', 'password', error)}
<div class="actions"><button type="submit">Connect CalDAV calendar</button></div>
</form></section>`
}

function calcomPanel(csrfToken: string, typed: TypedValues['calcom'], error: FormError | null): Html {
  return html`<section class="panel" aria-labelledby="calcom-title"><h3 id="calcom-title">Cal.com</h3>
<form method="post" action="${CALENDAR_HERE}/calcom" novalidate>${csrfField(csrfToken)}
${formWide('calcom', error)}
<label for="calcom-apiKey">API key <span class="hint">In Cal.com: Settings → Developer → API keys → New (it starts <code>cal_live_</code>). Kept sealed, never shown again. Next you choose the event type to book.</span></label>
<input type="password" id="calcom-apiKey" name="api_key" autocomplete="off"${invalid('calcom', 'apiKey', error)}>
${besideField('calcom', 'apiKey', error)}
<label for="calcom-baseUrl">API address <span class="hint">Only for a self-hosted Cal.com. Empty: <code>https://api.cal.com</code>.</span></label>
<input type="text" id="calcom-baseUrl" name="base_url" inputmode="url" autocomplete="off" spellcheck="false" value="${typed?.baseUrl ?? ''}"${invalid('calcom', 'baseUrl', error)}>
${besideField('calcom', 'baseUrl', error)}
<div class="actions"><button type="submit">Continue</button></div>
</form></section>`
}

function simulatedPanel(csrfToken: string, error: FormError | null): Html {
  return html`<section class="panel" aria-labelledby="simulated-title"><h3 id="simulated-title">Simulated calendar (demo)</h3>
${formWide('simulated', error)}
<p>A calendar kept in Leadline's memory, to try booking without a real one: nothing reaches a real calendar, and its events are gone when Leadline restarts.</p>
<form method="post" action="${CALENDAR_HERE}/simulated">${csrfField(csrfToken)}<div class="actions"><button type="submit" class="secondary">Use the simulated calendar</button></div></form>
</section>`
}

export function connectSection(input: { csrfToken: string; connected: boolean; google: GoogleOffer; typed: TypedValues; error: FormError | null }): Html {
  return html`<h2>${input.connected ? 'Connect another calendar' : 'Connect a calendar'}</h2>
<p class="hint">One calendar per account${input.connected ? ': connecting another replaces the one above' : ''}. Leadline checks the credentials with the calendar before it keeps them.</p>
${googlePanel(input.google, input.error)}
${caldavPanel(input.csrfToken, input.typed.caldav, input.error)}
${calcomPanel(input.csrfToken, input.typed.calcom, input.error)}
${simulatedPanel(input.csrfToken, input.error)}`
}

/** Cal.com's second step: the event types the key can book, one to choose. */
export function calcomEventTypePage(eventTypes: readonly ConnectedCalendar[], csrfToken: string, error: FormError | null): Html {
  return html`<h1>Setup → Calendar: Cal.com event type</h1>
<p>The API key works. Choose the Cal.com event type Leadline books into: Cal.com decides when it is free (its working hours, the calendars connected to it, its buffers and limits).</p>
<form method="post" action="${CALENDAR_HERE}/calcom/event-type" class="panel" novalidate>${csrfField(csrfToken)}
${formWide('calcom-event-type', error)}
${eventTypes.length === 0
    ? html`<p class="error" role="alert">This Cal.com account has no event type: create one in Cal.com, then connect again.</p>`
    : html`<fieldset><legend>Event type</legend>
${eventTypes.map((t, i) => html`<label class="check"><input type="radio" name="event_type" value="${t.id}"${i === 0 && eventTypes.length === 1 ? html` checked` : ''}> ${t.name} <span class="muted">(id ${t.id})</span></label>`)}
</fieldset>`}
<ul class="hint">
<li>In the event type's booking questions, make the phone number required and the email optional or hidden: leads are booked by phone.</li>
<li>Turn off Cal.com's own text-message workflows to attendees: Leadline texts the confirmation and reminders under its texting rules.</li>
<li>Give the Leadline appointment type the event type's length and no buffer, with hours on Cal.com's grid.</li>
</ul>
<div class="actions">${eventTypes.length === 0 ? '' : html`<button type="submit">Connect Cal.com</button>`} <a href="${CALENDAR_HERE}">Cancel</a></div>
</form>`
}

function typesTable(setup: CalendarSetup, csrfToken: string): Html {
  if (setup.types.length === 0) return html`<p class="muted" id="no-types">No appointment type yet.</p>`
  const calendars = new Map((setup.connection?.calendars ?? []).map((c) => [c.id, c.name]))
  return html`<div class="table-wrap"><table id="types">
<caption class="visually-hidden">Appointment types</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Length</th><th scope="col">Buffer</th><th scope="col">Bookable hours</th><th scope="col">Notice</th><th scope="col">At most a day</th><th scope="col">Calendar</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${setup.types.map((t) => html`<tr data-type="${t.id}">
<th scope="row">${t.name}</th>
<td>${t.durationMinutes} min</td>
<td>${t.bufferMinutes} min</td>
<td>${t.bookableHours === null ? html`<span class="muted">business hours</span>` : html`<code>${t.bookableHours}</code>`}</td>
<td>${t.minimumNoticeMinutes} min</td>
<td>${t.maxPerDay === null ? html`<span class="muted">no limit</span>` : String(t.maxPerDay)}</td>
<td>${calendars.get(t.calendarId) ?? html`<span class="bad">not in the connected calendar</span>`}</td>
<td><a href="${CALENDAR_HERE}?edit=${encodeURIComponent(t.id)}" aria-label="Edit ${t.name}">Edit</a>
<form method="post" action="${CALENDAR_HERE}/types/${t.id}/remove" class="inline" data-confirm="Remove ${t.name}? Appointments already booked keep their time.">${csrfField(csrfToken)}<button type="submit" class="link-button" aria-label="Remove ${t.name}">Remove</button></form></td>
</tr>`)}</tbody></table></div>`
}

function typeForm(values: TypeFormValues, calendars: readonly ConnectedCalendar[], csrfToken: string, error: FormError | null): Html {
  const editing = values.id !== ''
  const field = (name: keyof TypeFormValues, schemaField: string, label: Html, attributes: Html) => html`<label for="type-${schemaField}">${label}</label>
<input id="type-${schemaField}" name="${name}" value="${values[name]}" ${attributes}${invalid('type', schemaField, error)}>
${besideField('type', schemaField, error)}`
  return html`<form method="post" action="${CALENDAR_HERE}/types" class="panel" id="type-form" novalidate>${csrfField(csrfToken)}
<h3>${editing ? html`Edit ${values.name}` : 'Add an appointment type'}</h3>
${editing ? html`<input type="hidden" name="id" value="${values.id}">` : ''}
${formWide('type', error)}
${field('name', 'name', html`Name <span class="hint">What a lead books, such as Roof estimate.</span>`, html`type="text" maxlength="120" autocomplete="off"`)}
${field('duration', 'durationMinutes', html`Length, in minutes`, html`type="number" min="5" max="1440" step="1" inputmode="numeric"`)}
${field('buffer', 'bufferMinutes', html`Buffer, in minutes <span class="hint">Kept free before and after it, against your own events and other appointments.</span>`, html`type="number" min="0" max="1440" step="1" inputmode="numeric"`)}
${field('hours', 'bookableHours', html`Bookable hours <span class="hint">Calling-hours syntax in the account's time zone, such as <code>mon-fri 09:00-17:00, sat 10:00-13:00</code>. Empty: the account's business hours (Settings → Calls in).</span>`, html`type="text" autocomplete="off" spellcheck="false"`)}
${field('notice', 'minimumNoticeMinutes', html`Minimum notice, in minutes <span class="hint">A slot starts at least this long after it is offered: 120 is two hours, 1440 a day.</span>`, html`type="number" min="0" step="1" inputmode="numeric"`)}
${field('maxPerDay', 'maxPerDay', html`At most this many a day <span class="hint">On the account's day. Empty: no limit.</span>`, html`type="number" min="1" max="500" step="1" inputmode="numeric"`)}
<label for="type-calendarId">Calendar <span class="hint">Where its events go.</span></label>
<select id="type-calendarId" name="calendar"${invalid('type', 'calendarId', error)}>${calendars.map((c) => html`<option value="${c.id}"${c.id === values.calendarId ? html` selected` : ''}>${c.name}</option>`)}</select>
${besideField('type', 'calendarId', error)}
<div class="actions"><button type="submit">${editing ? 'Save changes' : 'Add appointment type'}</button>${editing ? html` <a href="${CALENDAR_HERE}">Cancel</a>` : ''}</div>
</form>`
}

export function typesSection(setup: CalendarSetup, values: TypeFormValues, csrfToken: string, error: FormError | null): Html {
  return html`<h2 id="types-title">Appointment types</h2>
<p class="hint">What leads can book: the assistant, agents and the tools offer open slots of these, in the account's and the lead's time zones.</p>
${typesTable(setup, csrfToken)}
${setup.connection === null
    ? html`<p class="muted">Connect a calendar first: an appointment type names the calendar its events go to.</p>${formWide('type', error)}`
    : typeForm(values, setup.connection.calendars, csrfToken, error)}`
}
