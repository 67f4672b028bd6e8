/**
 * Inbound texts and opt-out keywords (issue #27), end to end: Twilio's messaging webhook, signed
 * with the official `twilio` SDK, reaches POST /api/carrier/twilio/sms; replies go out through the
 * SDK against the fake Twilio. STOP and its synonyms make the lead do-not-call (`sms_keyword`) and
 * are confirmed once, ever; HELP is answered once per text; a repeated webhook changes nothing; a
 * forged signature is refused before anything is recorded.
 */
import t from 'tap'
import type { Test } from 'tap'
import twilio from 'twilio'
import { PAYMENT, paymentsApp, type PaymentsTestApp } from '../payments/payments-helpers.ts'
import { FAKE_ACCOUNT_SID } from '../../doubles/fake-twilio.ts'
import { withoutRecordings } from '../../../src/domain/recordings-policy.ts'

const CALLER_ID = '+13125550100'
const JANE = '+13125550142'
const SMS_URL = 'http://leadline.test/api/carrier/twilio/sms'
let sid = 0

/** Posts an inbound message as Twilio would, signed by the SDK with the auth token (or a forged one). */
async function inbound(app: PaymentsTestApp, body: string, options: { from?: string; to?: string; messageSid?: string; forged?: boolean } = {}) {
  const params: Record<string, string> = {
    ToCountry: 'US', SmsMessageSid: '', NumMedia: '0', SmsSid: '', SmsStatus: 'received', Body: body,
    To: options.to ?? CALLER_ID, From: options.from ?? JANE, MessageSid: options.messageSid ?? `SM${String(++sid).padStart(32, '0')}`,
    AccountSid: FAKE_ACCOUNT_SID, ApiVersion: '2010-04-01', NumSegments: '1',
  }
  params.SmsMessageSid = params.MessageSid as string
  params.SmsSid = params.MessageSid as string
  const token = options.forged ? 'not-the-auth-token' : app.twilio!.authToken
  const signature = twilio.getExpectedTwilioSignature(token, SMS_URL, params)
  const response = await app.app.inject({
    method: 'POST',
    url: '/api/carrier/twilio/sms',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    payload: new URLSearchParams(params).toString(),
  })
  return { status: response.statusCode, body: response.body, messageSid: params.MessageSid as string }
}

async function textApp(t: Test) {
  const app = await paymentsApp(t)
  const texts = () => app.twilio!.messageRequests()
  const events = async (phone = '3125550142') => app.leadline.store.readStream(`lead-${app.acme.accountId}-${phone}`)
  return { app, texts, events }
}

for (const stop of ['stop', ' Stop. ', 'OPT OUT', 'unsubscribe!', 'Revoke']) {
  t.test(`"${stop}" makes the lead do-not-call, confirmed by one text; calls and pay-links are refused`, async (t) => {
    const { app, texts, events } = await textApp(t)
    const answer = await inbound(app, stop)
    t.equal(answer.status, 200)
    t.match(answer.body, /<Response\/>$/, 'an empty TwiML response: the confirmation goes through the messages API')
    const log = await events()
    t.same(log.map((e) => e.type).slice(-5), ['TextReceived', 'LeadMarkedDoNotCall', 'NumberSuppressed', 'TextReplyClaimed', 'TextReplySent'])
    t.match(log.find((e) => e.type === 'NumberSuppressed')?.data, { phone: JANE, source: 'sms_keyword' }, "the lead's own number is on the suppression list too")
    t.match(log.find((e) => e.type === 'LeadMarkedDoNotCall')?.data, { source: 'sms_keyword' })
    t.match(log.find((e) => e.type === 'TextReceived')?.data, { keyword: 'opt_out', transcript: stop, from: JANE, to: CALLER_ID })
    t.equal(texts().length, 1, 'one confirmation text')
    t.match(texts()[0]?.form, { From: CALLER_ID, To: JANE, Body: /^Acme Roofing: you are unsubscribed/ })
    t.notMatch(String(texts()[0]?.form.Body), /https?:|offer|discount|%/i, 'no link, no marketing')

    await app.settle()
    t.match(await app.call(app.acme.keys.all, 'place_call', { phone: '3125550142', name: 'Jane Doe', idempotency_key: 'after-stop' }), { error: { data: { code: 'do_not_call' } } })
    t.match(await app.call(app.acme.keys.write, 'request_payment', { ...PAYMENT, idempotency_key: 'pay-after-stop' }), { error: { data: { code: 'do_not_call' } } })
    t.equal(texts().length, 1, 'no pay-link text either')
  })
}

t.test('a second STOP and a repeated webhook send nothing and change nothing', async (t) => {
  const { app, texts, events } = await textApp(t)
  const first = await inbound(app, 'STOP')
  const count = (await events()).length
  t.equal((await inbound(app, 'STOP', { messageSid: first.messageSid })).status, 200)
  t.equal((await events()).length, count, 'the same MessageSid again: nothing recorded')
  t.equal(texts().length, 1)
  await inbound(app, 'quit')
  const after = await events()
  t.same(after.slice(count).map((e) => e.type), ['TextReceived'], 'a second opt-out is recorded, and confirmed by nothing')
  t.equal(texts().length, 1, 'exactly one confirmation, ever')
  // Concurrent deliveries of one STOP to a lead cleared and opted out again: still one confirmation.
  await app.leadline.commands.handle(`lead-${app.acme.accountId}-3125550142`, (await import('../../../src/domain/lead/lead.decider.ts')).leadDecider, { type: 'ClearDoNotCall' }, { actor: { kind: 'operator', id: 'op' } })
  const again = `SM${'f'.repeat(32)}`
  await Promise.all(Array.from({ length: 5 }, () => inbound(app, 'Stop', { messageSid: again })))
  t.equal(texts().length, 2, 'a new opt-out after the operator cleared it is confirmed once')
})

t.test('HELP and INFO answer with the business name and how to stop, once per text; START changes nothing', async (t) => {
  const { app, texts, events } = await textApp(t)
  const help = await inbound(app, 'help')
  await inbound(app, 'HELP', { messageSid: help.messageSid })
  t.equal(texts().length, 1, 'one answer to one text, however often it is delivered')
  t.match(texts()[0]?.form, { To: JANE, Body: 'Acme Roofing: reply STOP to stop all calls and texts from us.' })
  await inbound(app, 'Info?')
  t.equal(texts().length, 2)
  await inbound(app, 'STOP')
  await inbound(app, 'START')
  const log = await events()
  t.match(log.at(-1), { type: 'TextReceived', data: { keyword: 'opt_in' } })
  t.ok(log.some((e) => e.type === 'LeadMarkedDoNotCall') && !log.some((e) => e.type === 'LeadDoNotCallCleared'), 'START does not clear do-not-call')
  t.equal(texts().length, 3, 'START is not answered')
})

t.test('a reply from an unknown number is kept on a new lead not listed in Inbound Leads; its text never reaches a tool', async (t) => {
  const { app, texts, events } = await textApp(t)
  await inbound(app, 'Is the roof quote still good?', { from: '+17735550199' })
  const log = await events('7735550199')
  t.same(log.map((e) => e.type), ['LeadReceived', 'TextReceived', 'LeadReplied'])
  t.notOk('list' in (log[0]?.data as object), 'not in Inbound Leads')
  t.equal(texts().length, 0, 'an ordinary reply is not answered')
  await app.settle()
  const listed = await app.call(app.acme.keys.read, 'list_leads', {})
  t.notMatch(JSON.stringify(listed), /7735550199/, 'not listed')
  t.match(await app.call(app.acme.keys.read, 'get_lead', { phone: '7735550199' }), { result: { structuredContent: { lead: { phone: '+17735550199', do_not_call: false } } } }, 'get_lead finds it by the number')
  const history = await app.call(app.acme.keys.read, 'get_lead_history', { phone: '7735550199' })
  t.notMatch(JSON.stringify(history), /roof quote/, 'the text itself is never returned by a tool')
  const shown = (history.result?.structuredContent.events as Array<{ type: string; data: object }>)
  t.match(shown.find((e) => e.type === 'TextReceived')?.data, { from: '+17735550199', keyword: null }, 'that a text came, and when, is shown')
  t.notOk('transcript' in (withoutRecordings(log[1]?.data) as object), 'the recordings policy removes what was texted')
})

t.test('a text to a number no account has is not recorded; a forged signature is refused before anything is', async (t) => {
  const { app, texts } = await textApp(t)
  const head = await app.leadline.store.headPosition()
  t.equal((await inbound(app, 'STOP', { to: '+13125550177' })).status, 200)
  t.equal((await inbound(app, 'STOP', { forged: true })).status, 403)
  t.equal(await app.leadline.store.headPosition(), head, 'nothing recorded')
  t.equal(texts().length, 0)
  const missing = await app.app.inject({ method: 'POST', url: '/api/carrier/twilio/sms', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'Body=STOP' })
  t.equal(missing.statusCode, 403, 'no signature at all')
})
