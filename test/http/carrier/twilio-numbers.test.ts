/**
 * One number, one account, with Twilio as the carrier (issue #40), through the official `twilio` SDK
 * against the fake Twilio: a caller ID must be one of the Twilio account's numbers (IncomingPhoneNumbers)
 * or a verified caller ID (OutgoingCallerIds), asked when it is set; a number taken by another account
 * is refused before Twilio is asked; an inbound text is routed by its `To` to the one account that
 * holds it, so account B's lead replying STOP lands in B only; a `To` nobody holds is answered and
 * recorded nowhere.
 */
import t from 'tap'
import type { Test } from 'tap'
import twilio from 'twilio'
import { mcpApp, type McpTestApp } from '../mcp/mcp-helpers.ts'
import { FAKE_ACCOUNT_SID, startFakeTwilio, twilioEnv, type FakeTwilio } from '../../doubles/fake-twilio.ts'
import { accountStream } from '../../../src/domain/account/account.events.ts'
import { numberClaimStream } from '../../../src/domain/numbers/number-claim.events.ts'
import { operatorContext } from '../../helpers/build-app.ts'
import { refusal } from '../../helpers/refusal.ts'

const A_NUMBER = '+13125550100'
const B_NUMBER = '+13125550101'
const VERIFIED = '+17735550123'
const NOT_HELD = '+13125550177'
const JANE = '+13125550142'
const SMS_URL = 'http://leadline.test/api/carrier/twilio/sms'
let sid = 0

async function setUp(t: Test): Promise<{ app: McpTestApp; fake: FakeTwilio; logged: string[] }> {
  const fake = await startFakeTwilio({ incomingNumbers: [A_NUMBER, B_NUMBER], verifiedCallerIds: [VERIFIED] })
  t.teardown(() => fake.close())
  const logged: string[] = []
  const app = await mcpApp(t, { env: twilioEnv(fake), start: false, logger: { level: 'warn', stream: { write: (line: string) => logged.push(line) } } })
  return { app, fake, logged }
}

/** Posts an inbound message as Twilio would, signed by the SDK. */
async function inbound(app: McpTestApp, fake: FakeTwilio, to: string, body: string) {
  const params: Record<string, string> = {
    ToCountry: 'US', NumMedia: '0', SmsStatus: 'received', Body: body, To: to, From: JANE,
    MessageSid: `SM${String(++sid).padStart(32, '0')}`, AccountSid: FAKE_ACCOUNT_SID, ApiVersion: '2010-04-01', NumSegments: '1',
  }
  const response = await app.app.inject({
    method: 'POST',
    url: '/api/carrier/twilio/sms',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(fake.authToken, SMS_URL, params) },
    payload: new URLSearchParams(params).toString(),
  })
  return { status: response.statusCode, body: response.body }
}

t.test("a caller ID must be the Twilio account's number or a verified caller ID, asked through the SDK when it is set", async (t) => {
  const { app, fake } = await setUp(t)
  const account = await app.account('Acme Roofing')
  const accounts = app.leadline.accounts
  const before = await app.leadline.store.headPosition()
  t.equal(await refusal(accounts.changeSettings(account.accountId, { callerId: NOT_HELD }, operatorContext)), 'number_not_in_carrier_account')
  t.equal(await app.leadline.store.headPosition(), before, 'nothing recorded')
  const asked = fake.numberListRequests()
  t.same(asked.map((r) => [r.method, new URL(r.path, 'http://x').pathname.split('/').at(-1), new URL(r.path, 'http://x').searchParams.get('PhoneNumber')]), [
    ['GET', 'IncomingPhoneNumbers.json', NOT_HELD],
    ['GET', 'OutgoingCallerIds.json', NOT_HELD],
  ], 'both lists, filtered by the number')

  await accounts.changeSettings(account.accountId, { callerId: VERIFIED }, operatorContext)
  t.match((await app.leadline.store.readStream(numberClaimStream(VERIFIED)))[0]?.data, { accountId: account.accountId, carrierHolds: 'verified_caller_id' })
  await accounts.changeSettings(account.accountId, { callerId: A_NUMBER }, operatorContext)
  t.match((await app.leadline.store.readStream(numberClaimStream(A_NUMBER)))[0]?.data, { accountId: account.accountId, carrierHolds: 'incoming_number' })
  t.equal(await app.leadline.numbers.ownerOf(VERIFIED), null, 'the verified number it used before is released')

  // A partial match is no match: Twilio's filter matches +1312555010 inside +13125550100.
  t.equal(await refusal(accounts.changeSettings(account.accountId, { callerId: '+1312555010' }, operatorContext)), 'number_not_in_carrier_account')

  fake.failNext({ kind: 'status', status: 500 })
  const head = await app.leadline.store.headPosition()
  t.equal(await refusal(accounts.changeSettings(account.accountId, { callerId: B_NUMBER }, operatorContext)), 'number_check_failed', 'Twilio failing: not set')
  t.equal(await app.leadline.store.headPosition(), head)
  fake.addIncomingNumber(NOT_HELD)
  await accounts.changeSettings(account.accountId, { callerId: NOT_HELD }, operatorContext)
  t.equal((await accounts.require(account.accountId)).settings.callerId, NOT_HELD, 'a number bought into the account is taken')
})

t.test("B cannot set A's number, and B's lead replying STOP lands in B only", async (t) => {
  const { app, fake } = await setUp(t)
  const a = await app.account('A Roofing', { callerId: A_NUMBER })
  const b = await app.account('B Plumbing', { callerId: B_NUMBER })
  await a.pushLead({ name: 'Jane Doe', phone: JANE })
  await b.pushLead({ name: 'Jane Doe', phone: JANE })
  const asked = fake.numberListRequests().length
  const revision = await app.leadline.store.streamRevision(accountStream(b.accountId))
  t.equal(await refusal(app.leadline.accounts.changeSettings(b.accountId, { callerId: A_NUMBER }, operatorContext)), 'number_in_use')
  t.equal(fake.numberListRequests().length, asked, 'refused before Twilio is asked')
  t.equal(await app.leadline.store.streamRevision(accountStream(b.accountId)), revision, 'nothing of B changed')

  const answer = await inbound(app, fake, B_NUMBER, 'STOP')
  t.equal(answer.status, 200)
  const bLead = await app.leadline.store.readStream(`lead-${b.accountId}-3125550142`)
  const aLead = await app.leadline.store.readStream(`lead-${a.accountId}-3125550142`)
  t.ok(bLead.some((e) => e.type === 'LeadMarkedDoNotCall'), "B's lead is do-not-call")
  t.notOk(aLead.some((e) => e.type === 'TextReceived' || e.type === 'LeadMarkedDoNotCall'), "A's lead of the same person is untouched")
  const confirmation = fake.messageRequests().at(-1)
  t.match(confirmation?.form, { From: B_NUMBER, To: JANE, Body: /^B Plumbing: you are unsubscribed/ }, "confirmed from B's number, naming B")
  await app.settle()
  t.match(await app.call(b.keys.all, 'send_sms', { phone: JANE, body: 'Hi again', idempotency_key: 'b-after-stop' }), { error: { data: { code: 'do_not_call' } } }, "B's next text is refused")
})

t.test('a text to a number nobody holds (one released, one never claimed) is answered 200, recorded on no lead, and logged without its body', async (t) => {
  const { app, fake, logged } = await setUp(t)
  const a = await app.account('A Roofing', { callerId: A_NUMBER })
  await a.pushLead({ name: 'Jane Doe', phone: JANE })
  await app.leadline.accounts.changeSettings(a.accountId, { callerId: B_NUMBER }, operatorContext)
  const head = await app.leadline.store.headPosition()
  for (const to of [A_NUMBER, NOT_HELD]) {
    const answer = await inbound(app, fake, to, 'STOP texting me, secret-body-words')
    t.equal(answer.status, 200)
    t.match(answer.body, /<Response\/>$/)
  }
  t.equal(await app.leadline.store.headPosition(), head, 'nothing recorded anywhere')
  t.equal(fake.messageRequests().length, 0, 'nothing sent')
  const warnings = logged.filter((line) => line.includes('no account holds'))
  t.equal(warnings.length, 2, 'each logged')
  t.notMatch(warnings.join('\n'), /secret-body-words|3125550142|auth-token/, 'without the body, the sender or a secret')
})
