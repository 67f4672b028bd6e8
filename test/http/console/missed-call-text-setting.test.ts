/** Settings → Missed calls: the text-back on or off and its message; an older form without the field leaves it as it is; a bad template changes nothing. */
import t from 'tap'
import { DEFAULT_MISSED_CALL_TEXT } from '../../../src/domain/lead/texts/missed-call-text.ts'
import { signedInConsole } from './console-helpers.ts'

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri'] as const
/** The rest of the settings form, as the page sends it. */
const BASE: Record<string, string> = {
  timeZone: 'America/New_York', callerId: '', onAnswerMode: 'greeting', onAnswerNumber: '', onAnswerUrl: '', allowedCountries: '', placeCallCountries: '',
  followUpSteps: '10m', followUpMax: '3', staleValue: '24', staleUnit: 'hours', stripeAccount: '', amd: 'on', voicemail: '', voicemailUrl: '', voicemailPerDay: '1',
  ...Object.fromEntries(DAYS.flatMap((d) => [[`day-${d}`, 'on'], [`from-${d}`, '09:00'], [`to-${d}`, '18:00']])),
}

t.test('the text-back is on by default with its message; off, a new message, empty for the default, an older form', async (t) => {
  const f = await signedInConsole(t)
  const settings = async () => (await f.app.leadline.accounts.get(f.accountId))!.settings
  const page = await f.browser.get('/app/settings')
  t.match(page.body, /<input type="checkbox" name="missedCallTextOn" value="on" checked>/)
  t.match(page.body, /<textarea id="missedCallText" name="missedCallText" rows="3" maxlength="240">Hi \{first_name\}, sorry we missed your call at \{business\}\./)

  t.equal((await f.browser.post('/app/settings', { ...BASE, missedCallText: DEFAULT_MISSED_CALL_TEXT })).statusCode, 303)
  t.equal((await settings()).missedCallText, null, 'unticked: off')
  await f.browser.get('/app/settings')
  t.equal((await f.browser.post('/app/settings', { ...BASE, missedCallTextOn: 'on', missedCallText: 'Missed you, {first_name}! {business}' })).statusCode, 303)
  t.equal((await settings()).missedCallText, 'Missed you, {first_name}! {business}')
  await f.browser.get('/app/settings')
  t.equal((await f.browser.post('/app/settings', { ...BASE })).statusCode, 303)
  t.equal((await settings()).missedCallText, 'Missed you, {first_name}! {business}', 'a form without the field leaves it as it is')
  await f.browser.get('/app/settings')
  t.equal((await f.browser.post('/app/settings', { ...BASE, missedCallTextOn: 'on', missedCallText: '' })).statusCode, 303)
  t.equal((await settings()).missedCallText, DEFAULT_MISSED_CALL_TEXT, 'empty: the default message')

  await f.browser.get('/app/settings')
  const refused = await f.browser.post('/app/settings', { ...BASE, missedCallTextOn: 'on', missedCallText: 'Call {callback_number}' })
  t.equal(refused.statusCode, 400)
  t.match(refused.body, /unknown placeholder \{callback_number\}/)
  t.equal((await settings()).missedCallText, DEFAULT_MISSED_CALL_TEXT, 'nothing changed')
})
