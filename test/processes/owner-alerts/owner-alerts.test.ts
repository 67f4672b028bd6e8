/**
 * Owner alerts through the real Twilio adapter (the official SDK) against the fake Twilio on
 * 127.0.0.1: a new lead texts the owner once; the same event alerted again, or by a second node on
 * the same log, texts nothing more; what the owner did not ask for is not texted; a refusal is recorded.
 */
import t from 'tap'
import { CALLER_ID, dialingApp, fakeTwilio, leadEvents, postLead, reopen, sleep, waitFor } from '../../helpers/dialing-app.ts'
import { ownerAlertStream } from '../../../src/domain/owner-alerts/owner-alerts.events.ts'

const OWNER = '+13125550199'

t.test('a new lead texts the owner once, from the account\'s number, however often the event is alerted', async (t) => {
  const fake = await fakeTwilio(t)
  const built = await dialingApp(t, { fake, store: 'sqlite' })
  const { account, token } = await built.createAccount('Acme', { speedToLead: false, callerId: CALLER_ID, alertTo: OWNER, alerts: 'new_lead' })
  t.equal((await postLead(built.app, token, { phone: '+13125550142', name: 'Jane Doe' })).status, 201)
  await waitFor('the alert', () => fake.messageRequests().length === 1)
  const [text] = fake.messageRequests()
  t.equal(text?.form.To, OWNER)
  t.equal(text?.form.From, CALLER_ID)
  t.equal(text?.form.Body, 'Leadline: new lead Jane Doe +13125550142')

  const [received] = await leadEvents(built.leadline, account.accountId, '+13125550142')
  const stream = ownerAlertStream(account.accountId, received?.id as string)
  await waitFor('the alert recorded', async () => (await built.leadline.store.readStream(stream)).length === 2)
  t.same((await built.leadline.store.readStream(stream)).map((e) => e.type), ['OwnerAlertClaimed', 'OwnerAlertSent'])

  // The same event again on this node, and on a second node of the same log: claimed already, never texted again.
  const second = await reopen(t, { store: built.store, viewsPath: `${built.viewsPath}.node2` }, { fake, start: false })
  const outcomes = await Promise.all([built.leadline.ownerAlerts.alert(received!), second.leadline.ownerAlerts.alert(received!), built.leadline.ownerAlerts.alert(received!)])
  t.same(outcomes, ['already_claimed', 'already_claimed', 'already_claimed'])
  await sleep(100)
  t.equal(fake.messageRequests().length, 1, 'one text in all')
})

t.test('only what the owner asked for; a refused text is recorded and never sent again', async (t) => {
  const fake = await fakeTwilio(t)
  const built = await dialingApp(t, { fake })
  const { account, token } = await built.createAccount('Acme', { speedToLead: false, callerId: CALLER_ID, alertTo: OWNER, alerts: 'callback,payment' })
  await postLead(built.app, token, { phone: '+13125550142', name: 'Jane Doe' })
  await sleep(200)
  t.equal(fake.messageRequests().length, 0, 'new_lead was not asked for')

  await built.leadline.accounts.changeSettings(account.accountId, { alerts: 'new_lead' }, { actor: { kind: 'operator', id: 'test' } })
  fake.failNext({ kind: 'status', status: 400, code: 21614, message: 'not a mobile number' })
  await postLead(built.app, token, { phone: '+13125550143', name: 'John Doe' })
  const [received] = await leadEvents(built.leadline, account.accountId, '+13125550143')
  const stream = ownerAlertStream(account.accountId, received?.id as string)
  await waitFor('the refusal recorded', async () => (await built.leadline.store.readStream(stream)).length === 2)
  const [, failed] = await built.leadline.store.readStream(stream)
  t.equal(failed?.type, 'OwnerAlertFailed')
  t.equal(await built.leadline.ownerAlerts.alert(received!), 'already_claimed')
})
