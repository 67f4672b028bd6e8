/** The lead page shows the person's calls in, a line each, and the timeline their events; never a recording or its URL. */
import t from 'tap'
import { signedInConsole } from './console-helpers.ts'

t.test("a caller's calls in: taken, missed with a call back asked for and a voicemail's length, on the lead page and its timeline", async (t) => {
  // Tuesday 10 March 2026, 11:00 in New York (the default business hours are the calling hours).
  const f = await signedInConsole(t, { clock: () => new Date('2026-03-10T15:00:00Z') })
  const leadline = f.app.leadline
  await leadline.accounts.changeSettings(f.accountId, { callerId: '+13125550100', inboundRing: ['+13125550171'] }, { actor: { kind: 'operator', id: 'test' } })
  const inbound = leadline.callReports.inbound
  if (!inbound) throw new Error('the server answers no calls')
  t.match(await inbound.receive({ callId: 'CA1', from: '+13125550142', to: '+13125550100' }), { kind: 'ring' })
  t.equal(await inbound.whisperKey('CA1', 0, '1'), 'connect')
  await inbound.receive({ callId: 'CA2', from: '+13125550142', to: '+13125550100' })
  t.match(await inbound.dialEnded('CA2', 0), { kind: 'menu' })
  await inbound.menuKey('CA2', '1')
  await inbound.voicemail('CA2', 21)
  await leadline.runner.catchUp()
  const leadId = (await leadline.store.readStream(`lead-${f.accountId}-3125550142`))[0]?.data as { leadId: string }
  const page = await f.browser.get(`/app/leads/${leadId.leadId}`)
  t.equal(page.statusCode, 200)
  t.match(page.body, /<h2 id="calls-in">Calls in<\/h2>/)
  t.match(page.body, /missed: no owner took it; asked for a call back; left a voicemail of 21 s<\/li>/)
  t.match(page.body, /taken by \+13125550171<\/li>/)
  t.match(page.body, /inbound call taken by owner number 1/, 'the timeline has the events')
  t.match(page.body, /the caller left a voicemail of 21 s \(kept with the carrier\)/)
  t.notMatch(page.body, /Recordings|api\.twilio\.com/, 'no recording URL')
})
