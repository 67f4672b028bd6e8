/**
 * One number, one account (issue #40): a caller ID or Messaging Service is claimed on its own stream
 * before an account's settings change. Another account's claim is refused with `number_in_use` and
 * nothing of it changes; two accounts claiming one number at once, on one node or two, end with one
 * holder; a new caller ID releases the old; an upgraded log whose accounts shared a number gives it
 * to the older account and clears the younger's setting.
 */
import path from 'node:path'
import t from 'tap'
import type { Test } from 'tap'
import { openLeadline, type Leadline } from '../../src/leadline.ts'
import { accountDecider } from '../../src/domain/account/account.decider.ts'
import { accountStream } from '../../src/domain/account/account.events.ts'
import { numberClaimStream } from '../../src/domain/numbers/number-claim.events.ts'
import { operatorContext } from '../helpers/build-app.ts'
import { refusal } from '../helpers/refusal.ts'

const X = '+13125550100'
const Y = '+13125550199'
const MG = `MG${'ab'.repeat(16)}`

async function open(t: Pick<Test, 'teardown'>, dir: string, name = 'views.db'): Promise<Leadline> {
  const leadline = await openLeadline({ store: `sqlite:${path.join(dir, 'leadline.db')}`, viewsPath: path.join(dir, name), env: { LEADLINE_SIMULATED_DELAY_MS: '20' } })
  t.teardown(() => leadline.close())
  return leadline
}

t.test("B cannot set A's number, at creation or later: number_in_use, and nothing of B changes", async (t) => {
  const leadline = await open(t, t.testdir())
  const { account: a } = await leadline.accounts.create('A Roofing', { callerId: X, messagingService: MG }, operatorContext)
  const { account: b } = await leadline.accounts.create('B Plumbing', { callerId: Y }, operatorContext)
  const before = await leadline.store.streamRevision(accountStream(b.accountId))
  t.equal(await refusal(leadline.accounts.changeSettings(b.accountId, { callerId: X }, operatorContext)), 'number_in_use')
  t.equal(await refusal(leadline.accounts.changeSettings(b.accountId, { messagingService: MG, timeZone: 'Europe/Berlin' }, operatorContext)), 'number_in_use', 'a Messaging Service too')
  t.equal(await leadline.store.streamRevision(accountStream(b.accountId)), before, "nothing appended to B's account")
  t.match((await leadline.accounts.require(b.accountId)).settings, { callerId: Y, messagingService: null, timeZone: 'America/New_York' })
  const accounts = (await leadline.accounts.require(a.accountId))
  t.match(accounts.settings, { callerId: X, messagingService: MG })
  t.equal(await leadline.numbers.ownerOf(X), a.accountId)
  t.equal(await leadline.numbers.ownerOf(Y), b.accountId)
  t.equal(await leadline.numbers.ownerOf(MG), a.accountId)

  const head = await leadline.store.headPosition()
  t.equal(await refusal(leadline.accounts.create('C Pools', { callerId: X }, operatorContext)), 'number_in_use', 'a new account with a taken number is not created')
  t.equal(await leadline.store.headPosition(), head, 'nothing appended at all')
  // Setting its own number again is no claim and no change.
  await leadline.accounts.changeSettings(a.accountId, { callerId: X }, operatorContext)
  t.equal((await leadline.store.readStream(numberClaimStream(X))).length, 1)
})

t.test('two accounts claiming one number at once, on one node and on two: exactly one holds it', async (t) => {
  const dir = t.testdir()
  const one = await open(t, dir)
  const two = await open(t, dir, 'views-2.db')
  for (const [round, nodes] of [['one node', [one, one]], ['two nodes', [one, two]]] as const) {
    const number = round === 'one node' ? '+14155550101' : '+14155550102'
    const ids: string[] = []
    for (const name of ['First', 'Second', 'Third', 'Fourth']) ids.push((await one.accounts.create(`${name} ${round}`, {}, operatorContext)).account.accountId)
    const results = await Promise.allSettled(ids.map((id, i) => (nodes[i % 2] as Leadline).accounts.changeSettings(id, { callerId: number }, operatorContext)))
    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [ids[i] as string] : []))
    t.equal(won.length, 1, `${round}: one claim wins`)
    t.same(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.code), ['number_in_use', 'number_in_use', 'number_in_use'], `${round}: the others are refused`)
    const claims = (await one.store.readStream(numberClaimStream(number))).filter((e) => e.type === 'NumberClaimed')
    t.equal(claims.length, 1, `${round}: one claim on the log`)
    t.equal(await two.numbers.ownerOf(number), won[0])
    for (const id of ids) t.equal((await one.accounts.require(id)).settings.callerId, id === won[0] ? number : null, `${round}: only the winner's setting changed`)
  }
})

t.test("a new caller ID releases the old one (and so does clearing it); the released number is anyone's", async (t) => {
  const leadline = await open(t, t.testdir())
  const { account: a } = await leadline.accounts.create('A Roofing', { callerId: X }, operatorContext)
  const { account: b } = await leadline.accounts.create('B Plumbing', {}, operatorContext)
  await leadline.accounts.changeSettings(a.accountId, { callerId: Y }, operatorContext)
  t.equal(await leadline.numbers.ownerOf(X), null, 'the old number is released')
  t.equal(await leadline.numbers.ownerOf(Y), a.accountId)
  t.match((await leadline.store.readStream(numberClaimStream(X))).at(-1), { type: 'NumberReleased', data: { accountId: a.accountId, reason: 'replaced' } })
  await leadline.accounts.changeSettings(b.accountId, { callerId: X }, operatorContext)
  t.equal(await leadline.numbers.ownerOf(X), b.accountId, 'B may take it now')
  await leadline.accounts.changeSettings(a.accountId, { callerId: null }, operatorContext)
  t.equal(await leadline.numbers.ownerOf(Y), null)
  t.match((await leadline.store.readStream(numberClaimStream(Y))).at(-1), { type: 'NumberReleased', data: { reason: 'cleared' } })
})

t.test('an upgraded log whose accounts shared a number: the older keeps it, the younger loses the setting, once', async (t) => {
  const dir = t.testdir()
  const old = await open(t, dir)
  // Written as the version before claims did: settings straight onto the account streams.
  const legacy = async (accountId: string, settings: Record<string, unknown>) => {
    await old.commands.handle(accountStream(accountId), accountDecider, { type: 'CreateAccount', accountId, name: accountId, settings, webhookToken: { id: `wht_${accountId}`, hash: `h_${accountId}`, hint: 'x' } }, operatorContext)
  }
  await legacy('acc_older', { callerId: X, messagingService: MG })
  await legacy('acc_younger', { callerId: X, messagingService: MG })
  await legacy('acc_alone', { callerId: Y })
  await old.close()

  const upgraded = await open(t, dir, 'views-upgraded.db')
  t.equal(await upgraded.numbers.ownerOf(X), 'acc_older', 'the older account keeps the number (it received its texts before)')
  t.equal(await upgraded.numbers.ownerOf(MG), 'acc_older')
  t.equal(await upgraded.numbers.ownerOf(Y), 'acc_alone', "an unshared number is claimed for its account")
  t.match((await upgraded.accounts.require('acc_younger')).settings, { callerId: null, messagingService: null })
  t.match((await upgraded.accounts.require('acc_older')).settings, { callerId: X, messagingService: MG })
  const changed = (await upgraded.store.readStream(accountStream('acc_younger'))).at(-1)
  t.match(changed, { type: 'AccountSettingsChanged', data: { changes: { callerId: null, messagingService: null } }, metadata: { actor: { kind: 'process', id: 'number-claims' } } })
  const head = await upgraded.store.headPosition()
  await upgraded.close()

  const again = await open(t, dir, 'views-again.db')
  await again.start()
  t.equal(await again.numbers.ownerOf(X), 'acc_older')
  t.equal(await again.store.headPosition(), head, 'a second start changes nothing')
  t.equal(await refusal(again.accounts.changeSettings('acc_younger', { callerId: X }, operatorContext)), 'number_in_use', 'and the younger cannot take it back')
})
