/**
 * Process managers across restarts (close and reopen Leadline on the same files, or kill a real
 * server with SIGKILL): no second decision, due follow-ups fire once, a decision no dialer claimed is
 * dialed, and an attempt left without an outcome becomes "outcome unknown" — never a redial.
 */
import path from 'node:path'
import t from 'tap'
import { leadDecider } from '../../../src/domain/lead/lead.decider.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import type { AccountState } from '../../../src/domain/account/account.decider.ts'
import { receiveLead } from '../../../src/commands/receive-lead.command.ts'
import { openLeadline, type Leadline } from '../../../src/leadline.ts'
import { startServer } from '../../helpers/cli.ts'
import { operatorContext } from '../../helpers/build-app.ts'
import {
  DIALING, PUBLIC_URL, dialingApp, fakeTwilio, leadEventTypes, leadEvents, manualClock, placedCalls, postLead, reopen, sleep, twilioEnv, waitForEvent,
} from '../../helpers/dialing-app.ts'

const PHONE = '3125550142'
const FAST = { ...DIALING, callsPerSecond: 100 }
const process_ = { actor: { kind: 'process', id: 'test' } } as const

/** A lead received with no dialer running: speed to lead decides with the lead; the decision's id. */
async function receiveUndialed(leadline: Leadline, account: AccountState): Promise<string> {
  await receiveLead(leadline, account, { phone: PHONE }, operatorContext)
  const decided = (await leadEvents(leadline, account.accountId, PHONE)).find((e) => e.type === 'CallDecided')
  return (decided?.data as { decisionId: string }).decisionId
}

t.test('a due follow-up fires once after a restart, and a restart decides nothing again', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-10T15:00:00Z')
  const first = await dialingApp(t, { fake, clock, store: 'sqlite' })
  const { account, token } = await first.createAccount('Acme', { ...FAST, followUp: '10m' })
  await postLead(first.app, token, { phone: PHONE })
  await fake.waitForCalls(1)
  await waitForEvent(first.leadline, account.accountId, PHONE, 'CallPlaced')
  await first.leadline.callReports.recordCallStatus({ callId: placedCalls(fake)[0]?.sid as string, status: 'no-answer', timestamp: clock.now().toISOString(), carrier: 'twilio' })
  await waitForEvent(first.leadline, account.accountId, PHONE, 'FollowUpScheduled')
  await first.app.close()
  await first.leadline.close()

  clock.advance(15 * 60_000) // the timer fell due while Leadline was down
  const second = await reopen(t, first, { fake, clock })
  await fake.waitForCalls(2)
  await waitForEvent(second.leadline, account.accountId, PHONE, 'CallPlaced', 2)
  await sleep(300)
  await second.app.close()
  await second.leadline.close()

  const third = await reopen(t, first, { fake, clock })
  await sleep(400)
  t.equal(fake.callRequests().length, 2, 'two calls in all: the first and the follow-up, once')
  t.same(await leadEventTypes(third.leadline, account.accountId, PHONE), [
    'LeadReceived', 'CallDecided', 'CallAttemptStarted', 'CallPlaced', 'CallNotAnswered', 'FollowUpScheduled',
    'CallDecided', 'CallAttemptStarted', 'CallPlaced',
  ])
})

t.test('a decision no dialer claimed before the process stopped is dialed after the restart, once', async (t) => {
  const fake = await fakeTwilio(t)
  const first = await dialingApp(t, { fake, start: false, store: 'sqlite' })
  const { account } = await first.createAccount('Acme', FAST)
  // Speed to lead decided with the lead, and the process stops before any dialer claims the call.
  const decisionId = await receiveUndialed(first.leadline, account)
  await first.leadline.close()
  t.equal(fake.callRequests().length, 0)

  const second = await reopen(t, first, { fake })
  const [request] = await fake.waitForCalls(1)
  t.equal(request?.form.Url, `${PUBLIC_URL}/api/carrier/twilio/answer?decision=${decisionId}`, 'the decision left unclaimed is the one dialed')
  await waitForEvent(second.leadline, account.accountId, PHONE, 'CallPlaced')
  await sleep(300)
  t.equal(fake.callRequests().length, 1)
})

t.test('an attempt left started is marked unknown after attemptTimeoutMs, and never redialed', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-10T15:00:00Z')
  const first = await dialingApp(t, { fake, clock, start: false, store: 'sqlite' })
  const { account } = await first.createAccount('Acme', FAST)
  const stream = leadStream(account.accountId, PHONE)
  // The crash: decided and claimed, then the process died before (or while) asking the carrier.
  const decisionId = await receiveUndialed(first.leadline, account)
  await first.leadline.commands.handle(stream, leadDecider, { type: 'StartCallAttempt', decisionId, node: 'dead-node:1' }, process_)
  await first.leadline.close()

  clock.advance(100)
  const second = await reopen(t, first, { fake, clock, attemptTimeoutMs: 500 })
  await sleep(300)
  t.same((await leadEventTypes(second.leadline, account.accountId, PHONE)).slice(-2), ['CallDecided', 'CallAttemptStarted'], 'not yet: it might still be in flight on its node')
  clock.advance(500)
  const unknown = await waitForEvent(second.leadline, account.accountId, PHONE, 'CallOutcomeUnknown', 1)
  t.match(unknown.data, { decisionId, reason: /process stopped/ })
  await sleep(300)
  t.equal(fake.callRequests().length, 0, 'no call request, ever')
  t.same((await leadEventTypes(second.leadline, account.accountId, PHONE)).slice(-1), ['CallOutcomeUnknown'], 'no follow-up either')
})

t.test('SIGKILL between the carrier request and its record: outcome unknown after restart, no second ring', async (t) => {
  const fake = await fakeTwilio(t)
  const dir = t.testdir()
  const store = `sqlite:${path.join(dir, 'leadline.db')}`
  const viewsPath = path.join(dir, 'leadline.views.db')
  const setup = await openLeadline({ store, viewsPath, env: twilioEnv(fake) })
  const { account, webhookToken } = await setup.accounts.create('Acme', DIALING, operatorContext)
  await setup.close()

  // Twilio takes 5 s to answer the call request: the server is killed while it waits.
  fake.failNext({ kind: 'delay', ms: 5000 })
  const server = await startServer({ ...twilioEnv(fake), LEADLINE_STORE: store, LEADLINE_VIEWS: viewsPath, LEADLINE_PUBLIC_URL: PUBLIC_URL, LOG_LEVEL: 'warn' })
  t.teardown(() => server.stop('SIGKILL'))
  const response = await fetch(`${server.url}/api/ingest/lead`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': webhookToken.secret },
    body: JSON.stringify({ phone: PHONE, name: 'Jane Doe' }),
  })
  t.equal(response.status, 201)
  await fake.waitForCalls(1)
  await server.stop('SIGKILL')

  const restarted = await reopen(t, { store, viewsPath }, { fake, attemptTimeoutMs: 300 })
  const unknown = await waitForEvent(restarted.leadline, account.accountId, PHONE, 'CallOutcomeUnknown', 1)
  t.match(unknown.data, { reason: /process stopped/ })
  await sleep(500)
  t.equal(fake.callRequests().length, 1, 'the carrier was asked once: the person is not rung twice')
  t.same(await leadEventTypes(restarted.leadline, account.accountId, PHONE), ['LeadReceived', 'CallDecided', 'CallAttemptStarted', 'CallOutcomeUnknown'])
})

t.test('a graceful stop while a call is going out waits for its outcome and records it', async (t) => {
  const fake = await fakeTwilio(t)
  const first = await dialingApp(t, { fake, store: 'sqlite' })
  const { account, token } = await first.createAccount('Acme', FAST)
  fake.failNext({ kind: 'delay', ms: 1000 }) // Twilio takes a second to answer the call request
  await postLead(first.app, token, { phone: PHONE })
  await fake.waitForCalls(1)
  await first.app.close()
  await first.leadline.close()

  const second = await reopen(t, first, { fake, start: false })
  t.same(await leadEventTypes(second.leadline, account.accountId, PHONE), ['LeadReceived', 'CallDecided', 'CallAttemptStarted', 'CallPlaced'], 'placed, not left without an outcome')
  t.equal(fake.callRequests().length, 1)
})

t.test('a decision left unclaimed overnight is not dialed outside calling hours after the restart', async (t) => {
  const fake = await fakeTwilio(t)
  // Tuesday 17:59 in New York; the account calls weekdays 09:00-18:00.
  const clock = manualClock('2026-03-10T21:59:00Z')
  const first = await dialingApp(t, { fake, clock, start: false, store: 'sqlite' })
  const { account } = await first.createAccount('Acme', { ...FAST, callingHours: 'mon-fri 09:00-18:00' })
  const decisionId = await receiveUndialed(first.leadline, account)
  await first.leadline.close()

  clock.set('2026-03-11T07:00:00Z') // 03:00 in New York
  const second = await reopen(t, first, { fake, clock })
  const failed = await waitForEvent(second.leadline, account.accountId, PHONE, 'CallFailed')
  t.match(failed.data, { decisionId, failure: 'outside_calling_hours', message: /not dialed/ })
  await sleep(200)
  t.equal(fake.callRequests().length, 0, 'nobody rung at 3 am')
})
