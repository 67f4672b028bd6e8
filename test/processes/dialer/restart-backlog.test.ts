/**
 * A graceful stop with thousands of decided, undialed calls. The decisions are made while the dialer
 * runs at the default pace (1 call a second per account), so it has been handed nearly all of them
 * when the process stops; the pace is then raised, and the next start must dial every one, once, in
 * each account's order. (kill -9 of a server with such a backlog: test/faults/kill-backlog.test.ts.)
 */
import t from 'tap'
import type { AccountState } from '../../../src/domain/account/account.decider.ts'
import { receiveLead } from '../../../src/commands/receive-lead.command.ts'
import { operatorContext } from '../../helpers/build-app.ts'
import { ACCOUNTS, PER_ACCOUNT, TOTAL, backlogDigits, raisePace, ringsPerNumber, settledDecisions } from '../../helpers/call-backlog.ts'
import { DIALING, dialingApp, fakeTwilio, nextCallerId, reopen, sleep } from '../../helpers/dialing-app.ts'

t.test('graceful stop with thousands of undialed decisions: the next start dials every one, once, in order', async (t) => {
  const fake = await fakeTwilio(t)
  const first = await dialingApp(t, { fake, store: 'sqlite' })
  const accounts: AccountState[] = []
  for (let a = 0; a < ACCOUNTS; a++) accounts.push((await first.createAccount(`Acme ${a}`, { ...DIALING, callerId: nextCallerId(first.leadline) })).account)
  // Speed to lead decides with each lead; the running dialer takes them all, at 1 call a second.
  const deciding = Date.now()
  for (let i = 0; i < PER_ACCOUNT; i++) {
    await Promise.all(accounts.map((account, a) => receiveLead(first.leadline, account, { phone: backlogDigits(a, i) }, operatorContext)))
  }
  await sleep(1000)
  await first.app.close()
  await first.leadline.close()
  const before = fake.callRequests().length
  // However long a busy machine took to decide them: at most one call a second per account went out.
  const seconds = Math.ceil((Date.now() - deciding) / 1000)
  t.ok(before <= ACCOUNTS * (seconds + 1), `paced while deciding: ${before} dialed in ${seconds} s`)
  t.ok(before < TOTAL, `a backlog was left at the stop: ${TOTAL - before} undialed`)

  await raisePace(first, accounts.map((a) => a.accountId))
  const second = await reopen(t, first, { fake })
  const outcomes = await settledDecisions(second.leadline, 600_000)
  t.equal(outcomes.size, TOTAL)
  t.equal([...outcomes.values()].filter((d) => !d.events.includes('CallPlaced')).length, 0, 'every decision placed')
  t.equal(fake.callRequests().length, TOTAL, 'every decision dialed')
  const rings = ringsPerNumber(fake)
  t.equal(rings.size, TOTAL, 'every person rung')
  t.same([...rings.values()].filter((n) => n > 1), [], 'no one rung twice')
  // Each account's calls went out in the order they were decided, across the stop and the backlog's pages.
  const dialedOrder = accounts.map((_, a) => fake.callRequests().map((r) => String(r.form.To)).filter((to) => to.startsWith(`+1${312 + a}`)))
  t.same(dialedOrder, accounts.map((_, a) => Array.from({ length: PER_ACCOUNT }, (_, i) => `+1${backlogDigits(a, i)}`)), 'in decision order')
})
