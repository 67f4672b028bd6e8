/**
 * Settings: speed to lead, calling hours (a day-by-day editor), time zone, caller id, what happens
 * on answer, machine detection and the voicemail, the follow-up policy, the stale threshold, the
 * Twilio Messaging Service texts go through, and the connected Stripe account. A save is
 * one settings change: the account decider validates all of it, and a refused form changes nothing.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { DAY_NAMES } from '../../domain/account/calling-hours.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import type { AccountState } from '../../domain/account/account.decider.ts'
import { assistantBooking } from '../../domain/account/assistant-booking.ts'
import { MAX_VOICEMAIL, MAX_VOICEMAILS_PER_DAY } from '../../domain/dialing/voicemail.ts'
import { MAX_MISSED_CALL_TEXT } from '../../domain/lead/texts/missed-call-text.ts'
import { html, type Html } from './html.ts'
import { CONSOLE_PREFIX, csrfField } from './layout.ts'
import { actingUser, frameOf, requireSession, sendFailedPage, sendPage, signedIn } from './session.ts'
import { changeOf, valuesFromForm, valuesFromSettings, type SettingsFormValues } from './settings-form.ts'
import { consoleForm, consolePage } from './console.schema.ts'

const PATH = '/settings'
const DAY_LABELS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const

let zones: readonly string[] | undefined
function timeZones(): readonly string[] {
  zones ??= Intl.supportedValuesOf('timeZone')
  return zones
}

const checked = (on: boolean) => (on ? html` checked` : '')

function describedBy(field: string, errorField: string | null): Html | string {
  return errorField === field ? html` aria-invalid="true" aria-describedby="settings-error"` : ''
}

/** The brief's appointment type: the account's types to choose from, and whether the assistant books now (and why not). */
function bookingField(values: SettingsFormValues, account: AccountState, bad: string | null): Html {
  const booking = assistantBooking(account)
  const chosen = values.brief.appointmentTypeId ?? ''
  const types = [...account.appointmentTypes.values()].map((t) => ({ id: t.id, label: `${t.name} (${t.id})` }))
  // A type the brief names that the account no longer has stays shown, so the owner sees what to fix.
  if (chosen !== '' && !types.some((t) => t.id === chosen)) types.push({ id: chosen, label: `${chosen} (no longer exists)` })
  const status = booking.on ? html`<p class="hint" id="booking-status">The assistant books a ${booking.type.name} when the lead wants a time.</p>`
    : html`<p class="${booking.problem ? 'notice' : 'hint'}" id="booking-status">The assistant does not book appointments: ${booking.why}.${booking.problem ? ' Choose a type below, or none.' : ''}</p>`
  return html`<label for="briefAppointmentType">Appointments it books <span class="hint">In the call, from the open times of the <a href="/docs/assistant#booking-appointments">type</a> chosen; appointment types are set up in Setup → Calendar.</span></label>
${status}
<select id="briefAppointmentType" name="briefAppointmentType"${bad === 'assistantBrief.appointmentTypeId' ? html` aria-invalid="true" aria-describedby="settings-error booking-status"` : html` aria-describedby="booking-status"`}>
<option value=""${chosen === '' ? html` selected` : ''}>The account's only type (none when it has several)</option>
${types.map((t) => html`<option value="${t.id}"${t.id === chosen ? html` selected` : ''}>${t.label}</option>`)}</select>`
}

function form(values: SettingsFormValues, account: AccountState, csrfToken: string, error: { message: string; field: string | null } | null): Html {
  const bad = error?.field ?? null
  const mode = values.onAnswerMode
  const zoneList = timeZones().includes(values.timeZone) ? timeZones() : [values.timeZone, ...timeZones()]
  return html`<form method="post" action="${CONSOLE_PREFIX}${PATH}" novalidate>
${csrfField(csrfToken)}
${error ? html`<p class="error" role="alert" id="settings-error">${error.message}</p>` : ''}
<fieldset><legend>Speed to lead</legend>
<label class="check"><input type="checkbox" name="speedToLead" value="on"${checked(values.speedToLead)}> Call a new lead at once when it arrives inside calling hours</label>
</fieldset>

<fieldset><legend>Calling hours</legend>
<p class="hint">Wall-clock times in the account's time zone. A "to" time before the "from" time runs past midnight; 00:00 as "to" is midnight.</p>
${values.unrepresentableHours ? html`<p class="notice">Today's hours have more than one window on a day (<code>${values.unrepresentableHours}</code>); saving here keeps one window a day. The CLI (<code>leadline account set --calling-hours</code>) takes any number.</p>` : ''}
<div class="table-wrap"><table class="days">
<thead><tr><th scope="col">Day</th><th scope="col">Call</th><th scope="col">From</th><th scope="col">To</th></tr></thead>
<tbody>${DAY_NAMES.map((day, i) => {
    const hours = values.days[day]
    return html`<tr><th scope="row" id="day-label-${day}">${DAY_LABELS[i]}</th>
<td><input type="checkbox" name="day-${day}" id="day-${day}" value="on" aria-labelledby="day-label-${day}"${checked(hours.on)}></td>
<td><input type="time" name="from-${day}" value="${hours.from}" aria-label="${DAY_LABELS[i]} from"${describedBy(`from-${day}`, bad)}></td>
<td><input type="time" name="to-${day}" value="${hours.to}" aria-label="${DAY_LABELS[i]} to"${describedBy(`to-${day}`, bad)}></td></tr>`
  })}</tbody></table></div>
<label for="timeZone">Time zone</label>
<select id="timeZone" name="timeZone"${describedBy('timeZone', bad)}>${zoneList.map((zone) => html`<option${zone === values.timeZone ? html` selected` : ''}>${zone}</option>`)}</select>
</fieldset>

<fieldset><legend>Calls</legend>
<label for="callerId">Caller id <span class="hint">Your own number, E.164 (+15551234567): calls and texts go out from it.</span></label>
<input type="text" id="callerId" name="callerId" inputmode="tel" autocomplete="off" value="${values.callerId}"${describedBy('callerId', bad)}>
<label for="allowedCountries">Call numbers in <span class="hint">Country codes, comma-separated (US, CA). Blank: the default country only. Premium-rate, toll-free, satellite and other non-geographic numbers are never called.</span></label>
<input type="text" id="allowedCountries" name="allowedCountries" autocomplete="off" value="${values.allowedCountries}"${describedBy('allowedCountries', bad)}>
<label for="placeCallCountries">place_call may also call <span class="hint">Further countries only the place_call tool may ring. Blank: none.</span></label>
<input type="text" id="placeCallCountries" name="placeCallCountries" autocomplete="off" value="${values.placeCallCountries}"${describedBy('placeCallCountries', bad)}>
<fieldset><legend>When a lead answers</legend>
<label class="check"><input type="radio" name="onAnswerMode" value="greeting"${checked(mode === 'greeting')}> A short spoken greeting</label>
<label class="check"><input type="radio" name="onAnswerMode" value="greeting-bridge"${checked(mode === 'greeting-bridge')}> A greeting, then connect to my number</label>
<label class="check"><input type="radio" name="onAnswerMode" value="bridge"${checked(mode === 'bridge')}> Whisper the lead's name to me, then connect</label>
<label class="check"><input type="radio" name="onAnswerMode" value="twiml"${checked(mode === 'twiml')}> Hand the call to my voice assistant (TwiML URL)</label>
<label class="check"><input type="radio" name="onAnswerMode" value="agent-first"${checked(mode === 'agent-first')}> Agent first: ring me, tell me who the lead is, and call the lead only when I press 1</label>
<label class="check"><input type="radio" name="onAnswerMode" value="agent-first-assistant"${checked(mode === 'agent-first-assistant')}> Agent first, and when no one takes it, the assistant calls the lead</label>
<label class="check"><input type="radio" name="onAnswerMode" value="assistant"${checked(mode === 'assistant')}> Leadline's assistant talks with the lead, from the brief below</label>
<label for="onAnswerNumber">My number, for connecting <span class="hint">E.164; agent first takes up to 5, comma-separated, rung in turn</span></label>
<input type="text" id="onAnswerNumber" name="onAnswerNumber" inputmode="tel" value="${values.onAnswerNumber}"${describedBy('onAnswer', bad)}>
<label for="onAnswerUrl">TwiML URL</label>
<input type="text" id="onAnswerUrl" name="onAnswerUrl" inputmode="url" value="${values.onAnswerUrl}"${describedBy('onAnswer', bad)}>
</fieldset>
</fieldset>

<fieldset><legend>Answering machines</legend>
<label class="check"><input type="checkbox" name="amd" value="on"${checked(values.amd)}> Tell a person from an answering machine <span class="hint">Off: a machine that picks up counts as the lead answering, no voicemail is left and follow-up stops.</span></label>
<label for="voicemail">Voicemail message <span class="hint">Spoken when a machine answers. {first_name}, {business} and {callback_number} are filled in. Empty: the default message.</span></label>
<textarea id="voicemail" name="voicemail" rows="3" maxlength="${String(MAX_VOICEMAIL)}"${describedBy('voicemail', bad)}>${values.voicemail}</textarea>
<label for="voicemailUrl">Voicemail recording <span class="hint">An http(s) URL of an MP3 or WAV played instead of the message. Empty: the message is spoken.</span></label>
<input type="text" id="voicemailUrl" name="voicemailUrl" inputmode="url" autocomplete="off" value="${values.voicemailUrl}"${describedBy('voicemailUrl', bad)}>
<label for="voicemailPerDay">At most this many voicemails to one lead in any 24 hours <span class="hint">0: never leave one; later machines are hung up on.</span></label>
<input type="number" id="voicemailPerDay" name="voicemailPerDay" min="0" max="${String(MAX_VOICEMAILS_PER_DAY)}" step="1" value="${values.voicemailPerDay}"${describedBy('voicemailPerDay', bad)}>
</fieldset>

<fieldset><legend>Calls in</legend>
<p class="hint">When someone calls the account's number (see <a href="/docs/configuration#calls-in">calls in</a>).</p>
<label for="businessHours">Business hours <span class="hint">Calling-hours syntax, such as <code>mon-fri 08:00-17:00</code>; empty: the calling hours. Outside them the owners are not rung.</span></label>
<input type="text" id="businessHours" name="businessHours" value="${values.inbound.businessHours}"${describedBy('businessHours', bad)}>
<label for="inboundRing">Ring these numbers <span class="hint">E.164, up to 5, comma-separated; each hears who is calling and presses 1 to take it. Empty: nobody is rung.</span></label>
<input type="text" id="inboundRing" name="inboundRing" inputmode="tel" value="${values.inbound.ring}"${describedBy('inboundRing', bad)}>
<label for="inboundRingMode">Ring them</label>
<select id="inboundRingMode" name="inboundRingMode">${(['sequential', 'simultaneous'] as const).map((mode) => html`<option value="${mode}"${mode === values.inbound.ringMode ? html` selected` : ''}>${mode === 'sequential' ? 'one after the other' : 'all at once'}</option>`)}</select>
<label class="check"><input type="checkbox" name="inboundVoicemail" value="on"${checked(values.inbound.voicemail)}> A caller nobody takes may leave a voicemail <span class="hint">At most 120 seconds; it stays with the carrier and plays on the lead's page.</span></label>
</fieldset>

<fieldset><legend>Missed calls</legend>
<label class="check"><input type="checkbox" name="missedCallTextOn" value="on"${checked(values.missedCallTextOn)}> Text a caller back when nobody takes their call <span class="hint">At most one text a caller in any 24 hours, inside calling hours, never to a do-not-call or opted-out number.</span></label>
<label for="missedCallText">Text-back message <span class="hint">{first_name} and {business} are filled in; the opt-out line is added. Empty: the default message.</span></label>
<textarea id="missedCallText" name="missedCallText" rows="3" maxlength="${String(MAX_MISSED_CALL_TEXT)}"${describedBy('missedCallText', bad)}>${values.missedCallText ?? ''}</textarea>
</fieldset>

<fieldset><legend>Appointments</legend>
<label class="check"><input type="checkbox" name="appointmentConfirmation" value="on"${checked(values.appointmentTexts?.confirmation ?? true)}> Text a lead a confirmation when an appointment is booked or moved <span class="hint">With the time in the lead's zone and how to change it; inside the texting window, never to a do-not-call or opted-out number.</span></label>
<label for="appointmentReminders">Remind them before it <span class="hint">Up to 3, comma-separated, each 15m to 7d before the start, such as 24h, 1h. Empty: no reminders.</span></label>
<input type="text" id="appointmentReminders" name="appointmentReminders" autocomplete="off" value="${values.appointmentTexts?.reminders ?? ''}"${bad !== null && (bad === 'appointmentReminders' || bad.startsWith('appointmentTexts')) ? describedBy(bad, bad) : ''}>
</fieldset>

<fieldset><legend>Follow-up</legend>
<label class="check"><input type="checkbox" name="followUpOn" value="on"${checked(values.followUpOn)}> Call again when a lead does not answer</label>
<label for="followUpSteps">Retry after <span class="hint">Comma-separated: a delay after the previous attempt (90s, 10m, 2h, 1d) or next-day HH:MM; add text "…" to send a text at that step instead of calling (see the configuration docs).</span></label>
<input type="text" id="followUpSteps" name="followUpSteps" value="${values.followUpSteps}"${describedBy('followUp', bad)}>
<label for="followUpMax">At most this many calls in any 24 hours</label>
<input type="number" id="followUpMax" name="followUpMax" min="1" max="99" step="1" value="${values.followUpMax}"${describedBy('followUpMax', bad)}>
</fieldset>

<fieldset><legend>Stale leads</legend>
<label for="staleValue">A contacted lead with no answer, reply or update becomes stale after</label>
<input type="number" id="staleValue" name="staleValue" min="1" step="any" value="${values.staleValue}"${describedBy('staleValue', bad) || describedBy('staleAfterMinutes', bad)}>
<select name="staleUnit" aria-label="Stale threshold unit">${(['minutes', 'hours', 'days'] as const).map((unit) => html`<option${unit === values.staleUnit ? html` selected` : ''}>${unit}</option>`)}</select>
</fieldset>

<fieldset><legend>Texts</legend>
${values.messagingService === '' ? html`<p class="notice" id="texts-sender">Texts go from the bare caller ID and may be filtered by carriers: without a Twilio Messaging Service, no A2P 10DLC registration is attached to them.</p>` : html`<p class="hint" id="texts-sender">Texts (send_sms, pay-links, STOP and HELP replies) go through Messaging Service <code>${values.messagingService}</code>.</p>`}
<label for="messagingService">Twilio Messaging Service <span class="hint">MG followed by 32 hex digits; every text of the account goes through it. Empty: from the bare caller ID.</span></label>
<input type="text" id="messagingService" name="messagingService" autocomplete="off" value="${values.messagingService}"${describedBy('messagingService', bad)}>
</fieldset>

<fieldset><legend>Voice assistant</legend>
<p class="hint">What the <a href="/docs/assistant">voice assistant</a> says and asks when the on-answer mode above uses it. The transcript of its calls stays in the log; the answers show on each lead.</p>
<label for="briefAssistantName">Its name</label>
<input type="text" id="briefAssistantName" name="briefAssistantName" maxlength="40" value="${values.brief.assistantName}"${describedBy('assistantBrief.assistantName', bad)}>
<label for="briefBusiness">What the business does <span class="hint">A few sentences; the assistant answers questions from this and nothing else.</span></label>
<textarea id="briefBusiness" name="briefBusiness" rows="3" maxlength="1000"${describedBy('assistantBrief.business', bad)}>${values.brief.business}</textarea>
<label for="briefQuestions">Questions to ask, in order <span class="hint">One a line: <code>Do you own the home? | yes</code>, the question, then what a good answer is. At most 10.</span></label>
<textarea id="briefQuestions" name="briefQuestions" rows="4"${describedBy('assistantBrief.questions', bad)}>${values.brief.questions}</textarea>
<label for="briefTransferNumber">Hand calls to <span class="hint">E.164; empty: the assistant offers a callback instead.</span></label>
<input type="text" id="briefTransferNumber" name="briefTransferNumber" inputmode="tel" value="${values.brief.transferNumber}"${describedBy('assistantBrief.transferNumber', bad)}>
<label for="briefCallbackWindows">Callbacks only <span class="hint">Calling-hours syntax, such as <code>mon-fri 10:00-16:00</code>; empty: the calling hours.</span></label>
<input type="text" id="briefCallbackWindows" name="briefCallbackWindows" value="${values.brief.callbackWindows}"${describedBy('assistantBrief.callbackWindows', bad)}>
<label for="briefVoice">Voice <span class="hint">A ConversationRelay voice, such as en-US-Journey-O; empty: its default.</span></label>
<input type="text" id="briefVoice" name="briefVoice" value="${values.brief.voice}"${describedBy('assistantBrief.voice', bad)}>
<label for="briefLanguage">Language</label>
<input type="text" id="briefLanguage" name="briefLanguage" value="${values.brief.language}"${describedBy('assistantBrief.language', bad)}>
<label for="briefMaxCallMinutes">Longest call, in minutes <span class="hint">1 to 15.</span></label>
<input type="number" id="briefMaxCallMinutes" name="briefMaxCallMinutes" min="1" max="15" step="1" value="${values.brief.maxCallMinutes}"${describedBy('assistantBrief.maxCallMinutes', bad)}>
<label for="briefMaxConcurrentCalls">Assistant calls at once <span class="hint">1 to 50; more are ended politely and called back.</span></label>
<input type="number" id="briefMaxConcurrentCalls" name="briefMaxConcurrentCalls" min="1" max="50" step="1" value="${values.brief.maxConcurrentCalls}"${describedBy('assistantBrief.maxConcurrentCalls', bad)}>
${bookingField(values, account, bad)}
</fieldset>

<fieldset><legend>Payments</legend>
<label for="stripeAccount">Connected Stripe account <span class="hint">acct_…; pay-links charge on it and money settles into it. Empty: not connected.</span></label>
<input type="text" id="stripeAccount" name="stripeAccount" autocomplete="off" value="${values.stripeAccount}"${describedBy('stripeAccount', bad)}>
</fieldset>
<div class="actions"><button type="submit">Save settings</button></div>
</form>`
}

/** The form field a refusal names, from the decider's error (its `details.field`) or its code. */
function fieldOf(error: DomainError): string | null {
  const field = error.details?.field
  if (typeof field === 'string') return field
  return { invalid_calling_hours: 'callingHours', invalid_follow_up: 'followUp', invalid_on_answer: 'onAnswer' }[error.code] ?? null
}

export const settingsRoutes: FastifyPluginAsync = async (fastify) => {
  /** The settings form; refused (400, nothing saved) when it comes back with an error. */
  const show = (request: FastifyRequest, reply: FastifyReply, values: SettingsFormValues, extra: { notice?: string | null; error?: { message: string; field: string | null } | null }) => {
    const frame = frameOf(request, reply, 'settings')
    const body = html`<h1>Settings</h1>${form(values, signedIn(request).account, frame.csrfToken, extra.error ?? null)}`
    const page = { title: 'Settings', frame, body, notice: extra.notice ?? null }
    return extra.error ? sendFailedPage(reply, page, 400, { error: 'invalid_request', detail: extra.error.message }) : sendPage(reply, page)
  }

  fastify.register(async (routes) => {
    routes.addHook('onRequest', requireSession(fastify))

    routes.get<{ Querystring: { saved?: string } }>(PATH, { schema: consolePage('saved') }, async (request, reply) =>
      show(request, reply, valuesFromSettings(signedIn(request).account.settings), { notice: request.query.saved !== undefined ? 'Settings saved.' : null }))

    routes.post(PATH, { schema: consoleForm(), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const values = valuesFromForm((request.body ?? {}) as Record<string, unknown>)
      const { account } = signedIn(request)
      try {
        const change = changeOf(values)
        // The brief's members the form does not show (leadFields; the appointment type on an older page) are kept.
        const brief = change.assistantBrief === undefined ? {} : { assistantBrief: { ...account.settings.assistantBrief, ...change.assistantBrief } }
        await fastify.leadline.accounts.changeSettings(account.accountId, { ...change, ...brief }, actingUser(request))
      } catch (error) {
        if (!(error instanceof DomainError) || error.code === 'account_not_found') throw error
        return show(request, reply, values, { error: { message: `Nothing was saved: ${error.message}.`, field: fieldOf(error) } })
      }
      return reply.redirect(`${CONSOLE_PREFIX}${PATH}?saved`, 303)
    })
  })
}
