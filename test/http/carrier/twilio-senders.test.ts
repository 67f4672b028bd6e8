/**
 * A text acts for its sender only (issue #40, must-have 3), end to end: Twilio's messaging webhook,
 * signed with the official `twilio` SDK, reaches POST /api/carrier/twilio/sms; replies go out through
 * the SDK against the fake Twilio. +44 20 7946 0958 shares its last ten digits with the lead at
 * +1 207 946 0958 and is another person: its STOP suppresses its own number, is confirmed to it, and
 * leaves the lead callable; a webhook submission from it changes nothing on the lead.
 */
import t from 'tap'
import type { Test } from 'tap'
import twilio from 'twilio'
import { paymentsApp, type PaymentsTestApp } from '../payments/payments-helpers.ts'
import { FAKE_ACCOUNT_SID } from '../../doubles/fake-twilio.ts'

const CALLER_ID = '+13125550100'
const US = '+12079460958'
const GB = '+442079460958'
const SMS_URL = 'http://leadline.test/api/carrier/twilio/sms'
let sid = 0

/** Posts an inbound message as Twilio would, signed by the SDK with the auth token. */
async function inbound(app: PaymentsTestApp, body: string, from: string) {
  const params: Record<string, string> = {
    ToCountry: 'US', NumMedia: '0', SmsStatus: 'received', Body: body, To: CALLER_ID, From: from,
    MessageSid: `SM${String(++sid).padStart(32, '0')}`, AccountSid: FAKE_ACCOUNT_SID, ApiVersion: '2010-04-01', NumSegments: '1',
  }
  params.SmsMessageSid = params.MessageSid as string
  params.SmsSid = params.MessageSid as string
  const response = await app.app.inject({
    method: 'POST',
    url: '/api/carrier/twilio/sms',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(app.twilio!.authToken, SMS_URL, params) },
    payload: new URLSearchParams(params).toString(),
  })
  return response.statusCode
}

async function senderApp(t: Test) {
  const app = await paymentsApp(t, { settings: { callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, placeCallCountries: ['GB'], speedToLead: false } })
  const sam = await app.acme.pushLead({ name: 'Sam Jones', phone: US })
  const texts = () => app.twilio!.messageRequests()
  const events = async () => app.leadline.store.readStream(`lead-${app.acme.accountId}-2079460958`)
  const lead = async () => (await app.call(app.acme.keys.read, 'get_lead', { lead_id: sam.leadId })).result?.structuredContent as Record<string, any>
  return { app, sam, texts, events, lead }
}

t.test('STOP from +44 20 7946 0958 suppresses that number and is confirmed to it; the lead at +1 207 946 0958 is untouched', async (t) => {
  const { app, texts, events, lead } = await senderApp(t)
  const before = (await events()).length
  t.equal(await inbound(app, 'STOP', GB), 200)
  const log = (await events()).slice(before)
  t.same(log.map((e) => e.type), ['TextReceived', 'NumberSuppressed', 'TextReplyClaimed', 'TextReplySent'], 'no LeadMarkedDoNotCall on the +1 lead')
  t.match(log[0]?.data, { from: GB, otherNumber: true, keyword: 'opt_out' })
  t.match(log[1]?.data, { phone: GB, source: 'sms_keyword' })
  t.equal(texts().length, 1, 'one confirmation')
  t.match(texts()[0]?.form, { From: CALLER_ID, To: GB, Body: /^Acme Roofing: you are unsubscribed/ }, 'to the sender, not to the lead')

  await app.settle()
  t.match(await lead(), { lead: { phone: US, full_name: 'Sam Jones', do_not_call: false }, suppressed_numbers: [{ phone: GB, source: 'sms_keyword' }] })
  t.match(await app.call(app.acme.keys.all, 'place_call', { phone: '+44 20 7946 0958', name: 'Someone', idempotency_key: 'gb-1' }), { error: { data: { code: 'suppressed' } } }, 'the number that opted out is never called')
  t.match(await app.call(app.acme.keys.all, 'place_call', { phone: US, name: 'Sam Jones', idempotency_key: 'us-1', dry_run: true }), { result: { structuredContent: { status: 'would_call' } } }, 'the lead still may be')

  t.equal(await inbound(app, 'STOP', GB), 200)
  t.equal(texts().length, 1, 'a second STOP from it: no second confirmation')
  t.equal(await inbound(app, 'HELP', GB), 200)
  t.match(texts()[1]?.form, { To: GB, Body: /reply STOP/ }, 'HELP is answered to the sender')
  t.equal(await inbound(app, 'yes please call me', GB), 200)
  t.notOk((await events()).some((e) => e.type === 'LeadReplied'), "another number's reply is not the lead's")
  t.equal((await lead()).replies?.count ?? 0, 0)

  t.equal(await inbound(app, 'Stop', US), 200)
  t.match(texts()[2]?.form, { To: US, Body: /^Acme Roofing: you are unsubscribed/ }, "the lead's own STOP is confirmed to the lead")
  await app.settle()
  t.match(await lead(), { lead: { do_not_call: true } })
})

t.test('a webhook submission from the other number records the conflict and changes nothing else on the lead', async (t) => {
  const { app, sam, events, lead } = await senderApp(t)
  const before = await events()
  const response = await app.app.inject({
    method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': app.acme.token },
    payload: { name: 'Mallory Other', phone: '+44 20 7946 0958', email: 'm@example.com', do_not_call: true },
  })
  t.equal(response.statusCode, 409)
  t.match(response.json(), { error: 'phone conflict', detail: /another number/ })
  t.notMatch(response.body, /2079460958"|\+12079460958|Sam/, "nothing of the other lead is told to the sender")
  const added = (await events()).slice(before.length)
  t.same(added.map((e) => e.type), ['LeadPhoneConflict'], 'no rename, no flag, no list, no call')
  t.match(added[0]?.data, { leadId: sam.leadId, storedPhone: US, receivedPhone: GB, source: 'webhook', kept: true })
  await app.settle()
  t.match(await lead(), { lead: { phone: US, full_name: 'Sam Jones', do_not_call: false } })
  t.notOk((await lead()).lead.email, 'no email taken from the other person')

  // The lead created before keeps working: its own number updates it.
  const again = await app.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': app.acme.token }, payload: { name: 'Sam Jones', phone: '(207) 946-0958', email: 'sam@example.com' } })
  t.equal(again.statusCode, 200)
  await app.settle()
  t.match(await lead(), { lead: { email: 'sam@example.com' } })
})
