/**
 * send_sms through the tool endpoint (issue #27), on a clock the test sets: the real `twilio` SDK
 * against the fake Twilio. One text per idempotency key, however many calls race; the opt-out line;
 * do-not-call after an SMS STOP (signed by the SDK); a Florida lead at 20:30 Eastern refused with the
 * rule and 08:00 the next day; segments, and the sender, in the dry run; the account's Messaging
 * Service for send_sms, pay-links and the STOP confirmation.
 */
import t from 'tap'
import type { Test } from 'tap'
import { FAKE_CONNECTED_ACCOUNT, startFakeStripe, stripeEnv } from '../../doubles/fake-stripe.ts'
import { FAKE_ACCOUNT_SID, type FakeTwilio } from '../../doubles/fake-twilio.ts'
import { ALWAYS, CALLER_ID, fakeTwilio, manualClock, twilioEnv, type ManualClock } from '../../helpers/dialing-app.ts'
import { mcpApp } from './mcp-helpers.ts'

const MG = `MG${'0123456789abcdef'.repeat(2)}`
const JANE = '+13125550142'
const TUESDAY_10AM_CHICAGO = '2026-03-10T15:00:00Z'

async function smsApp(t: Test, settings: Record<string, unknown> = {}, options: { clock?: ManualClock; stripe?: boolean } = {}) {
  const fake = await fakeTwilio(t)
  const stripe = options.stripe ? await startFakeStripe({ connectedAccounts: [FAKE_CONNECTED_ACCOUNT] }) : null
  if (stripe) t.teardown(() => stripe.close())
  const clock = options.clock ?? manualClock(TUESDAY_10AM_CHICAGO)
  const app = await mcpApp(t, { env: { ...twilioEnv(fake), ...(stripe ? stripeEnv(stripe) : {}) }, clock: clock.now, start: false })
  const acme = await app.account('Acme Roofing', { callerId: CALLER_ID, callingHours: ALWAYS, ...(stripe ? { stripeAccount: FAKE_CONNECTED_ACCOUNT } : {}), ...settings })
  const texts = () => fake.messageRequests().filter((r) => r.outcome === 'created')
  const events = async (last10 = '3125550142') => (await app.leadline.store.readStream(`lead-${acme.accountId}-${last10}`)).map((e) => e.type)
  return { app, acme, fake, clock, texts, events }
}

const send = (body: string, key: string, extra: Record<string, unknown> = {}) => ({ phone: '(312) 555-0142', body, idempotency_key: key, ...extra })

t.test('send_sms texts the lead once, from the caller ID, with the opt-out line; the same key again sends nothing', async (t) => {
  const { app, acme, texts, events } = await smsApp(t)
  await acme.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  const answer = await app.call(acme.keys.write, 'send_sms', send('Hi Jane, your roof quote is ready.', 'k-1'))
  const out = answer.result?.structuredContent
  t.match(out, {
    status: 'sent', to: JANE, from: CALLER_ID, body: 'Hi Jane, your roof quote is ready.\nReply STOP to opt out.', segments: 1, encoding: 'GSM-7',
    messaging_service: null, carrier: 'twilio', check: { allowed: true }, dry_run: false,
  })
  t.equal(texts().length, 1)
  // The text asks for its delivery receipt, at a signed callback that names the text and its lead.
  t.match(texts()[0]?.form, { StatusCallback: /\/api\/carrier\/twilio\/sms-status\?text=txt_\w+&lead=lead-acc_\w+-3125550142$/ })
  t.same({ ...texts()[0]?.form, StatusCallback: undefined }, { To: JANE, From: CALLER_ID, Body: 'Hi Jane, your roof quote is ready.\nReply STOP to opt out.', StatusCallback: undefined })
  t.equal(out?.message_id, texts()[0]?.sid, "the answer carries Twilio's message sid")
  t.same((await events()).slice(-3), ['TextDecided', 'TextAttemptStarted', 'TextSent'])

  const again = await app.call(acme.keys.write, 'send_sms', send('Hi Jane, your roof quote is ready.', 'k-1'))
  t.same(again.result?.structuredContent, out, 'the first answer, replayed')
  t.equal(texts().length, 1, 'no second text')
  // A body that already says how to opt out is sent as written.
  const own = await app.call(acme.keys.write, 'send_sms', send('Quote ready. Text STOP to end messages.', 'k-2'))
  t.equal(own.result?.structuredContent.body, 'Quote ready. Text STOP to end messages.')
  t.match(await app.call(acme.keys.read, 'send_sms', send('Hi', 'k-3')), { error: { data: { code: 'insufficient_scope' } } }, 'needs the write scope')
  t.match(await app.call(acme.keys.write, 'send_sms', send('Hi', 'k-4', { phone: '(773) 555-0199' })), { error: { data: { code: 'lead_not_found' } } }, 'only a lead of the account')
})

t.test('20 concurrent calls with one idempotency_key: one text at the carrier, one answer', async (t) => {
  const { app, acme, texts, events } = await smsApp(t)
  await acme.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  const answers = await Promise.all(Array.from({ length: 20 }, () => app.call(acme.keys.write, 'send_sms', send('Your inspection is on Friday.', 'same-key'))))
  t.equal(texts().length, 1, 'exactly one text reached Twilio')
  const ids = new Set(answers.map((a) => a.result?.structuredContent.message_id))
  t.same([...ids], [texts()[0]?.sid], 'every caller got the one text')
  t.equal((await events()).filter((type) => type === 'TextDecided').length, 1)
})

t.test('a lead who texted STOP is refused with do_not_call, and is sent nothing more', async (t) => {
  const { app, acme, fake, texts } = await smsApp(t)
  await acme.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  const baseUrl = await app.listen()
  const params = { MessageSid: `SM${'1'.repeat(32)}`, AccountSid: FAKE_ACCOUNT_SID, From: JANE, To: CALLER_ID, Body: 'Stop', NumMedia: '0', NumSegments: '1' }
  const posted = await fake.postStatusCallback(`${baseUrl}/api/carrier/twilio/sms`, params, { signedUrl: 'http://leadline.test/api/carrier/twilio/sms' })
  t.equal(posted.status, 200)
  t.equal(texts().length, 1, 'the one opt-out confirmation')
  await app.settle()
  t.match(await app.call(acme.keys.write, 'send_sms', send('Still interested?', 'after-stop')), { error: { data: { code: 'do_not_call' } } })
  t.match(await app.call(acme.keys.write, 'send_sms', send('Still interested?', 'dry', { dry_run: true })), {
    result: { structuredContent: { status: 'would_not_send', check: { allowed: false, reason: 'do_not_call' } } },
  })
  t.equal(texts().length, 1, 'nothing more was texted')
})

t.test('a Florida lead at 20:30 Eastern: outside_lead_hours, rule FL 501.616, next allowed 08:00 the next day', async (t) => {
  const clock = manualClock('2026-03-11T00:30:00Z') // Tuesday 20:30 in Miami (EDT)
  const { app, acme, texts } = await smsApp(t, {}, { clock })
  await acme.pushLead({ name: 'Ana Diaz', phone: '(305) 555-0142', state: 'FL' })
  const refused = await app.call(acme.keys.write, 'send_sms', send('Hi Ana', 'fl-1', { phone: '(305) 555-0142' }))
  t.match(refused, { error: { data: { code: 'outside_lead_hours', rule: 'FL 501.616', next_allowed_at: '2026-03-11T12:00:00.000Z' } } })
  const dry = await app.call(acme.keys.write, 'send_sms', send('Hi Ana', 'fl-2', { phone: '(305) 555-0142', dry_run: true }))
  t.match(dry.result?.structuredContent, {
    status: 'would_not_send',
    check: { allowed: false, reason: 'outside_lead_hours', rule: 'FL 501.616', next_allowed_at: '2026-03-11T12:00:00.000Z', lead_zone: 'America/New_York', daily_limit: 3 },
  })
  // Texas at 20:30 Central is inside the federal 08:00-21:00.
  await acme.pushLead({ name: 'Tom Reyes', phone: '(214) 555-0142', state: 'TX' })
  clock.set('2026-03-11T01:30:00Z')
  t.match(await app.call(acme.keys.write, 'send_sms', send('Hi Tom', 'tx-1', { phone: '(214) 555-0142' })), { result: { structuredContent: { status: 'sent' } } })
  t.equal(texts().length, 1, 'only the Texas text went out')
})

t.test('dry_run: the segments of a long or non-GSM body, and the bare caller ID that carriers may filter', async (t) => {
  const { app, acme, texts, events } = await smsApp(t)
  await acme.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  const long = await app.call(acme.keys.write, 'send_sms', send('Your roof inspection report is ready. '.repeat(5), 'dry-1', { dry_run: true }))
  t.match(long.result?.structuredContent, { status: 'would_send', encoding: 'GSM-7', segments: 2, messaging_service: null, sender: /bare caller ID \+13125550100 and may be filtered by carriers/ })
  const unicode = await app.call(acme.keys.write, 'send_sms', send('Your roof inspection is booked 🏠 see you on Friday at nine, bring the ladder keys', 'dry-2', { dry_run: true }))
  t.match(unicode.result?.structuredContent, { encoding: 'UCS-2', segments: 2 })
  t.equal(texts().length, 0, 'a dry run sends nothing')
  t.same(await events(), ['LeadReceived'], 'and records nothing')
})

t.test('with a Messaging Service, send_sms, the pay-link and the STOP confirmation go through it (no From)', async (t) => {
  const { app, acme, fake, texts } = await smsApp(t, { messagingService: MG }, { stripe: true })
  await acme.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  const dry = await app.call(acme.keys.write, 'send_sms', send('Hi', 'mg-dry', { dry_run: true }))
  t.match(dry.result?.structuredContent, { messaging_service: MG, sender: `texts go through Messaging Service ${MG}` })
  const sent = await app.call(acme.keys.write, 'send_sms', send('Hi Jane', 'mg-1'))
  t.match(sent.result?.structuredContent, { status: 'sent', messaging_service: MG })
  t.same({ ...texts()[0]?.form, StatusCallback: undefined }, { To: JANE, MessagingServiceSid: MG, Body: 'Hi Jane\nReply STOP to opt out.', StatusCallback: undefined })

  const paid = await app.call(acme.keys.write, 'request_payment', { phone: '(312) 555-0142', amountCents: 5000, description: 'Deposit', idempotency_key: 'pay-1' })
  t.match(paid, { result: { structuredContent: { status: 'texted' } } })
  t.match(texts()[1]?.form, { To: JANE, MessagingServiceSid: MG })
  t.notOk('From' in (texts()[1]?.form ?? {}), 'the pay-link text names no From')

  const baseUrl = await app.listen()
  const params = { MessageSid: `SM${'2'.repeat(32)}`, AccountSid: FAKE_ACCOUNT_SID, From: JANE, To: CALLER_ID, Body: 'STOP', NumMedia: '0', NumSegments: '1' }
  await fake.postStatusCallback(`${baseUrl}/api/carrier/twilio/sms`, params, { signedUrl: 'http://leadline.test/api/carrier/twilio/sms' })
  t.match(texts()[2]?.form, { To: JANE, MessagingServiceSid: MG, Body: /unsubscribed/ })
  t.notOk('From' in (texts()[2]?.form ?? {}), 'nor does the confirmation')
})

t.test('a dry run on an account without a caller ID: the sender sentence says so and reads correctly', async (t) => {
  const { app, acme } = await smsApp(t, { callerId: null })
  await acme.pushLead({ name: 'Jane Doe', phone: '(312) 555-0142' })
  const dry = await app.call(acme.keys.write, 'send_sms', send('Hi Jane', 'no-id', { dry_run: true }))
  const sender = String((dry.result?.structuredContent as { sender?: unknown } | undefined)?.sender)
  t.equal(sender, 'no text can go yet: the account has no caller ID (no_caller_id: leadline account set --caller-id +1…); from a bare caller ID, texts may be filtered by carriers (no A2P 10DLC registration without a Messaging Service: leadline account set --messaging-service MG…)')
  t.notMatch(sender, /the caller ID the caller ID/)
})
