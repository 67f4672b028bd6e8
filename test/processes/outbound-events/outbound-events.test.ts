/**
 * Signed outbound events, end to end: a lead posted to the real webhook, its events delivered from
 * the log by the real process to real HTTP receivers on 127.0.0.1 that verify every request with
 * `standardwebhooks`' Webhook.verify. Retries keep the webhook-id; a lead's events arrive in log
 * order; a dead receiver slows neither intake nor dialing; a restart mid-delivery sends it again.
 */
import t, { type Test } from 'tap'
import { DIALING, dialingApp, freePortUrl, manualClock, postLead, reopen, sleep, waitFor } from '../../helpers/dialing-app.ts'
import { operatorContext } from '../../helpers/build-app.ts'
import { startReceiver, type Receiver } from './receiver.ts'
import type { Leadline } from '../../../src/leadline.ts'

const FAST = { firstDelayMs: 40, maxDelayMs: 200, pollMs: 20, timeoutMs: 1000 }
/** The receivers here listen on 127.0.0.1: LEADLINE_EVENTS_ALLOW_PRIVATE=1's setting. */
const LOOPBACK = { eventReceivers: { allowPrivate: true } }

async function receiver(t: Test, answer?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(answer)
  t.teardown(() => r.close())
  return r
}

async function subscribe(leadline: Leadline, accountId: string, r: Receiver, types: string[] | null = null) {
  const { subscription, secret } = await leadline.eventSubscriptions.subscribe(accountId, r.url, types, operatorContext)
  r.secret = secret
  return subscription
}

function deliveriesOf(leadline: Leadline, accountId: string) {
  return leadline.eventSubscriptions.deliveries(accountId, { limit: 500 })
}

/** The account's deliveries in `status`, once there is one (undefined before: waitFor polls on). */
function inStatus(leadline: Leadline, accountId: string, status: string) {
  const found = deliveriesOf(leadline, accountId).filter((d) => d.status === status)
  return found.length > 0 ? found : undefined
}

t.test('a receiver answering 500, 500, 200: the event is delivered on the third attempt, with the same webhook-id, three attempts logged', async (t) => {
  const built = await dialingApp(t, { ...LOOPBACK, deliveryPolicy: FAST })
  const { account, token } = await built.createAccount('Acme', { speedToLead: false })
  const r = await receiver(t, (n) => [500, 500, 200][n - 1] ?? 200)
  const subscription = await subscribe(built.leadline, account.accountId, r, ['lead.received'])
  t.equal((await postLead(built.app, token, { phone: '+13125550142', name: 'Jane Doe' })).status, 201)

  const [delivery] = await waitFor('delivered', () => inStatus(built.leadline, account.accountId, 'delivered'), 5000)
  t.equal(r.received.length, 3, 'three requests')
  t.same(new Set(r.received.map((x) => x.webhookId)).size, 1, 'one webhook-id for every attempt')
  t.ok(r.received.every((x) => x.verified), 'each one verified by standardwebhooks')
  t.same(r.received.map((x) => x.answered), [500, 500, 200])
  t.equal(delivery?.webhookId, r.received[0]?.webhookId)
  t.equal(delivery?.subscriptionId, subscription.subscriptionId)
  t.equal(delivery?.attempts, 3)
  t.same(delivery?.attemptLog.map((a) => a.status), [500, 500, 200], 'the attempts, with their answers')
  const payload = r.received[2]?.payload
  t.equal(payload?.type, 'lead.received')
  t.match(payload?.data, { account_id: account.accountId, lead_id: /^ld_/, phone: '+13125550142' })
  await sleep(150)
  t.equal(r.received.length, 3, 'nothing more once delivered')
})

t.test('a lead\'s events arrive in log order, each once, while a failing first event holds back only its own lead', async (t) => {
  const built = await dialingApp(t, { ...LOOPBACK, deliveryPolicy: FAST })
  const { account, token } = await built.createAccount('Acme', { ...DIALING, callsPerSecond: 100 })
  let failedOnce = false
  // The first lead's first event fails once: its later events must wait for it; the other lead's need not.
  const r = await receiver(t, (_n, payload) => {
    if (!failedOnce && payload.type === 'lead.received' && payload.data.phone === '+13125550142') {
      failedOnce = true
      return 503
    }
    return 200
  })
  await subscribe(built.leadline, account.accountId, r)
  for (const phone of ['+13125550142', '+13125550143']) t.equal((await postLead(built.app, token, { phone, name: 'Lead' })).status, 201)
  await postLead(built.app, token, { phone: '+13125550142', name: 'Lead', email: 'lead@example.com' })

  await waitFor('every event delivered', () => {
    const all = deliveriesOf(built.leadline, account.accountId)
    return all.length >= 6 && all.every((d) => d.status === 'delivered')
  }, 8000)
  const accepted = r.received.filter((x) => x.answered === 200)
  for (const phone of ['+13125550142', '+13125550143']) {
    const lead = built.leadline.inboundLeads.get(account.accountId, { phoneLast10: phone.slice(-10) })
    const events = (await built.leadline.store.readStream(`lead-${account.accountId}-${phone.slice(-10)}`)).filter((e) => ['LeadReceived', 'LeadUpdated', 'CallDecided', 'CallPlaced', 'CallAnswered'].includes(e.type))
    const got = accepted.filter((x) => x.payload.data.lead_id === lead?.leadId)
    t.same(got.map((x) => x.payload.data.event_id), events.map((e) => e.id), `${phone}: every event once, in log order`)
    t.ok(got.every((x) => x.verified))
  }
  const firstLead = r.received.findIndex((x) => x.answered === 503)
  const otherLeadDelivered = r.received.findIndex((x) => x.answered === 200 && x.payload.data.phone === '+13125550143')
  t.ok(otherLeadDelivered !== -1 && firstLead !== -1, 'the other lead was delivered while the first one waited for its retry')
})

// Not timed against a run without receivers (a loaded machine makes any two runs differ): the hanging
// receiver holds each delivery for ten minutes, so intake or dialing that waited on one would outlast the
// test's time limit; taken apart from them, every lead is taken in and dialed.
t.test('receivers that are down or hang slow neither intake nor dialing', { timeout: 120_000 }, async (t) => {
  const LEADS = 30
  const built = await dialingApp(t, { ...LOOPBACK, deliveryPolicy: { ...FAST, firstDelayMs: 2000, timeoutMs: 10 * 60_000 } })
  const { account, token } = await built.createAccount('Acme', { ...DIALING, callsPerSecond: 100 })
  await built.leadline.eventSubscriptions.subscribe(account.accountId, await freePortUrl(), null, operatorContext)
  const hang = await receiver(t, () => 'hang')
  await built.leadline.eventSubscriptions.subscribe(account.accountId, hang.url, null, operatorContext)
  for (let i = 0; i < LEADS; i++) t.equal((await postLead(built.app, token, { phone: `+1312555${String(1000 + i)}`, name: 'Lead' })).status, 201)
  await waitFor('every lead dialed', () => built.leadline.calls.forStream !== undefined && countPlaced(built.leadline, account.accountId, LEADS), 60_000)
  await waitFor('the hanging receiver to be holding a delivery', () => hang.received.length > 0)
  const deliveries = deliveriesOf(built.leadline, account.accountId)
  t.ok(deliveries.length > 0 && deliveries.every((d) => d.status === 'pending'), 'their deliveries wait, pending')
})

t.test('during a flood of leads, deliveries yield to intake: a trickle at the flood rate, the rest once it has passed, in log order', async (t) => {
  let flood = true
  // New events wait 300 ms at most for room before their deliveries are written (the next test waits longer).
  const built = await dialingApp(t, { ...LOOPBACK, deliveryPolicy: { ...FAST, whileBusyPerSecond: 4, deferUpToMs: 300, flooded: () => flood } })
  const { account, token } = await built.createAccount('Acme', { speedToLead: false })
  const r = await receiver(t)
  await subscribe(built.leadline, account.accountId, r, ['lead.received'])
  const LEADS = 12
  for (let i = 0; i < LEADS; i++) t.equal((await postLead(built.app, token, { phone: `+1312555${String(2000 + i)}`, name: 'Lead' })).status, 201)
  const busySince = performance.now()
  await sleep(1000)
  const duringBusy = r.received.length
  const busyMs = performance.now() - busySince
  // 4 a second, a first burst of at most one: well under the 12 due.
  t.ok(duringBusy >= 1, `a trickle goes out while busy (${duringBusy})`)
  t.ok(duringBusy <= Math.ceil((busyMs * 4) / 1000) + 2 && duringBusy < LEADS, `no more than the busy rate (${duringBusy} in ${busyMs.toFixed(0)} ms)`)
  t.ok(deliveriesOf(built.leadline, account.accountId).some((d) => d.status === 'pending'), 'the rest wait, pending')
  flood = false
  await waitFor('every lead delivered once the loop has room', () => r.received.length === LEADS, 5000)
  t.same(r.received.map((x) => x.payload.data.phone), Array.from({ length: LEADS }, (_, i) => `+1312555${String(2000 + i)}`), 'each once, in log order')
  t.ok(r.received.every((x) => x.verified))
})

t.test('during a flood of leads, new events wait before their deliveries are written, none held in memory, and dialing does not wait with them', async (t) => {
  let flood = true
  const built = await dialingApp(t, { ...LOOPBACK, store: 'sqlite', deliveryPolicy: { ...FAST, deferUpToMs: 60_000, flooded: () => flood } })
  const { account, token } = await built.createAccount('Acme', DIALING)
  const r = await receiver(t)
  await subscribe(built.leadline, account.accountId, r, ['lead.received'])
  const first = await built.leadline.store.headPosition()
  for (let i = 0; i < 5; i++) t.equal((await postLead(built.app, token, { phone: `+1312555${String(3000 + i)}`, name: 'Lead' })).status, 201)
  await waitFor('every lead dialed while deliveries wait', () => countPlaced(built.leadline, account.accountId, 5, 3000), 5000)
  await sleep(300)
  t.same(deliveriesOf(built.leadline, account.accountId), [], 'no delivery written while busy')
  t.equal(r.received.length, 0, 'nothing sent')
  const checkpoint = built.leadline.views.prepare("SELECT position FROM process_checkpoints WHERE name = 'outbound-events'").get() as { position: number }
  t.ok(checkpoint.position <= first, `the outbound checkpoint stays before the waiting events (${checkpoint.position} ≤ ${first})`)
  flood = false
  await waitFor('every lead delivered once the loop has room', () => r.received.length === 5, 5000)
  t.same(r.received.map((x) => x.payload.data.phone), Array.from({ length: 5 }, (_, i) => `+1312555${String(3000 + i)}`), 'each once, in log order')
})

t.test('a restart while new events wait for room: they are delivered after it, each once', async (t) => {
  const built = await dialingApp(t, { ...LOOPBACK, store: 'sqlite', deliveryPolicy: { ...FAST, deferUpToMs: 60_000, flooded: () => true } })
  const { account, token } = await built.createAccount('Acme', { speedToLead: false })
  const r = await receiver(t)
  await subscribe(built.leadline, account.accountId, r, ['lead.received'])
  for (let i = 0; i < 3; i++) t.equal((await postLead(built.app, token, { phone: `+1312555${String(4000 + i)}`, name: 'Lead' })).status, 201)
  await sleep(200)
  t.same(deliveriesOf(built.leadline, account.accountId), [], 'waiting: nothing written yet')
  await built.app.close()
  await built.leadline.close()

  const again = await reopen(t, { store: built.store, viewsPath: built.viewsPath }, { ...LOOPBACK, deliveryPolicy: FAST })
  await waitFor('delivered after the restart', () => r.received.length === 3, 5000)
  await sleep(150)
  t.same(r.received.map((x) => x.payload.data.phone), Array.from({ length: 3 }, (_, i) => `+1312555${String(4000 + i)}`), 'each once, in log order')
  t.equal(deliveriesOf(again.leadline, account.accountId).length, 3)
})

function countPlaced(leadline: Leadline, accountId: string, n: number, from = 1000): boolean {
  let placed = 0
  for (let i = 0; i < n; i++) {
    const rows = leadline.calls.forStream(`lead-${accountId}-312555${String(from + i)}`)
    if (rows.some((row) => (row as { callId?: string | null }).callId)) placed++
  }
  return placed === n
}

t.test('a restart mid-delivery sends the event again, with the same webhook-id', async (t) => {
  const built = await dialingApp(t, { ...LOOPBACK, store: 'sqlite', deliveryPolicy: FAST })
  const { account, token } = await built.createAccount('Acme', { speedToLead: false })
  const r = await receiver(t, (n) => (n === 1 ? 'hang' : 200))
  await subscribe(built.leadline, account.accountId, r, ['lead.received'])
  await postLead(built.app, token, { phone: '+13125550142', name: 'Jane Doe' })
  await waitFor('the first request to arrive', () => r.received.length === 1)
  await built.app.close()
  await built.leadline.close()

  const again = await reopen(t, { store: built.store, viewsPath: built.viewsPath }, { ...LOOPBACK, deliveryPolicy: FAST })
  await waitFor('delivered after the restart', () => deliveriesOf(again.leadline, account.accountId).find((d) => d.status === 'delivered'), 5000)
  t.equal(r.received.length, 2)
  t.equal(r.received[1]?.webhookId, r.received[0]?.webhookId, 'the same webhook-id')
  t.ok(r.received[1]?.verified)
})

t.test('after the retry window a delivery is failed; a retry by hand sends it again with the same webhook-id', async (t) => {
  // The retry window is reckoned on the service's clock, moved here by hand: a busy machine's slow
  // attempts cannot use the window up, nor can a quick one retry more often than the test says.
  const clock = manualClock('2026-03-10T15:00:00Z')
  const built = await dialingApp(t, { ...LOOPBACK, clock, deliveryPolicy: { ...FAST, giveUpAfterMs: 150 } })
  const { account, token } = await built.createAccount('Acme', { speedToLead: false })
  let up = false
  const r = await receiver(t, () => (up ? 200 : 500))
  await subscribe(built.leadline, account.accountId, r, ['lead.received'])
  await postLead(built.app, token, { phone: '+13125550142', name: 'Jane Doe' })
  // The first attempt recorded (not only received): its retry is reckoned from the clock as it is recorded.
  await waitFor('the first attempt', () => deliveriesOf(built.leadline, account.accountId).some((d) => d.attempts === 1 && d.status === 'pending'))
  // Its retry falls due about 40 ms later; the one after that, about 120 ms after the event: past the window.
  clock.advance(100)
  const [failed] = await waitFor('failed', () => inStatus(built.leadline, account.accountId, 'failed'))
  const tries = r.received.length
  t.equal(tries, 2, `retried before giving up (${tries} attempts)`)
  await sleep(200)
  t.equal(r.received.length, tries, 'a failed delivery is not retried on its own')
  up = true
  t.equal(built.leadline.eventSubscriptions.retry(account.accountId, { deliveryId: failed?.deliveryId as number }), 1)
  await waitFor('delivered', () => deliveriesOf(built.leadline, account.accountId).find((d) => d.status === 'delivered'))
  t.equal(new Set(r.received.map((x) => x.webhookId)).size, 1)
  t.equal(r.received.at(-1)?.answered, 200)
})

t.test('a rotated secret signs every later delivery; an unsubscribed URL hears nothing more', async (t) => {
  const built = await dialingApp(t, { ...LOOPBACK, deliveryPolicy: FAST })
  const { account, token } = await built.createAccount('Acme', { speedToLead: false })
  const r = await receiver(t)
  const subscription = await subscribe(built.leadline, account.accountId, r, ['lead.received'])
  const first = r.secret
  const rotated = await built.leadline.eventSubscriptions.rotateSecret(account.accountId, subscription.subscriptionId, operatorContext)
  t.not(rotated.secret, first)
  r.secret = rotated.secret
  await postLead(built.app, token, { phone: '+13125550142', name: 'Jane Doe' })
  await waitFor('delivered', () => r.received.length === 1)
  t.ok(r.received[0]?.verified, 'verifies with the new secret')
  await built.leadline.eventSubscriptions.unsubscribe(account.accountId, subscription.subscriptionId, operatorContext)
  await postLead(built.app, token, { phone: '+13125550143', name: 'John Doe' })
  await sleep(200)
  t.equal(r.received.length, 1, 'nothing after unsubscribing')
})
