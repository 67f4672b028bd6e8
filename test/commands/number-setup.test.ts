/**
 * Setting up the account's number with Twilio (issue #43, must-have 1), through the official `twilio`
 * SDK against the fake Twilio: the account's numbers listed, local numbers searched (with the monthly
 * price), a number bought once (two buys at once, a second click, a crash after the claim, an answer
 * that never came), and "use for this account": the claim, the webhook URLs set on the number, the
 * caller ID; refused for a number another account holds.
 */
import t from 'tap'
import type { Test } from 'tap'
import { buildApp, operatorContext, type TestApp } from '../helpers/build-app.ts'
import { refusal } from '../helpers/refusal.ts'
import { startFakeTwilio, twilioEnv, type FakeTwilio } from '../doubles/fake-twilio.ts'
import { numberClaimStream } from '../../src/domain/numbers/number-claim.events.ts'
import { numberPurchaseStream } from '../../src/domain/numbers/number-purchase.events.ts'
import { numberPurchaseDecider } from '../../src/domain/numbers/number-purchase.decider.ts'
import { NumberBuyer } from '../../src/processes/number-buyer/number-buyer.process.ts'
import { LOG_RESTORES_STREAM, logRestoreDecider } from '../../src/domain/restore/log-restore.ts'

const OWNED = '+13125550100'
const VERIFIED = '+17735550123'
const FOR_SALE = '+13125550181'
const PUBLIC_URL = 'https://leads.example.com'

async function setUp(t: Test, options: { clock?: () => Date } = {}): Promise<{ app: TestApp; fake: FakeTwilio; accountId: string }> {
  const fake = await startFakeTwilio({ incomingNumbers: [OWNED], verifiedCallerIds: [VERIFIED] })
  t.teardown(() => fake.close())
  const app = await buildApp(t, { env: twilioEnv(fake), start: false, ...(options.clock ? { clock: options.clock } : {}) })
  const { account } = await app.createAccount('Acme Roofing')
  return { app, fake, accountId: account.accountId }
}

const creates = (fake: FakeTwilio) => fake.requests().filter((r) => r.method === 'POST' && /\/IncomingPhoneNumbers\.json$/.test(r.path))

t.test("lists the Twilio account's numbers and searches local numbers for sale, with the monthly price", async (t) => {
  const { app, fake, accountId } = await setUp(t)
  const setup = app.leadline.numberSetup

  const listing = await setup.list(accountId, PUBLIC_URL)
  t.match(listing, { carrier: 'twilio', simulated: false, callerId: null, purchases: [] })
  t.match(listing.numbers, [{ number: OWNED, sid: /^PN[0-9a-f]{32}$/, friendlyName: '(312) 555-0100', voice: true, sms: true, holder: { kind: 'none' }, callerId: false, pointedHere: false, voiceUrl: null }])

  const byArea = await setup.search({ areaCode: '312' })
  t.same(byArea.map((n) => n.number), ['+13125550181', '+13125550182', '+13125550183'])
  t.match(byArea[0], { friendlyName: '(312) 555-0181', locality: 'Chicago', region: 'IL', postalCode: '60601', voice: true, sms: true, monthlyPrice: { amount: '1.15', currency: 'USD' } })
  const asked = fake.requests().find((r) => r.path.includes('/AvailablePhoneNumbers/US/Local.json'))
  const query = new URL(asked?.path ?? '/', 'http://x').searchParams
  t.same([query.get('AreaCode'), query.get('VoiceEnabled'), query.get('SmsEnabled')], ['312', 'true', 'true'], 'numbers that take calls and texts, by area code')

  t.same((await setup.search({ postalCode: '60611' })).map((n) => n.number), ['+13125550183'], 'near the business: its ZIP code')
  t.same((await setup.search({ region: 'tx' })).map((n) => n.number), ['+15125550184'], 'a state')
  t.same((await setup.search({ nearNumber: '+15125550100' })).map((n) => n.number), ['+15125550184'], 'near a number')
  const near = fake.requests().filter((r) => r.path.includes('NearNumber='))
  t.equal(new URL(near[0]?.path ?? '/', 'http://x').searchParams.get('Distance'), '25', 'within 25 miles of it')

  const before = fake.requests().length
  for (const bad of [{ areaCode: '12' }, { postalCode: '6060' }, { region: 'Illinois' }, { nearNumber: '3125550100' }, {}, { areaCode: '312', contains: 'abc' }]) {
    t.equal(await refusal(setup.search(bad)), 'invalid_search', `refused: ${JSON.stringify(bad)}`)
  }
  t.equal(fake.requests().length, before, 'Twilio was not asked')

  fake.failNext({ kind: 'status', status: 500 })
  t.equal(await refusal(setup.search({ areaCode: '312' })), 'carrier_request_failed', "Twilio's failure is said, with a stable code")
})

t.test('buys a number once, then "use for this account" claims it, points its webhooks at Leadline and makes it the caller ID', async (t) => {
  const { app, fake, accountId } = await setUp(t)
  const setup = app.leadline.numberSetup

  t.same(await setup.quote(FOR_SALE), { amount: '1.15', currency: 'USD' }, 'the confirm step shows the monthly price')
  const bought = await setup.buy(accountId, FOR_SALE, { amount: '1.15', currency: 'USD' }, operatorContext)
  t.match(bought, { number: FOR_SALE, accountId, carrier: 'twilio', stage: 'bought', carrierSid: /^PN[0-9a-f]{32}$/, monthlyPrice: { amount: '1.15' } })
  t.same(fake.numbers.purchases(), [FOR_SALE], 'bought through IncomingPhoneNumbers.create')
  t.same((await app.leadline.store.readStream(numberPurchaseStream(FOR_SALE))).map((e) => e.type), ['NumberPurchaseDecided', 'NumberPurchaseStarted', 'NumberPurchased'])

  const again = await setup.buy(accountId, FOR_SALE, null, operatorContext)
  t.equal(again.purchaseId, bought.purchaseId, 'buying it again answers the purchase made')
  t.equal(creates(fake).length, 1, 'and asks Twilio nothing')
  t.match((await setup.list(accountId, PUBLIC_URL)).numbers.map((n) => n.number), [OWNED, FOR_SALE], 'the bought number is listed')

  const used = await setup.use(accountId, FOR_SALE, PUBLIC_URL, operatorContext)
  t.match(used, {
    number: FOR_SALE, claimed: true,
    webhooks: { applied: true, voiceUrl: `${PUBLIC_URL}/api/carrier/twilio/voice`, voiceStatusUrl: `${PUBLIC_URL}/api/carrier/twilio/voice-status`, smsUrl: `${PUBLIC_URL}/api/carrier/twilio/sms`, before: { voiceUrl: null, smsUrl: null } },
    callerId: { before: null, after: FOR_SALE, changed: true },
    warnings: [],
  })
  const [update, ...more] = fake.numbers.updates()
  t.equal(more.length, 0)
  t.match(update, {
    number: FOR_SALE,
    form: {
      VoiceUrl: `${PUBLIC_URL}/api/carrier/twilio/voice`, VoiceMethod: 'POST',
      StatusCallback: `${PUBLIC_URL}/api/carrier/twilio/voice-status`, StatusCallbackMethod: 'POST',
      SmsUrl: `${PUBLIC_URL}/api/carrier/twilio/sms`, SmsMethod: 'POST',
    },
  }, 'the voice URL, voice status callback and SMS URL, set through the SDK')
  t.match((await app.leadline.store.readStream(numberClaimStream(FOR_SALE))).map((e) => [e.type, e.data]), [['NumberClaimed', { accountId, use: 'inbound', carrierHolds: 'incoming_number' }]], 'claimed once, put in use')
  t.equal(await app.leadline.numbers.ownerOf(FOR_SALE), accountId, 'the number is this account\'s')
  t.equal((await app.leadline.accounts.require(accountId)).settings.callerId, FOR_SALE, 'and its caller ID')

  const listed = (await setup.list(accountId, PUBLIC_URL)).numbers.find((n) => n.number === FOR_SALE)
  t.match(listed, { holder: { kind: 'this_account', use: 'inbound' }, callerId: true, pointedHere: true, voiceUrl: `${PUBLIC_URL}/api/carrier/twilio/voice` })

  // Safe to repeat: the same URLs again, nothing else changes.
  const repeated = await setup.use(accountId, FOR_SALE, PUBLIC_URL, operatorContext)
  t.match(repeated, { claimed: false, callerId: { changed: false }, webhooks: { before: { voiceUrl: `${PUBLIC_URL}/api/carrier/twilio/voice` } } })

  // A number in use stays the account's when the caller ID moves on.
  await app.leadline.accounts.changeSettings(accountId, { callerId: VERIFIED }, operatorContext)
  t.equal(await app.leadline.numbers.ownerOf(FOR_SALE), accountId, 'a new caller ID does not release the number in use')
})

t.test('a number another account holds or bought is refused, nothing set; a number not in the Twilio account cannot be used', async (t) => {
  const { app, fake, accountId } = await setUp(t)
  const setup = app.leadline.numberSetup
  const { account: other } = await app.createAccount('Other Roofing')
  await setup.buy(accountId, FOR_SALE, null, operatorContext)
  await setup.use(accountId, FOR_SALE, PUBLIC_URL, operatorContext)
  const head = await app.leadline.store.headPosition()
  const updates = fake.numbers.updates().length

  t.equal(await refusal(setup.use(other.accountId, FOR_SALE, PUBLIC_URL, operatorContext)), 'number_in_use')
  t.equal(await refusal(setup.buy(other.accountId, FOR_SALE, null, operatorContext)), 'number_in_use')
  t.equal(await refusal(setup.use(other.accountId, '+13125550199', PUBLIC_URL, operatorContext)), 'number_not_in_carrier_account')
  t.equal(await refusal(setup.use(other.accountId, '3125550100', PUBLIC_URL, operatorContext)), 'invalid_number')
  t.equal(await app.leadline.store.headPosition(), head, 'nothing recorded')
  t.equal(fake.numbers.updates().length, updates, 'no webhook changed')
  t.equal(creates(fake).length, 1)

  // An owned number no one holds: B takes it; A's caller ID is B's no more.
  const taken = await setup.use(other.accountId, OWNED, PUBLIC_URL, operatorContext)
  t.match(taken, { claimed: true, callerId: { after: OWNED, changed: true } })
  t.match((await setup.list(accountId, PUBLIC_URL)).numbers.find((n) => n.number === OWNED), { holder: { kind: 'another_account' } }, "A's page says another account uses it, not which")
})

t.test("the caller ID stays the owner's choice when it is a number the account holds", async (t) => {
  const { app, accountId } = await setUp(t)
  await app.leadline.accounts.changeSettings(accountId, { callerId: VERIFIED }, operatorContext)
  const used = await app.leadline.numberSetup.use(accountId, OWNED, 'http://127.0.0.1:3000', operatorContext)
  t.match(used.callerId, { before: VERIFIED, after: VERIFIED, changed: false, why: /the owner chose \+17735550123/ })
  t.equal((await app.leadline.accounts.require(accountId)).settings.callerId, VERIFIED)
  t.match(used.warnings, [/cannot reach from the internet: set LEADLINE_PUBLIC_URL/], 'a public URL Twilio cannot reach is said')
})

t.test('two buys of one number at once buy it once', async (t) => {
  const { app, fake, accountId } = await setUp(t)
  const { account: other } = await app.createAccount('Other Roofing')
  const setup = app.leadline.numberSetup
  fake.failNext({ kind: 'delay', ms: 50 })
  const [first, second] = await Promise.all([setup.buy(accountId, FOR_SALE, null, operatorContext), setup.buy(accountId, FOR_SALE, null, operatorContext)])
  t.equal(first.stage, 'bought')
  t.equal(second.purchaseId, first.purchaseId, 'the double click joins the one purchase')
  t.equal(creates(fake).length, 1, 'Twilio was asked once')

  const next = '+13125550182'
  fake.failNext({ kind: 'delay', ms: 50 })
  const raced = await Promise.allSettled([setup.buy(accountId, next, null, operatorContext), setup.buy(other.accountId, next, null, operatorContext)])
  t.equal(raced.filter((r) => r.status === 'fulfilled').length, 1, 'two accounts: one buys it')
  t.match(raced.find((r) => r.status === 'rejected'), { reason: { code: /^number_purchase_in_progress$|^number_in_use$/ } }, 'the other is refused')
  t.equal(creates(fake).length, 2, 'Twilio was asked once for it')
})

t.test('an answer that never came: outcome unknown, never asked again, and the number is usable once Twilio lists it', async (t) => {
  const { app, fake, accountId } = await setUp(t)
  const setup = app.leadline.numberSetup
  fake.failNext({ kind: 'destroy' })
  const unknown = await setup.buy(accountId, FOR_SALE, null, operatorContext)
  t.match(unknown, { stage: 'unknown', message: /may have been/ })
  t.equal(creates(fake).length, 1, 'not retried')
  t.equal(await refusal(setup.buy(accountId, FOR_SALE, null, operatorContext)), 'number_purchase_unknown', 'a second buy is refused, not sent blindly')
  t.equal(creates(fake).length, 1)
  const listing = await setup.list(accountId, PUBLIC_URL)
  t.match(listing.purchases, [{ number: FOR_SALE, stage: 'unknown' }], 'the page reports it')
  t.ok(listing.numbers.some((n) => n.number === FOR_SALE), 'Twilio did buy it: it is in the list')
  t.match(await setup.use(accountId, FOR_SALE, PUBLIC_URL, operatorContext), { claimed: true })
})

t.test('a crash between the claim and the carrier call: outcome unknown after the restart, Twilio never asked; an unclaimed decision fails and may be bought again', async (t) => {
  let now = Date.parse('2026-03-10T15:00:00Z')
  const { app, fake, accountId } = await setUp(t, { clock: () => new Date(now) })
  const commands = app.leadline.commands
  const crashed = numberPurchaseStream(FOR_SALE)
  const context = { actor: { kind: 'process', id: 'number-buyer' } } as const
  // A node decided and claimed, then died before it asked Twilio.
  await commands.handle(crashed, numberPurchaseDecider, { type: 'DecidePurchase', purchaseId: 'npu_crashed', number: FOR_SALE, accountId, carrier: 'twilio', monthlyPrice: null }, context)
  await commands.handle(crashed, numberPurchaseDecider, { type: 'StartPurchase', purchaseId: 'npu_crashed', node: 'dead-node:1' }, context)
  // Another decided and died before its claim.
  const abandoned = numberPurchaseStream('+13125550182')
  await commands.handle(abandoned, numberPurchaseDecider, { type: 'DecidePurchase', purchaseId: 'npu_abandoned', number: '+13125550182', accountId, carrier: 'twilio', monthlyPrice: null }, context)

  now += 5 * 60_000
  await app.leadline.effects.get(NumberBuyer).recover(60_000)
  t.match((await commands.load(crashed, numberPurchaseDecider)).state.current, { stage: 'unknown' }, 'claimed with no outcome: unknown')
  t.match((await commands.load(abandoned, numberPurchaseDecider)).state.current, { stage: 'failed', failure: 'interrupted' }, 'never claimed: failed, nothing was asked')
  t.equal(creates(fake).length, 0, 'Twilio was never asked')
  t.equal(await refusal(app.leadline.numberSetup.buy(accountId, FOR_SALE, null, operatorContext)), 'number_purchase_unknown')
  t.match(await app.leadline.numberSetup.buy(accountId, '+13125550182', null, operatorContext), { stage: 'bought' }, 'the interrupted one can be bought again')
  t.equal(creates(fake).length, 1)
})

t.test('two nodes on one log buying one number at the same moment buy it once', async (t) => {
  const fake = await startFakeTwilio({ incomingNumbers: [OWNED] })
  t.teardown(() => fake.close())
  const first = await buildApp(t, { env: twilioEnv(fake), start: false, store: 'sqlite' })
  const second = await buildApp(t, { env: twilioEnv(fake), start: false, sameLogAs: first })
  const { account } = await first.createAccount('Acme Roofing')
  await second.leadline.runner.catchUp()
  fake.failNext({ kind: 'delay', ms: 50 })
  const [a, b] = await Promise.all([
    first.leadline.numberSetup.buy(account.accountId, FOR_SALE, null, operatorContext),
    second.leadline.numberSetup.buy(account.accountId, FOR_SALE, null, operatorContext),
  ])
  t.equal(creates(fake).length, 1, 'Twilio was asked once')
  t.equal(a.purchaseId, b.purchaseId, 'one purchase, both answered with it')
  t.same([a.stage, b.stage], ['bought', 'bought'])
  t.same((await first.leadline.store.readStream(numberPurchaseStream(FOR_SALE))).map((e) => e.type), ['NumberPurchaseDecided', 'NumberPurchaseStarted', 'NumberPurchased'])
})

t.test('Twilio refusing the webhook URLs: the number is the account\'s, the owner is told to use it again, and the next use sets them', async (t) => {
  const { app, fake, accountId } = await setUp(t)
  const setup = app.leadline.numberSetup
  // The number check, the claim's check and the look-up of its sid pass; the update fails.
  fake.failNext({ kind: 'delay', ms: 0 }, 3)
  fake.failNext({ kind: 'status', status: 500 })
  t.equal(await refusal(setup.use(accountId, OWNED, PUBLIC_URL, operatorContext)), 'number_webhooks_failed')
  t.equal(await app.leadline.numbers.ownerOf(OWNED), accountId, 'claimed: no other account can take it meanwhile')
  t.equal((await app.leadline.accounts.require(accountId)).settings.callerId, null, 'the caller ID waits for a number that answers')
  t.equal(fake.numbers.updates().length, 0)
  t.match(await setup.use(accountId, OWNED, PUBLIC_URL, operatorContext), { claimed: false, webhooks: { applied: true }, callerId: { after: OWNED, changed: true } })
  t.equal(fake.numbers.updates().length, 1)
})

t.test('after a restore from a backup: a purchase the backup held open is never carried out (unclaimed: failed; claimed: unknown)', async (t) => {
  const { app, fake, accountId } = await setUp(t)
  const commands = app.leadline.commands
  const context = { actor: { kind: 'process', id: 'number-buyer' } } as const
  const unclaimed = numberPurchaseStream(FOR_SALE)
  const claimed = numberPurchaseStream('+13125550182')
  await commands.handle(unclaimed, numberPurchaseDecider, { type: 'DecidePurchase', purchaseId: 'npu_open', number: FOR_SALE, accountId, carrier: 'twilio', monthlyPrice: null }, context)
  await commands.handle(claimed, numberPurchaseDecider, { type: 'DecidePurchase', purchaseId: 'npu_claimed', number: '+13125550182', accountId, carrier: 'twilio', monthlyPrice: null }, context)
  await commands.handle(claimed, numberPurchaseDecider, { type: 'StartPurchase', purchaseId: 'npu_claimed', node: 'old-node:1' }, context)
  const head = await app.leadline.store.headPosition()
  await commands.handle(LOG_RESTORES_STREAM, logRestoreDecider, { type: 'RecordRestore', backupHead: head, backupEvents: head + 1 }, operatorContext)
  await app.leadline.runner.catchUp()
  t.equal(await app.leadline.effects.get(NumberBuyer).expireRestored(), 2)
  t.match((await commands.load(unclaimed, numberPurchaseDecider)).state.current, { stage: 'failed', failure: 'restored_from_backup' })
  t.match((await commands.load(claimed, numberPurchaseDecider)).state.current, { stage: 'unknown', message: /may have been bought after the backup/ })
  t.equal(creates(fake).length, 0, 'Twilio was not asked')
})
