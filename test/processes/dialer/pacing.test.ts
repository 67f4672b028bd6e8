/**
 * Pacing: each account's calls start in arrival order at its calls-per-second limit; one account's
 * burst never delays another account's calls. Measured where it matters: arrival at the fake Twilio.
 */
import t from 'tap'
import { DIALING, dialingApp, fakeTwilio, leadEvents, manualClock, placedCalls, postLead, waitFor } from '../../helpers/dialing-app.ts'

/** Request arrival times are taken after an append and an HTTP round trip each: allow a few ms of jitter. */
const JITTER_MS = 5

t.test('100 leads for one account at 20 calls/s: in arrival order, 50 ms apart; another account is not held up', async (t) => {
  const fake = await fakeTwilio(t)
  // The dialer starts once all 100 calls are decided: posting them takes a busy machine longer than the
  // burst's 5 s, and a running dialer would keep up with them instead of having a burst to work through.
  const { app, leadline, createAccount } = await dialingApp(t, { fake, start: false })
  const busy = await createAccount('Busy', { ...DIALING, callsPerSecond: 20 })
  const quiet = await createAccount('Quiet', { ...DIALING, callerId: '+13125550101' })
  const phones = Array.from({ length: 100 }, (_, i) => `+1312555${String(1000 + i)}`)
  for (const phone of phones) t.equal((await postLead(app, busy.token, { phone })).status, 201)
  await leadline.start()

  // Half a second into the burst, a lead for the other account.
  await waitFor('the burst to be under way', () => fake.callRequests().length >= 10)
  await postLead(app, quiet.token, { phone: '+14155550199' })
  await waitFor('the quiet account’s call', () => fake.callRequests().find((r) => r.form.To === '+14155550199'))
  // Counted, not timed (a loaded machine slows everything): behind the burst it would come after all 100.
  const busyBefore = fake.callRequests().filter((r) => r.form.To !== '+14155550199').length
  t.ok(busyBefore < 100, `the other account's call was requested while the burst was still going (${busyBefore}/100 requested)`)

  await fake.waitForCalls(101)
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
  // Held up, the lead would wait the hour the clock went back.
  await fake.waitForCalls(2, 60_000)
  t.pass('called')
})

t.test('a frozen business clock does not stall the lane', async (t) => {
  const fake = await fakeTwilio(t)
  const clock = manualClock('2026-03-10T15:00:00Z')
  const { app, createAccount } = await dialingApp(t, { fake, clock })
  const { token } = await createAccount('Acme', { ...DIALING, callsPerSecond: 10 })
  const phones = Array.from({ length: 6 }, (_, i) => `+1312555010${i}`)
  await Promise.all(phones.map((phone) => postLead(app, token, { phone })))
  // Spacing reckoned on the business clock would never end while it stands still: the lane's next call
  // would wait for ever. The pacer spaces calls on a monotonic clock of its own (the spacing itself:
  // pacer.test.ts, in process, where arrival times at the fake add no trip of their own).
  const calls = await fake.waitForCalls(6, 60_000)
  t.same(calls.map((call) => call.form.To).sort(), phones, 'all six called')
})
