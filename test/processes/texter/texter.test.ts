/**
 * The texter across restarts (close and reopen Leadline on the same files): a text decided but not
 * claimed is sent after the restart, once; a text claimed without a recorded outcome becomes
 * "outcome unknown" and is never resent; the process runner feeds it decisions while it runs.
 */
import t from 'tap'
import { leadDecider } from '../../../src/domain/lead/lead.decider.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import type { AccountSettings } from '../../../src/domain/account/account-settings.ts'
import { receiveLead } from '../../../src/commands/receive-lead.command.ts'
import type { Leadline } from '../../../src/leadline.ts'
import { LOG_RESTORES_STREAM, logRestoreDecider } from '../../../src/domain/restore/log-restore.ts'
import { operatorContext } from '../../helpers/build-app.ts'
import { ALWAYS, CALLER_ID, dialingApp, fakeTwilio, leadEventTypes, manualClock, reopen, sleep, waitForEvent } from '../../helpers/dialing-app.ts'

const PHONE = '3125550142'
const SETTINGS = { callerId: CALLER_ID, callingHours: ALWAYS }
const apiKey = { actor: { kind: 'api_key', id: 'key_1' } } as const

/** A lead and a text decided on it, as send_sms decides it, with no texter to send it. */
async function decideText(leadline: Leadline, accountId: string, settings: AccountSettings, key: string): Promise<string> {
  const account = await leadline.accounts.get(accountId)
  await receiveLead(leadline, account!, { phone: PHONE, name: 'Jane Doe' }, operatorContext)
  const stream = leadStream(accountId, PHONE)
  const decided = await leadline.commands.handle(stream, leadDecider, { type: 'DecideText', settings, textId: `txt_${key}`, reason: 'send_sms', body: 'Your quote is ready.', idempotencyKey: key }, apiKey)
  t.equal(decided.newEvents.length, 1)
  return `txt_${key}`
}

t.test('a text decided but never claimed is sent after the restart, once', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-10T15:00:00Z')
  const first = await dialingApp(t, { fake, clock, start: false, store: 'sqlite' })
  const { account } = await first.createAccount('Acme', SETTINGS)
  const textId = await decideText(first.leadline, account.accountId, account.settings, 'k-1')
  await first.leadline.close()
  t.equal(fake.messageRequests().length, 0)

  clock.advance(60_000)
  const second = await reopen(t, first, { fake, clock })
  const sent = await waitForEvent(second.leadline, account.accountId, PHONE, 'TextSent')
  t.match(sent.data, { textId, carrier: 'twilio' })
  t.match(fake.messageRequests()[0]?.form, { To: `+1${PHONE}`, From: CALLER_ID, Body: 'Your quote is ready.\nReply STOP to opt out.' })
  await second.app.close()
  await second.leadline.close()

  const third = await reopen(t, first, { fake, clock })
  await sleep(300)
  t.equal(fake.messageRequests().length, 1, 'one text in all')
  t.same((await leadEventTypes(third.leadline, account.accountId, PHONE)).slice(-3), ['TextDecided', 'TextAttemptStarted', 'TextSent'])
})

t.test('a text claimed before the process died is marked outcome unknown, and never resent', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-10T15:00:00Z')
  const first = await dialingApp(t, { fake, clock, start: false, store: 'sqlite' })
  const { account } = await first.createAccount('Acme', SETTINGS)
  const textId = await decideText(first.leadline, account.accountId, account.settings, 'k-2')
  await first.leadline.commands.handle(leadStream(account.accountId, PHONE), leadDecider, { type: 'StartTextAttempt', textId, node: 'dead-node:1' }, { actor: { kind: 'process', id: 'texter' } })
  await first.leadline.close()

  clock.advance(100)
  const second = await reopen(t, first, { fake, clock, attemptTimeoutMs: 500 })
  await sleep(300)
  t.same((await leadEventTypes(second.leadline, account.accountId, PHONE)).slice(-1), ['TextAttemptStarted'], 'not yet: it might still be in flight on its node')
  clock.advance(500)
  const unknown = await waitForEvent(second.leadline, account.accountId, PHONE, 'TextOutcomeUnknown', 1)
  t.match(unknown.data, { textId, reason: /process stopped/ })
  await sleep(300)
  t.equal(fake.messageRequests().length, 0, 'no text request, ever')
})

t.test('while running, the process runner feeds it decisions; a lead opted out before the claim is not texted', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-10T15:00:00Z')
  const running = await dialingApp(t, { fake, clock })
  const { account } = await running.createAccount('Acme', SETTINGS)
  await decideText(running.leadline, account.accountId, account.settings, 'k-3')
  await waitForEvent(running.leadline, account.accountId, PHONE, 'TextSent')
  t.equal(fake.messageRequests().length, 1)

  // Decided, then marked do-not-call before any texter claims it (a stopped node): refused at the claim.
  const stopped = await dialingApp(t, { fake, clock, start: false, store: 'sqlite' })
  const other = await stopped.createAccount('Other', SETTINGS)
  await decideText(stopped.leadline, other.account.accountId, other.account.settings, 'k-4')
  await stopped.leadline.commands.handle(leadStream(other.account.accountId, PHONE), leadDecider, { type: 'MarkDoNotCall', source: 'sms_keyword' }, operatorContext)
  await stopped.leadline.close()
  const restarted = await reopen(t, stopped, { fake, clock })
  const failed = await waitForEvent(restarted.leadline, other.account.accountId, PHONE, 'TextFailed')
  t.match(failed.data, { failure: 'do_not_call', carrierCode: null })
  t.equal(fake.messageRequests().length, 1, 'the opted-out lead was not texted')
})

t.test('after a restore, a text decided before the backup is expired (restored_from_backup), never sent; a later one is sent', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-10T15:00:00Z')
  const first = await dialingApp(t, { fake, clock, start: false, store: 'sqlite' })
  const { account } = await first.createAccount('Acme', SETTINGS)
  const before = await decideText(first.leadline, account.accountId, account.settings, 'k-before')
  const stream = leadStream(account.accountId, PHONE)
  const claimed = await first.leadline.commands.handle(stream, leadDecider, { type: 'DecideText', settings: account.settings, textId: 'txt_claimed', reason: 'send_sms', body: 'Claimed.', idempotencyKey: 'k-claimed' }, apiKey)
  t.equal(claimed.newEvents.length, 1)
  await first.leadline.commands.handle(stream, leadDecider, { type: 'StartTextAttempt', textId: 'txt_claimed', node: 'old-node' }, apiKey)
  // What `leadline restore` records: the backup's head, then the log goes on from there.
  const head = await first.leadline.store.headPosition()
  await first.leadline.commands.handle(LOG_RESTORES_STREAM, logRestoreDecider, { type: 'RecordRestore', backupHead: head, backupEvents: head + 1 }, operatorContext)
  await first.leadline.commands.handle(stream, leadDecider, { type: 'DecideText', settings: account.settings, textId: 'txt_after', reason: 'send_sms', body: 'After.', idempotencyKey: 'k-after' }, apiKey)
  await first.leadline.close()

  const second = await reopen(t, first, { fake, clock })
  await waitForEvent(second.leadline, account.accountId, PHONE, 'TextSent')
  await sleep(200)
  t.equal(fake.messageRequests().length, 1, 'only the text decided after the restore went out')
  const texts = (await second.leadline.commands.load(stream, leadDecider)).state.texts.texts
  t.match(texts[before], { stage: 'expired', failureMessage: 'restored_from_backup' })
  t.match(texts['txt_claimed'], { stage: 'expired', failureMessage: 'restored_from_backup' }, 'claimed with no outcome: expired too, never resent')
  t.match(texts['txt_after'], { stage: 'sent' })
  await second.leadline.close()

  const third = await reopen(t, first, { fake, clock })
  await sleep(300)
  const types = await leadEventTypes(third.leadline, account.accountId, PHONE)
  t.equal(types.filter((type) => type === 'TextExpired').length, 2, 'a second start expires nothing again')
  t.equal(fake.messageRequests().length, 1)
})
