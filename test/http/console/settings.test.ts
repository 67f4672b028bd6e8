/** Settings: every editable setting saved as one change; a refused form changes nothing; calling hours edited by day. */
import t from 'tap'
import { callingHoursOf, valuesFromSettings } from '../../../src/http/console/settings-form.ts'
import { DEFAULT_SETTINGS } from '../../../src/domain/account/account-settings.ts'
import { signedInConsole } from './console-helpers.ts'

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const

function form(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const fields: Record<string, string | undefined> = {
    speedToLead: 'on', timeZone: 'America/Chicago', callerId: '+15125550100', onAnswerMode: 'greeting-bridge', onAnswerNumber: '+15125550199', onAnswerUrl: '',
    allowedCountries: 'US, ca', placeCallCountries: '',
    followUpOn: 'on', followUpSteps: '15m, 2h', followUpMax: '4', staleValue: '2', staleUnit: 'days', stripeAccount: 'acct_1Nv0FGQ9RKHgCVdK',
    amd: 'on', voicemail: 'Hi {first_name}, {business} here.', voicemailUrl: '', voicemailPerDay: '1',
    ...Object.fromEntries(DAYS.flatMap((d, i) => (i < 5 ? [[`day-${d}`, 'on'], [`from-${d}`, '08:30'], [`to-${d}`, '19:00']] : [[`from-${d}`, '10:00'], [`to-${d}`, '14:00']]))),
    'day-sat': 'on',
    ...overrides,
  }
  return Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined))
}

t.test('save: speed to lead, calling hours, zone, caller id, on answer, follow-up, stale threshold, Stripe account', async (t) => {
  const f = await signedInConsole(t)
  const page = await f.browser.get('/app/settings')
  t.equal(page.statusCode, 200)
  t.match(page.body, /<input type="time" name="from-mon" value="09:00"/, 'the day editor shows today\'s hours')
  t.match(page.body, /<option selected>America\/New_York<\/option>/)
  const saved = await f.browser.post('/app/settings', form())
  t.equal(saved.statusCode, 303)
  t.equal(saved.headers.location, '/app/settings?saved')
  const settings = (await f.app.leadline.accounts.require(f.accountId)).settings
  t.match(settings, {
    speedToLead: true, timeZone: 'America/Chicago', callingHours: 'mon-fri 08:30-19:00, sat 10:00-14:00', callerId: '+15125550100',
    onAnswer: 'greeting+bridge:+15125550199', followUp: '15m, 2h; max 4 per 24h', staleAfterMinutes: 2 * 24 * 60, stripeAccount: 'acct_1Nv0FGQ9RKHgCVdK',
    allowedCountries: ['US', 'CA'], placeCallCountries: null,
  })
  const after = await f.browser.get('/app/settings?saved')
  t.match(after.body, 'Settings saved.')
  t.match(after.body, /<input type="checkbox" name="day-sat" id="day-sat" value="on" aria-labelledby="day-label-sat" checked>/)
  t.match(after.body, /<input type="checkbox" name="day-sun" id="day-sun" value="on" aria-labelledby="day-label-sun">/)
  const event = (await f.app.leadline.store.readAll()).filter((e) => e.type === 'AccountSettingsChanged')
  t.equal(event.length, 1, 'one event for the whole form')
  t.match(event[0]?.metadata.actor, { kind: 'user' })

  t.equal((await f.browser.post('/app/settings', form({ followUpOn: undefined, 'day-mon': undefined, 'day-tue': undefined, 'day-wed': undefined, 'day-thu': undefined, 'day-fri': undefined, 'day-sat': undefined, stripeAccount: '', callerId: '' }))).statusCode, 303)
  t.match((await f.app.leadline.accounts.require(f.accountId)).settings, { followUp: 'off', callingHours: 'none', stripeAccount: null, callerId: null })
})

t.test('follow-up with a text step: the steps field shows it back and a save keeps it, separators and quotes inside the text too', async (t) => {
  const f = await signedInConsole(t)
  const steps = '10m, 25m text "Hi {first_name}; it\'s {business}, \\"soon\\"", 1h'
  t.equal((await f.browser.post('/app/settings', form({ followUpSteps: steps, followUpMax: '2' }))).statusCode, 303)
  const stored = `${steps}; max 2 per 24h`
  t.equal((await f.app.leadline.accounts.require(f.accountId)).settings.followUp, stored)
  const page = await f.browser.get('/app/settings')
  t.match(page.body, '<input type="text" id="followUpSteps" name="followUpSteps" value="10m, 25m text &#34;Hi {first_name}; it&#39;s {business}, \\&#34;soon\\&#34;&#34;, 1h">', 'the whole text, escaped, not cut at its ";"')
  t.equal((await f.browser.post('/app/settings', form({ followUpSteps: '10m, 25m text "Hi {first_name}; it\'s {business}, \\"soon\\"", 1h', followUpMax: '2' }))).statusCode, 303)
  t.equal((await f.app.leadline.accounts.require(f.accountId)).settings.followUp, stored, 'saved again unchanged')
})

t.test('answering machines: machine detection, the voicemail message or recording, and voicemails per day', async (t) => {
  const f = await signedInConsole(t)
  const page = await f.browser.get('/app/settings')
  t.match(page.body, /<input type="checkbox" name="amd" value="on" checked>/, 'machine detection is on by default')
  t.match(page.body, /<textarea id="voicemail" name="voicemail" rows="3" maxlength="600">Hi \{first_name\}, this is \{business\} returning your request\./, 'the default message')
  t.match(page.body, /<input type="number" id="voicemailPerDay" name="voicemailPerDay" min="0" max="5" step="1" value="1">/)

  const saved = await f.browser.post('/app/settings', form({ amd: undefined, voicemail: 'Hi {first_name} & co: call {callback_number}', voicemailUrl: 'https://example.com/vm.mp3', voicemailPerDay: '2' }))
  t.equal(saved.statusCode, 303)
  t.match((await f.app.leadline.accounts.require(f.accountId)).settings, { amd: false, voicemail: 'Hi {first_name} & co: call {callback_number}', voicemailUrl: 'https://example.com/vm.mp3', voicemailPerDay: 2 })
  const shown = (await f.browser.get('/app/settings')).body
  t.match(shown, /<input type="checkbox" name="amd" value="on">/, 'off shows unchecked')
  t.match(shown, />Hi \{first_name\} &#38; co: call \{callback_number\}<\/textarea>/, 'the message as saved, escaped')
  t.match(shown, /id="voicemailUrl" name="voicemailUrl" inputmode="url" autocomplete="off" value="https:\/\/example\.com\/vm\.mp3"/)
  t.match(shown, /name="voicemailPerDay" min="0" max="5" step="1" value="2"/)

  t.equal((await f.browser.post('/app/settings', form({ voicemail: '', voicemailUrl: '', voicemailPerDay: '0' }))).statusCode, 303)
  t.match((await f.app.leadline.accounts.require(f.accountId)).settings, { amd: true, voicemail: DEFAULT_SETTINGS.voicemail, voicemailUrl: null, voicemailPerDay: 0 }, 'empty: the default message, no recording')
})

t.test('a refused form: 400, the reason next to the values as typed, and nothing changed', async (t) => {
  const f = await signedInConsole(t)
  await f.browser.get('/app/settings')
  const cases: Array<[Record<string, string | undefined>, RegExp]> = [
    [{ callerId: '555-0100' }, /invalid callerId: must be an E.164 number/],
    [{ timeZone: 'Mars/Olympus' }, /unknown IANA time zone/],
    [{ 'from-mon': '25:00' }, /mon: &#34;25:00&#34; is not a time/],
    [{ 'to-tue': '08:30' }, /tue: the window from 08:30 to 08:30 is empty/],
    [{ followUpSteps: 'soon' }, /invalid follow-up policy/],
    [{ followUpMax: '0' }, /the most calls in 24 hours/],
    [{ onAnswerMode: 'bridge', onAnswerNumber: 'me' }, /invalid on-answer/],
    [{ staleValue: '1', staleUnit: 'minutes' }, /invalid staleAfterMinutes: must be at least 5 minutes/],
    [{ stripeAccount: 'sk_live_123' }, /must be a Stripe connected account id/],
    [{ allowedCountries: 'US, Narnia' }, /invalid allowedCountries: unknown country code NARNIA/],
    [{ voicemail: 'Hi {name}' }, /invalid voicemail: unknown placeholder \{name\}/],
    [{ voicemailUrl: 'vm.mp3' }, /invalid voicemailUrl: must be an http\(s\) URL of a recording/],
    [{ voicemailPerDay: '6' }, /invalid voicemailPerDay: must be at most 5/],
    [{ voicemailPerDay: 'one' }, /voicemails per day must be a whole number from 0 to 5/],
  ]
  const before = await f.app.leadline.store.headPosition()
  for (const [overrides, message] of cases) {
    const response = await f.browser.post('/app/settings', form(overrides))
    t.equal(response.statusCode, 400, JSON.stringify(overrides))
    t.match(response.body, /Nothing was saved/)
    t.match(response.body, message)
  }
  const typed = await f.browser.post('/app/settings', form({ callerId: '555-0100' }))
  t.match(typed.body, /id="callerId" name="callerId" inputmode="tel" autocomplete="off" value="555-0100" aria-invalid="true" aria-describedby="settings-error"/, 'the bad field is marked and keeps its value')
  // A script posting the same form (no text/html in Accept) is told why, as JSON.
  await f.browser.get('/app/settings')
  const scripted = await f.app.app.inject({
    method: 'POST', url: '/app/settings', headers: { cookie: f.browser.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ ...form({ callerId: '555-0100' }), _csrf: f.browser.csrf }).toString(),
  })
  t.equal(scripted.statusCode, 400)
  t.match(scripted.json(), { error: 'invalid request', detail: /^Nothing was saved: invalid callerId: must be an E\.164 number/ })
  t.equal(await f.app.leadline.store.headPosition(), before, 'nothing was appended')
  t.same((await f.app.leadline.accounts.require(f.accountId)).settings, DEFAULT_SETTINGS)
})

t.test('calling hours: days with the same hours share a window; past midnight; 00:00 as the end is midnight', async (t) => {
  const day = (on: boolean, from = '09:00', to = '17:00') => ({ on, from, to })
  t.equal(callingHoursOf({ mon: day(true), tue: day(true), wed: day(false), thu: day(true), fri: day(true, '22:00', '02:00'), sat: day(true, '00:00', '00:00'), sun: day(false) }), 'mon-tue+thu 09:00-17:00, fri 22:00-02:00, sat 00:00-24:00')
  t.equal(callingHoursOf({ mon: day(false), tue: day(false), wed: day(false), thu: day(false), fri: day(false), sat: day(false), sun: day(false) }), 'none')
  const several = valuesFromSettings({ ...DEFAULT_SETTINGS, callingHours: 'mon 09:00-12:00, mon 13:00-17:00' })
  t.equal(several.unrepresentableHours, 'mon 09:00-12:00, mon 13:00-17:00', 'hours the editor cannot show are named, not silently dropped')
})

t.test('on answer: agent first takes the owner numbers, comma-separated, rung in turn', async (t) => {
  const f = await signedInConsole(t)
  await f.browser.get('/app/settings')
  const saved = await f.browser.post('/app/settings', form({ onAnswerMode: 'agent-first', onAnswerNumber: '+15125550199, +15125550198' }))
  t.equal(saved.statusCode, 303)
  t.equal((await f.app.leadline.accounts.require(f.accountId)).settings.onAnswer, 'agent-first:+15125550199,+15125550198')
  const page = await f.browser.get('/app/settings')
  t.match(page.body, /<input type="radio" name="onAnswerMode" value="agent-first" checked>/)
  t.match(page.body, /id="onAnswerNumber" name="onAnswerNumber" inputmode="tel" value="\+15125550199, \+15125550198"/)
  const refused = await f.browser.post('/app/settings', form({ onAnswerMode: 'agent-first', onAnswerNumber: '+15125550199, me' }))
  t.equal(refused.statusCode, 400)
  t.match(refused.body, /&#34;me&#34; is not an E\.164 number/)
})

t.test('texts: without a Messaging Service the page says they may be filtered; an MG sid is saved and shown, a bad one refused', async (t) => {
  const f = await signedInConsole(t)
  const page = (await f.browser.get('/app/settings')).body
  t.match(page, /<p class="notice" id="texts-sender">Texts go from the bare caller ID and may be filtered by carriers/)
  const sid = `MG${'c3'.repeat(16)}`
  t.equal((await f.browser.post('/app/settings', form({ messagingService: sid }))).statusCode, 303)
  t.match((await f.app.leadline.accounts.require(f.accountId)).settings, { messagingService: sid })
  const shown = (await f.browser.get('/app/settings')).body
  t.match(shown, new RegExp(`go through Messaging Service <code>${sid}</code>`))
  t.notMatch(shown, /may be filtered/)
  const refused = await f.browser.post('/app/settings', form({ messagingService: 'MG123' }))
  t.equal(refused.statusCode, 400)
  t.match(refused.body, /Nothing was saved: invalid messagingService: must be a Twilio Messaging Service SID/)
  t.match(refused.body, /id="messagingService" name="messagingService" autocomplete="off" value="MG123" aria-invalid="true"/)
  t.match((await f.app.leadline.accounts.require(f.accountId)).settings, { messagingService: sid }, 'nothing changed')
  t.equal((await f.browser.post('/app/settings', form({ messagingService: '' }))).statusCode, 303)
  t.match((await f.app.leadline.accounts.require(f.accountId)).settings, { messagingService: null }, 'empty clears it')
})

t.test("another account's caller ID or Messaging Service is refused (number_in_use): the field is marked, nothing is saved", async (t) => {
  const f = await signedInConsole(t)
  const { account: other } = await f.app.createAccount('Other Co', { callerId: '+15125550100', messagingService: `MG${'cd'.repeat(16)}` })
  const before = await f.app.leadline.store.headPosition()
  const refused = await f.browser.post('/app/settings', form())
  t.equal(refused.statusCode, 400)
  t.match(refused.body, /Nothing was saved: the number \+15125550100 is in use by another account/)
  t.notMatch(refused.body, new RegExp(other.accountId), 'the other account is not named')
  t.match(refused.body, /id="callerId" name="callerId" inputmode="tel" autocomplete="off" value="\+15125550100" aria-invalid="true"/)
  const service = await f.browser.post('/app/settings', form({ callerId: '+15125550101', messagingService: `MG${'cd'.repeat(16)}` }))
  t.equal(service.statusCode, 400)
  t.match(service.body, /the Messaging Service MG(cd){16} is in use by another account/)
  t.equal((await f.app.leadline.store.readAll()).filter((e) => e.position > before && e.stream.startsWith('account-')).length, 0, 'no setting saved')
  t.equal(await f.app.leadline.numbers.ownerOf('+15125550101'), null, 'the free number claimed on the way is released again: the change was refused')
  t.match((await f.app.leadline.accounts.require(f.accountId)).settings, { callerId: null, messagingService: null, timeZone: 'America/New_York' })
})

t.test('calls in: business hours, the owner numbers and how they ring, inbound voicemail; a page without them keeps them', async (t) => {
  const f = await signedInConsole(t)
  const page = (await f.browser.get('/app/settings')).body
  t.match(page, /<input type="text" id="businessHours" name="businessHours" value="">/, 'empty: the calling hours')
  t.match(page, /<option value="sequential" selected>one after the other<\/option>/)
  t.match(page, /<input type="checkbox" name="inboundVoicemail" value="on" checked>/)
  const inbound = { businessHours: 'mon-sat 07:00-19:00', inboundRing: '+15125550101, +15125550102', inboundRingMode: 'simultaneous', inboundVoicemail: undefined }
  t.equal((await f.browser.post('/app/settings', form(inbound))).statusCode, 303)
  const saved = { businessHours: 'mon-sat 07:00-19:00', inboundRing: ['+15125550101', '+15125550102'], inboundRingMode: 'simultaneous', inboundVoicemail: false }
  t.match((await f.app.leadline.accounts.require(f.accountId)).settings, saved)
  const shown = (await f.browser.get('/app/settings')).body
  t.match(shown, /name="inboundRing" inputmode="tel" value="\+15125550101, \+15125550102"/)
  t.match(shown, /<option value="simultaneous" selected>all at once<\/option>/)
  t.equal((await f.browser.post('/app/settings', form())).statusCode, 303)
  t.match((await f.app.leadline.accounts.require(f.accountId)).settings, saved, 'a form without the inbound fields leaves them')
  const refused = await f.browser.post('/app/settings', form({ ...inbound, inboundRing: '+15125550101, 555' }))
  t.equal(refused.statusCode, 400)
  t.match(refused.body, /is not an E\.164 number/)
})

t.test('appointments: the confirmation and the reminders before it; a page without them keeps them; a bad one refused with the field marked', async (t) => {
  const f = await signedInConsole(t)
  const page = (await f.browser.get('/app/settings')).body
  t.match(page, /<input type="checkbox" name="appointmentConfirmation" value="on" checked>/, 'a confirmation by default')
  t.match(page, /<input type="text" id="appointmentReminders" name="appointmentReminders" autocomplete="off" value="24h, 1h">/, '24 h and 1 h by default')
  t.equal((await f.browser.post('/app/settings', form({ appointmentReminders: '2d, 90m, 15m' }))).statusCode, 303)
  const saved = { confirmation: false, remindersMinutesBefore: [2880, 90, 15] }
  t.same((await f.app.leadline.accounts.require(f.accountId)).settings.appointmentTexts, saved)
  t.match((await f.browser.get('/app/settings')).body, /name="appointmentReminders" autocomplete="off" value="2d, 90m, 15m"/)
  t.equal((await f.browser.post('/app/settings', form())).statusCode, 303)
  t.same((await f.app.leadline.accounts.require(f.accountId)).settings.appointmentTexts, saved, 'a form without the appointment fields leaves them')
  t.equal((await f.browser.post('/app/settings', form({ appointmentConfirmation: 'on', appointmentReminders: '' }))).statusCode, 303)
  t.same((await f.app.leadline.accounts.require(f.accountId)).settings.appointmentTexts, { confirmation: true, remindersMinutesBefore: [] }, 'empty: no reminders')
  for (const [reminders, why] of [['10m', /at least 15 minutes/], ['1h, 60m', /each reminder once/], ['8d', /at most 7 days/], ['1d, 2h, 1h, 30m', /at most 3 reminders/], ['soon', /times before the start such as 24h, 1h/]] as const) {
    const refused = await f.browser.post('/app/settings', form({ appointmentReminders: reminders }))
    t.equal(refused.statusCode, 400, reminders)
    t.match(refused.body, why)
    t.match(refused.body, /name="appointmentReminders" autocomplete="off" value="[^"]*" aria-invalid="true"/, 'the field is marked')
  }
  t.same((await f.app.leadline.accounts.require(f.accountId)).settings.appointmentTexts, { confirmation: true, remindersMinutesBefore: [] }, 'nothing changed')
})
