/**
 * The console's "Simulate an inbound call" on a lead's page (simulated carrier only): the owner picks
 * what happens, the lead's number calls the account's through the same inbound steps as Twilio's voice
 * route, and the page shows the outcome and the recorded events in its timeline. A forged form (no
 * CSRF token), an unknown scenario and another account's lead change nothing.
 */
import t from 'tap'
import { signedInConsole } from './console-helpers.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'

t.test('a lead page plays an inbound call from the lead\'s number, labelled simulated', async (t) => {
  const f = await signedInConsole(t)
  const { leadline } = f.app
  await leadline.accounts.changeSettings(f.accountId, { callerId: '+13125550100', callingHours: 'mon-sun 00:00-24:00', inboundRing: ['+13125550171'] }, { actor: { kind: 'operator', id: 'test' } })
  const posted = await f.app.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': f.token }, payload: { phone: '+13125550142', name: 'Jane Doe' } })
  const leadId = (posted.json() as { leadId: string }).leadId
  await leadline.runner.catchUp()

  const page = await f.browser.get(`/app/leads/${leadId}`)
  t.match(page.body, /<h2 id="simulate-inbound">Simulate an inbound call <span class="badge">simulated<\/span><\/h2>/)
  t.match(page.body, /<option value="owner-answers">an owner answers and presses 1<\/option>/)

  const forged = await f.browser.post(`/app/leads/${leadId}/simulate-inbound-call`, { _csrf: 'forged', scenario: 'voicemail' })
  t.equal(forged.statusCode, 403)
  await f.browser.get(`/app/leads/${leadId}`)
  const bad = await f.browser.post(`/app/leads/${leadId}/simulate-inbound-call`, { scenario: 'ring-forever' })
  t.equal(bad.statusCode, 400)
  const stream = leadStream(f.accountId, '3125550142')
  t.notOk((await leadline.store.readStream(stream)).some((e) => e.type.startsWith('Inbound')), 'nothing recorded by a refused form')

  await f.browser.get(`/app/leads/${leadId}`)
  const played = await f.browser.post(`/app/leads/${leadId}/simulate-inbound-call`, { scenario: 'voicemail' })
  t.equal(played.statusCode, 303)
  t.equal(played.headers.location, `/app/leads/${leadId}?simulated=voicemail`)
  t.same((await leadline.store.readStream(stream)).map((e) => e.type).filter((type) => type.startsWith('Inbound')), ['InboundCallReceived', 'InboundCallMissed', 'InboundVoicemailLeft', 'InboundCallEnded'])
  const after = await f.browser.get(played.headers.location as string)
  t.match(after.body, /Simulated inbound call played: missed, and a voicemail was left\./)
  t.match(after.body, /the caller left a voicemail of 17 s \(kept with the carrier\)/)
  t.notMatch((await f.browser.get(`/app/leads/${leadId}?simulated=%3Cscript%3E`)).body, /Simulated inbound call played/, 'only an outcome the page names is shown back')

  const other = await f.app.createAccount('Other')
  const theirs = await f.app.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': other.token }, payload: { phone: '+13125550143' } })
  await leadline.runner.catchUp()
  await f.browser.get(`/app/leads/${leadId}`)
  const foreign = await f.browser.post(`/app/leads/${(theirs.json() as { leadId: string }).leadId}/simulate-inbound-call`, { scenario: 'no-answer' })
  t.equal(foreign.statusCode, 404, "another account's lead reads as none")
})
