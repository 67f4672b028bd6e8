/**
 * Pacing: each account's calls start in arrival order at its calls-per-second limit; one account's
 * burst never delays another account's calls. Measured where it matters: arrival at the fake Twilio.
 */
import t from 'tap'
import { DIALING, dialingApp, fakeTwilio, leadEvents, manualClock, placedCalls, postLead, waitFor } from '../../helpers/dialing-app.ts'

/** Request arrival times are taken after an append and an HTTP round trip each: allow a few ms of jitter. */
const JITTER_MS = 5
/** How much later than the last call's the first call's request may reach the fake (its trip, not the pacing). */
const FIRST_REQUEST_SLACK_MS = 50

t.test('100 leads for one account at 20 calls/s: in arrival order, 50 ms apart; another account is not held up', async (t) => {
  const fake = await fakeTwilio(t)
  const { app, leadline, createAccount } = await dialingApp(t, { fake })
  const busy = await createAccount('Busy', { ...DIALING, callsPerSecond: 20 })
  const quiet = await createAccount('Quiet', { ...DIALING, callerId: '+13125550101' })
  const phones = Array.from({ length: 100 }, (_, i) => `+1312555${String(1000 + i)}`)
  for (const phone of phones) t.equal((await postLead(app, busy.token, { phone })).status, 201)

  // Half a second into the burst, a lead for the other account.
  await waitFor('the burst to be under way', () => fake.callRequests().length >= 10)
  const sentAt = Date.now()
  await postLead(app, quiet.token, { phone: '+14155550199' })
  const quietCall = await waitFor('the quiet account’s call', () => fake.callRequests().find((r) => r.form.To === '+14155550199'))
  const busyBefore = fake.callRequests().filter((r) => r.form.To !== '+14155550199').length
  t.ok(quietCall.receivedAt - sentAt < 500, `the other account's call was requested ${quietCall.receivedAt - sentAt} ms after its lead (limit 500; behind the burst it would wait seconds)`)
  t.ok(busyBefore < 100, `while the burst was still going (${busyBefore}/100 requested)`)

  await fake.waitForCalls(101, 10_000)
  const burst = fake.callRequests().filter((r) => r.form.To !== '+14155550199')
  t.same(burst.map((r) => r.form.To), phones, 'requested in arrival order')
  // What Leadline controls: its requests go out (claim, then the request) at least 50 ms apart.
  const claims = (await Promise.all(phones.map((phone) => leadEvents(leadline, busy.account.accountId, phone))))
    .map((events) => Date.parse((events.find((e) => e.type === 'CallAttemptStarted')?.data as { startedAt: string }).startedAt))
  const claimGaps = claims.slice(1).map((at, i) => at - (claims[i] as number))
  t.ok(Math.min(...claimGaps) >= 50 - 1, `claims at least 50 ms apart (min ${Math.min(...claimGaps)} ms, ISO times are whole ms)`)
  // What the carrier sees: arrival times carry this process's event-loop jitter (the fake runs here too),
  // so one late request can arrive just before the next; never more than 20 in any second, though.
  const arrivals = burst.map((r) => r.receivedAt)
  const gaps = arrivals.slice(1).map((at, i) => at - (arrivals[i] as number))
  const windows = arrivals.slice(20).map((at, i) => at - (arrivals[i] as number))
  t.ok(Math.min(...windows) >= 1000 - JITTER_MS, `any 21 consecutive requests span ≥ 1 s at the fake Twilio (min ${Math.min(...windows)} ms)`)
  const sorted = [...gaps].sort((x, y) => x - y)
  t.ok((sorted[Math.floor(sorted.length / 2)] as number) >= 50, `median arrival gap ${sorted[Math.floor(sorted.length / 2)]} ms (min ${sorted[0]} ms)`)
  const span = (arrivals[99] as number) - (arrivals[0] as number)
  t.ok(span >= 99 * 50 - JITTER_MS, `100 calls took ${span} ms (≥ 4950; each slot also holds its claim, so a loaded machine takes longer)`)
  t.equal(placedCalls(fake).length, 101)
})

t.test('a clock moved back an hour does not hold up the next lead', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-10T15:00:00Z')
  const { app, createAccount } = await dialingApp(t, { fake, clock })
  const { token } = await createAccount('Acme', { ...DIALING, callsPerSecond: 100 })
  await postLead(app, token, { phone: '3125550101' })
  await fake.waitForCalls(1)
  clock.advance(-3600_000)
  await postLead(app, token, { phone: '3125550102' })
  await fake.waitForCalls(2, 1000)
  t.pass('called at once')
})

t.test('a frozen business clock does not stretch the spacing', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-10T15:00:00Z')
  const { app, createAccount } = await dialingApp(t, { fake, clock })
  const { token } = await createAccount('Acme', { ...DIALING, callsPerSecond: 10 })
  // All six at once, so that only the pacer spaces the calls: posted one after another, a loaded
  // machine's slow answers spread them out by themselves (a span of 1.3 s was seen in CI).
  await Promise.all(Array.from({ length: 6 }, (_, i) => postLead(app, token, { phone: `312555010${i}` })))
  const calls = await fake.waitForCalls(6, 4000)
  const span = (calls[5]?.receivedAt ?? 0) - (calls[0]?.receivedAt ?? 0)
  // Spacing reckoned on a frozen clock would grow: 100, 200, 300, 400, 500 ms (1.5 s in all); unpaced,
  // the six would arrive together. The span is measured where the requests arrive, and on a loaded
  // machine the first request's trip alone can take tens of milliseconds longer than the last one's.
  t.ok(span >= 500 - FIRST_REQUEST_SLACK_MS && span < 1200, `6 calls at 10/s span ${span} ms (about 500)`)
})
