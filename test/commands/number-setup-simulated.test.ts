/**
 * The simulated carrier's numbers (issue #43): a fictional inventory, the same on every run, so the
 * embedded default shows the Phone numbers pages; a number bought there is kept on the log, listed
 * after a restart (read models rebuilt), and put in use without any webhook to set.
 */
import t from 'tap'
import { buildApp, operatorContext } from '../helpers/build-app.ts'
import { refusal } from '../helpers/refusal.ts'
import { simulatedInventory } from '../../src/integrations/carrier/simulated/index.ts'

t.test('a fictional 555-01xx inventory per area code, the same on every run, labelled simulated', async (t) => {
  const app = await buildApp(t, { start: false })
  const setup = app.leadline.numberSetup
  const first = await setup.search({ areaCode: '415' })
  t.equal(first.length, 20)
  for (const n of first) t.match(n, { number: /^\+141555501\d\d$/, locality: 'Simulated (area code 415)', voice: true, sms: true, monthlyPrice: null })
  t.equal(new Set(first.map((n) => n.number)).size, 20, 'all different')
  t.same((await setup.search({ areaCode: '415' })).map((n) => n.number), first.map((n) => n.number), 'the same numbers again')
  t.same(simulatedInventory({ country: 'US', areaCode: '415', limit: 20 }).map((n) => n.number), first.map((n) => n.number), 'on every run: nothing random')
  t.notSame((await setup.search({ areaCode: '312' })).map((n) => n.number), first.map((n) => n.number), 'another area code, other numbers')
  t.match(await setup.search({ postalCode: '60601' }), [{ number: /^\+131255501\d\d$/, locality: 'Simulated (near 60601)' }], 'near a ZIP code: its postal zone\'s area code')
  t.match(await setup.search({ nearNumber: '+15125550100' }), [{ number: /^\+151255501\d\d$/ }], 'near a number: its area code')
  t.equal(await refusal(setup.search({ areaCode: '015' })), 'invalid_search')
})

t.test('bought on the simulated carrier: kept on the log, listed after a restart, put in use with nothing to set', async (t) => {
  const app = await buildApp(t, { store: 'sqlite', start: false })
  const { account } = await app.createAccount('Acme Roofing')
  const setup = app.leadline.numberSetup
  const [pick] = await setup.search({ areaCode: '415', limit: 3 })
  const number = pick?.number as string
  t.same((await setup.list(account.accountId, 'http://leadline.test')).numbers, [], 'nothing owned yet')
  t.equal(await setup.quote(number), null, 'no price: the simulated carrier charges nothing')
  t.match(await setup.buy(account.accountId, number, null, operatorContext), { stage: 'bought', carrier: 'simulated', carrierSid: /^PNsim/ })
  t.equal(await refusal(setup.buy(account.accountId, '+14155550100', null, operatorContext)), 'not refused', 'a 555-0100 is in the inventory too')
  t.match(await setup.buy(account.accountId, '+14155551234', null, operatorContext), { stage: 'failed', failure: 'rejected', message: /not in the simulated inventory/ }, 'a number outside it is refused by the carrier')

  const restarted = await buildApp(t, { sameLogAs: app, start: false })
  const listed = await restarted.leadline.numberSetup.list(account.accountId, 'http://leadline.test')
  t.match(listed, { carrier: 'simulated', simulated: true })
  t.same(listed.numbers.map((n) => n.number), ['+14155550100', number].sort(), 'the bought numbers, from the log, after a restart')

  const used = await restarted.leadline.numberSetup.use(account.accountId, number, 'http://leadline.test', operatorContext)
  t.match(used, { claimed: true, webhooks: { applied: false, voiceUrl: 'http://leadline.test/api/carrier/simulated/voice' }, callerId: { before: null, after: number, changed: true }, warnings: [] })
  t.equal(await refusal(restarted.leadline.numberSetup.use(account.accountId, '+14155550199', 'http://leadline.test', operatorContext)), 'number_not_in_carrier_account', 'a number not bought cannot be used')
})
