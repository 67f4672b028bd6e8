/**
 * What an owner alert relays (issue #40), through the real process and the Twilio SDK against the
 * fake Twilio: a lead's 1,000-character name with a link and another number in it reaches the owner
 * cut to 60 characters, without the link or the number, in at most 2 segments; a callback's time is
 * in the account's zone, named, never UTC ISO.
 */
import t from 'tap'
import { CALLER_ID, dialingApp, fakeTwilio, leadEvents, postLead, waitFor } from '../../helpers/dialing-app.ts'
import { textSegments } from '../../../src/domain/lead/texts/text-body.ts'
import type { RecordedEvent } from '../../../src/domain/event.ts'

const OWNER = '+13125550199'

t.test("a hostile name reaches the owner as 60 plain characters at most, in 2 segments at most", async (t) => {
  const fake = await fakeTwilio(t)
  const built = await dialingApp(t, { fake })
  const { token } = await built.createAccount('Acme', { speedToLead: false, callerId: CALLER_ID, alertTo: OWNER, alerts: 'new_lead' })
  const name = `Urgent call 312-555-0177 or pay https://evil.example/pay ${'x'.repeat(1000)}`
  t.equal((await postLead(built.app, token, { phone: '+13125550142', name })).status, 201)
  await waitFor('the alert', () => fake.messageRequests().length === 1)
  const body = String(fake.messageRequests()[0]?.form.Body)
  t.ok(textSegments(body).segments <= 2, `${textSegments(body).segments} segments`)
  t.notMatch(body, /https?:|evil|555-0177|5550177/, 'no link, no other number')
  t.match(body, /^Leadline: new lead Urgent call or pay x+ \+13125550142$/)
  const relayedName = body.slice('Leadline: new lead '.length, -' +13125550142'.length)
  t.ok([...relayedName].length <= 60, `the name in ${[...relayedName].length} characters`)
})

t.test("a callback's time is the account's, with its zone named", async (t) => {
  const fake = await fakeTwilio(t)
  const built = await dialingApp(t, { fake })
  const { account, token } = await built.createAccount('Acme', { speedToLead: false, callerId: CALLER_ID, alertTo: OWNER, alerts: 'callback', timeZone: 'America/Los_Angeles' })
  await postLead(built.app, token, { phone: '+13125550142', name: 'Jane Doe' })
  await built.leadline.runner.catchUp()
  const [received] = await leadEvents(built.leadline, account.accountId, '+13125550142')
  // A callback requested now, at 10:00 tomorrow in Los Angeles (18:00 UTC).
  const callback = { ...(received as RecordedEvent), id: 'evt-callback-1', type: 'CallbackRequested', data: { decisionId: 'dec_1', callbackAt: '2026-11-26T18:00:00.000Z', at: '2026-11-25T18:00:00.000Z' }, recordedAt: new Date().toISOString() }
  t.equal(await built.leadline.ownerAlerts.alert(callback), 'sent')
  t.equal(fake.messageRequests()[0]?.form.Body, 'Leadline: Jane Doe +13125550142 asked to be called back (Thu 26 Nov, 10:00 AM America/Los_Angeles)')
})
