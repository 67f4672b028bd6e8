/**
 * A follow-up text step across restarts (close and reopen Leadline on the same files, the official
 * twilio SDK against the fake Twilio): a text claimed before the process died is never sent (its
 * outcome becomes unknown); one decided but not claimed is sent once by the next start, and not again.
 */
import t from 'tap'
import type { AccountSettings } from '../../../src/domain/account/account-settings.ts'
import { leadDecider } from '../../../src/domain/lead/lead.decider.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import type { Leadline } from '../../../src/leadline.ts'
import type { FakeTwilio } from '../../doubles/fake-twilio.ts'
import { DIALING, dialingApp, fakeTwilio, leadEventTypes, leadEvents, manualClock, postLead, reopen, sleep, waitForEvent } from '../../helpers/dialing-app.ts'

const PHONE = '3125550142'
const JANE = '+13125550142'
const MIN = 60_000
const process_ = { actor: { kind: 'process', id: 'test' } } as const

const messages = (fake: FakeTwilio) => fake.messageRequests().filter((r) => r.outcome === 'created')

/** Jane's speed-to-lead call rang out unanswered, recorded with no process running: a text step is pending. Returns her stream. */
async function pendingTextStep(leadline: Leadline, accountId: string, settings: AccountSettings): Promise<string> {
  const stream = leadStream(accountId, PHONE)
  const decision = (await leadEvents(leadline, accountId, PHONE)).find((e) => e.type === 'CallDecided')?.data as { decisionId: string }
  await leadline.commands.handle(stream, leadDecider, { type: 'StartCallAttempt', decisionId: decision.decisionId, node: 'n0' }, process_)
  await leadline.commands.handle(stream, leadDecider, { type: 'RecordCallPlaced', decisionId: decision.decisionId, callId: 'CA0', carrier: 'twilio' }, process_)
  await leadline.commands.handle(stream, leadDecider, { type: 'RecordCallStatus', settings, update: { callId: 'CA0', status: 'no-answer', timestamp: '', carrier: 'twilio' } }, process_)
  return stream
}

t.test("a text step's claim survives a restart: decided and claimed before a crash, it is never sent; decided only, it is sent once", async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-10T14:00:00Z')
  const first = await dialingApp(t, { fake, clock, start: false, store: 'sqlite' })
  const { account, token } = await first.createAccount('Acme', { ...DIALING, callsPerSecond: 100, followUp: '10m text "Hi {first_name}", 1h text "Still there?"' })
  await postLead(first.app, token, { phone: PHONE, name: 'Jane Doe' })
  const stream = await pendingTextStep(first.leadline, account.accountId, account.settings)
  clock.advance(10 * MIN)
  // The timer fires (as the process would), the texter claims the text, and the process dies before asking Twilio.
  const claimed = await first.leadline.commands.handle(stream, leadDecider, { type: 'ClaimFollowUp', settings: account.settings, attempt: 2, decisionId: 'dec_text1', business: 'Acme' }, process_)
  t.same(claimed.newEvents.map((e) => e.type), ['TextDecided', 'FollowUpScheduled'])
  await first.leadline.commands.handle(stream, leadDecider, { type: 'StartTextAttempt', textId: 'dec_text1', node: 'dead-node:1' }, process_)
  await first.app.close()
  await first.leadline.close()

  clock.advance(100)
  const second = await reopen(t, first, { fake, clock, attemptTimeoutMs: 500 })
  await sleep(300)
  t.equal(messages(fake).length, 0, 'a claimed text is not sent by the next start')
  clock.advance(500)
  t.match((await waitForEvent(second.leadline, account.accountId, PHONE, 'TextOutcomeUnknown')).data, { textId: 'dec_text1' })
  t.equal(messages(fake).length, 0, 'its outcome unknown, and never resent')

  // The second step falls due; its text is decided, and the process stops before the texter claims it.
  await second.leadline.close()
  await second.app.close()
  clock.advance(60 * MIN)
  const third = await reopen(t, first, { fake, clock, start: false })
  await third.leadline.commands.handle(stream, leadDecider, { type: 'ClaimFollowUp', settings: account.settings, attempt: 2, decisionId: 'dec_text2', business: 'Acme' }, process_)
  await third.leadline.close()
  await third.app.close()
  const fourth = await reopen(t, first, { fake, clock })
  await waitForEvent(fourth.leadline, account.accountId, PHONE, 'TextSent')
  await sleep(300)
  t.equal(messages(fake).length, 1, 'the unclaimed text is sent once after the restart')
  t.match(messages(fake)[0]?.form, { To: JANE, Body: 'Still there?\nReply STOP to opt out.' })
  await fourth.leadline.close()
  await fourth.app.close()
  const fifth = await reopen(t, first, { fake, clock })
  await sleep(400)
  t.equal(messages(fake).length, 1, 'and not again by a later start')
  t.same((await leadEventTypes(fifth.leadline, account.accountId, PHONE)).filter((type) => type.startsWith('Text')), [
    'TextDecided', 'TextAttemptStarted', 'TextOutcomeUnknown', 'TextDecided', 'TextAttemptStarted', 'TextSent',
  ])
})
