/**
 * Delivery receipts (issue #44, must-have 2): a text to a lead goes out through the official `twilio`
 * SDK (against the fake Twilio) with its statusCallback; Twilio's signed `sms-status` callback records
 * the final status once as TextDelivered (a repeat, a later or a passing status changes nothing), a
 * forged one is refused, an unknown text is answered and recorded nowhere; the lead's thread shows it.
 */
import t from 'tap'
import twilio from 'twilio'
import { FAKE_ACCOUNT_SID } from '../../doubles/fake-twilio.ts'
import { PUBLIC_URL } from '../../helpers/dialing-app.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import { summarise } from '../../../src/audit/event-summary.ts'
import { cockpit, formKey, PEOPLE, type Cockpit } from '../console/cockpit-fixture.ts'

/** The console's reply to Ben: one text through the texter; its request to the fake Twilio. */
async function replyToBen(c: Cockpit) {
  const page = await c.browser.get(`/app/leads/${c.ids.ben}`)
  const sent = await c.browser.post(`/app/leads/${c.ids.ben}/reply`, { idempotency_key: formKey(page.body, `/app/leads/${c.ids.ben}/reply`), body: 'Sure, at 5:30. Mike' })
  if (sent.statusCode !== 303) throw new Error(`the reply was not sent: ${sent.statusCode}`)
  const requests = c.fake.messageRequests().filter((r) => r.form.To === PEOPLE.ben.phone)
  return requests[requests.length - 1]
}

/** Posts Twilio's message status callback to `url` (the one Leadline handed Twilio), signed by the SDK (or forged). */
async function receipt(c: Cockpit, url: string, fields: { sid: string; status: string; errorCode?: string; forged?: boolean }) {
  const params: Record<string, string> = {
    MessageSid: fields.sid, SmsSid: fields.sid, MessageStatus: fields.status, SmsStatus: fields.status, AccountSid: FAKE_ACCOUNT_SID,
    From: '+13125550100', To: PEOPLE.ben.phone, ApiVersion: '2010-04-01', ...(fields.errorCode !== undefined ? { ErrorCode: fields.errorCode } : {}),
  }
  const signature = twilio.getExpectedTwilioSignature(fields.forged ? 'not-the-auth-token' : c.fake.authToken, url, params)
  const response = await c.built.app.inject({
    method: 'POST', url: url.slice(PUBLIC_URL.length), headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature }, payload: new URLSearchParams(params).toString(),
  })
  return response.statusCode
}

t.test('a text asks for its receipt; the signed final status is recorded once and shown as "delivered"', async (t) => {
  const c = await cockpit(t)
  const request = await replyToBen(c)
  const stream = leadStream(c.accountId, PEOPLE.ben.phone.slice(-10))
  const events = () => c.built.leadline.store.readStream(stream)
  const decided = (await events()).find((e) => e.type === 'TextDecided')
  const sent = (await events()).find((e) => e.type === 'TextSent')
  const textId = String((decided?.data as { textId: string }).textId)
  const messageSid = String((sent?.data as { messageId: string }).messageId)
  const url = `${PUBLIC_URL}/api/carrier/twilio/sms-status?text=${encodeURIComponent(textId)}&lead=${encodeURIComponent(stream)}`
  t.equal(request?.form.StatusCallback, url, 'the statusCallback goes with the text, naming the text and its lead')

  t.equal(await receipt(c, url, { sid: messageSid, status: 'delivered', forged: true }), 403, 'a forged receipt is refused')
  t.equal(await receipt(c, url, { sid: messageSid, status: 'sent' }), 200, 'a passing status is answered')
  t.equal((await events()).filter((e) => e.type === 'TextDelivered').length, 0, 'nothing recorded for a forged or a passing status')

  t.equal(await receipt(c, url, { sid: messageSid, status: 'delivered' }), 200)
  t.equal(await receipt(c, url, { sid: messageSid, status: 'delivered' }), 200, 'Twilio retries')
  t.equal(await receipt(c, url, { sid: messageSid, status: 'undelivered', errorCode: '30003' }), 200, 'a later receipt, out of order')
  const delivered = (await events()).filter((e) => e.type === 'TextDelivered')
  t.equal(delivered.length, 1, 'recorded once')
  t.match(delivered[0], { data: { textId, messageId: messageSid, status: 'delivered', errorCode: null }, metadata: { actor: { kind: 'carrier', id: 'twilio' } } })
  t.match(summarise(delivered[0] as never), /^text delivered by the carrier/)

  const thread = await c.browser.get(`/app/leads/${c.ids.ben}`)
  t.match(thread.body, /Sure, at 5:30\. Mike[\s\S]*?<span class="meta">delivered<\/span>/, 'the thread says delivered')
  t.notMatch(thread.body, 'sent (the carrier took it)')
})

t.test('an undelivered text shows the carrier error; a receipt for an unknown text records nothing', async (t) => {
  const c = await cockpit(t)
  const request = await replyToBen(c)
  const url = String(request?.form.StatusCallback)
  const stream = leadStream(c.accountId, PEOPLE.ben.phone.slice(-10))
  const sent = (await c.built.leadline.store.readStream(stream)).find((e) => e.type === 'TextSent')
  const before = (await c.built.leadline.store.readStream(stream)).length
  const unknown = url.replace(/text=[^&]+/, 'text=txt_not_ours')
  t.equal(await receipt(c, unknown, { sid: 'SM00000000000000000000000000000999', status: 'delivered' }), 200, 'an unknown text is answered')
  const otherLead = url.replace(/lead=[^&]+/, `lead=${encodeURIComponent(leadStream(c.accountId, PEOPLE.dan.phone.slice(-10)))}`)
  t.equal(await receipt(c, otherLead, { sid: String((sent?.data as { messageId: string }).messageId), status: 'delivered' }), 200, "a text id on another lead's stream")
  t.equal((await c.built.leadline.store.readStream(stream)).length, before, 'nothing recorded')

  t.equal(await receipt(c, url, { sid: String((sent?.data as { messageId: string }).messageId), status: 'undelivered', errorCode: '30003' }), 200)
  const log = await c.built.leadline.store.readStream(stream)
  t.match(log.at(-1), { type: 'TextDelivered', data: { status: 'undelivered', errorCode: 30003 } })
  const thread = await c.browser.get(`/app/leads/${c.ids.ben}`)
  t.match(thread.body, /Sure, at 5:30\. Mike[\s\S]*?<span class="meta bad">not delivered \(carrier error 30003\)<\/span>/)
})
