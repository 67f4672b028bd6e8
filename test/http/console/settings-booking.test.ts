/** Settings → Voice assistant: the appointment type the assistant books, what it books now (or why not), and a save that keeps the brief's members the form does not show. */
import t from 'tap'
import { SIMULATED_CALENDAR_ID } from '../../../src/integrations/calendar/simulated/index.ts'
import { operatorContext } from '../../helpers/build-app.ts'
import { signedInConsole } from './console-helpers.ts'

const TYPE = { name: 'Roof estimate', durationMinutes: 60, calendarId: SIMULATED_CALENDAR_ID }
const BRIEF_FORM = {
  briefAssistantName: 'Robin', briefBusiness: 'We fix roofs.', briefQuestions: 'Do you own the home? | yes', briefTransferNumber: '', briefCallbackWindows: '', briefVoice: '', briefLanguage: 'en-US',
  briefMaxCallMinutes: '5', briefMaxConcurrentCalls: '3',
}
const BASE = { speedToLead: 'on', timeZone: 'America/Chicago', onAnswerMode: 'assistant', followUpSteps: '10m', followUpMax: '3', staleValue: '2', staleUnit: 'hours', voicemailPerDay: '1', 'day-mon': 'on', 'from-mon': '09:00', 'to-mon': '17:00' }

t.test('the brief names the type the assistant books; the page says what it books, or why not', async (t) => {
  const f = await signedInConsole(t)
  const { leadline } = f.app
  await leadline.accounts.changeSettings(f.accountId, { assistantBrief: { leadFields: ['roof_age'] } }, operatorContext)
  t.match((await f.browser.get('/app/settings')).body, /The assistant does not book appointments: the account has no appointment types\./)

  await leadline.calendars.connect(f.accountId, { kind: 'simulated' }, operatorContext.actor)
  await leadline.calendars.saveType(f.accountId, { id: 'estimate', ...TYPE }, operatorContext.actor)
  await leadline.calendars.saveType(f.accountId, { id: 'call', ...TYPE, name: 'Quick call', durationMinutes: 30 }, operatorContext.actor)
  const several = (await f.browser.get('/app/settings')).body
  t.match(several, /The assistant does not book appointments: the account has 2 appointment types and the brief&#39;s appointmentTypeId names none of them/)
  t.match(several, /<select id="briefAppointmentType" name="briefAppointmentType"[^>]*>\s*<option value="" selected>The account's only type \(none when it has several\)<\/option>\s*<option value="estimate">Roof estimate \(estimate\)<\/option><option value="call">Quick call \(call\)<\/option><\/select>/)

  const saved = await f.browser.post('/app/settings', { ...BASE, ...BRIEF_FORM, briefAppointmentType: 'call' })
  t.equal(saved.statusCode, 303)
  const brief = (await leadline.accounts.require(f.accountId)).settings.assistantBrief
  t.match(brief, { appointmentTypeId: 'call', assistantName: 'Robin', leadFields: ['roof_age'] }, 'saved, and the lead fields the form does not show are kept')
  const shown = (await f.browser.get('/app/settings')).body
  t.match(shown, /The assistant books a Quick call when the lead wants a time\./)
  t.match(shown, /<option value="call" selected>Quick call \(call\)<\/option>/)

  const refused = await f.browser.post('/app/settings', { ...BASE, ...BRIEF_FORM, briefAppointmentType: 'massage' })
  t.equal(refused.statusCode, 400)
  t.match(refused.body, /Nothing was saved: invalid assistantBrief\.appointmentTypeId: no appointment type &#34;massage&#34; in this account/)
  t.match(refused.body, /name="briefAppointmentType" aria-invalid="true" aria-describedby="settings-error booking-status"/)
  t.equal((await leadline.accounts.require(f.accountId)).settings.assistantBrief.appointmentTypeId, 'call', 'nothing changed')

  await leadline.calendars.removeType(f.accountId, 'call', operatorContext.actor)
  const removed = (await f.browser.get('/app/settings')).body
  t.match(removed, /<p class="notice" id="booking-status">The assistant does not book appointments: the brief&#39;s appointmentTypeId names appointment type &#34;call&#34;, which this account does not have \(name one of estimate, or none\)\. Choose a type below, or none\.<\/p>/)
  t.match(removed, /<option value="call" selected>call \(no longer exists\)<\/option>/)
  const { briefAppointmentType: _, ...older } = { ...BRIEF_FORM, briefAppointmentType: '' }
  t.equal((await f.browser.post('/app/settings', { ...BASE, ...older, briefAssistantName: 'Sky' })).statusCode, 303, 'a form without the field (an older page) saves')
  t.match((await leadline.accounts.require(f.accountId)).settings.assistantBrief, { assistantName: 'Sky', appointmentTypeId: 'call' }, 'and keeps the type as it was')
})
