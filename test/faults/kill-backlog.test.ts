/**
 * kill -9 of a `leadline serve` with thousands of decided, undialed calls: leads acknowledged by the
 * webhook while the dialer runs at the default pace (1 call a second per account), so the killed
 * server had been handed nearly all of them. With the pace raised, the next start dials every
 * decision left unclaimed, once; a claim the kill cut short is outcome unknown, never a second ring.
 * (The same backlog across a graceful stop: test/processes/dialer/restart-backlog.test.ts.)
 */
import path from 'node:path'
import t from 'tap'
import { openLeadline } from '../../src/leadline.ts'
import { operatorContext } from '../helpers/build-app.ts'
import { ACCOUNTS, PER_ACCOUNT, TOTAL, backlogDigits, raisePace, ringsPerNumber, settledDecisions } from '../helpers/call-backlog.ts'
import { startServer } from '../helpers/cli.ts'
import { DIALING, PUBLIC_URL, fakeTwilio, reopen, sleep, twilioEnv } from '../helpers/dialing-app.ts'
import { postLead, serverEnv } from './fault-kit.ts'

t.test('kill -9 with thousands of undialed decisions: the next start dials every unclaimed one, once', async (t) => {
  const fake = await fakeTwilio(t)
  const dir = t.testdir()
  const files = { store: `sqlite:${path.join(dir, 'leadline.db')}`, viewsPath: path.join(dir, 'leadline.views.db') }
  const setup = await openLeadline({ ...files, env: {} })
  const accounts: Array<{ accountId: string; token: string }> = []
  for (let a = 0; a < ACCOUNTS; a++) {
    const { account, webhookToken } = await setup.accounts.create(`Acme ${a}`, { ...DIALING, callerId: `+1312555${String(200 + a).padStart(4, '0')}` }, operatorContext)
    accounts.push({ accountId: account.accountId, token: webhookToken.secret })
  }
  await setup.close()

  const server = await startServer(serverEnv(files, { ...twilioEnv(fake), LEADLINE_PUBLIC_URL: PUBLIC_URL }))
  t.teardown(() => server.stop('SIGKILL'))
  // Each lead acknowledged with its call decided; the dialer paces them at 1 a second per account.
  const deciding = Date.now()
  for (let i = 0; i < PER_ACCOUNT; i += 25) {
    const answers = await Promise.all(
      accounts.flatMap((account, a) => Array.from({ length: 25 }, (_, j) => postLead(server.url, account.token, { phone: backlogDigits(a, i + j) }))),
    )
    const refused = answers.find((answer) => answer.status !== 201)
    if (refused) throw new Error(`the webhook refused a lead: ${refused.status} ${JSON.stringify(refused.body)}`)
  }
  await sleep(1000)
  await server.stop('SIGKILL')
  const before = fake.callRequests().length
  // However long a busy machine took to decide them: at most one call a second per account went out.
  const seconds = Math.ceil((Date.now() - deciding) / 1000)
  t.ok(before <= ACCOUNTS * (seconds + 1), `paced while deciding: ${before} dialed in ${seconds} s`)
  t.ok(before < TOTAL, `a backlog was left at the kill: ${TOTAL - before} undialed`)

  await raisePace(files, accounts.map((a) => a.accountId))
  // The sweep marks an attempt the kill cut short as outcome unknown after attemptTimeoutMs.
  const restarted = await reopen(t, files, { fake, attemptTimeoutMs: 500 })
  const outcomes = await settledDecisions(restarted.leadline, 600_000)
  t.equal(outcomes.size, TOTAL)
  const rings = ringsPerNumber(fake)
  t.same([...rings.values()].filter((n) => n > 1), [], 'no one rung twice')
  const notRung = [...outcomes.values()].filter((d) => !rings.has(d.to))
  // The kill can land between a claim and its carrier request: at most one such call per account.
  t.ok(notRung.length <= ACCOUNTS, `claims the kill cut short: ${notRung.length}`)
  t.equal(notRung.filter((d) => !d.events.includes('CallOutcomeUnknown')).length, 0, 'each one not rung is outcome unknown, not left waiting')
  t.equal([...outcomes.values()].filter((d) => !d.events.includes('CallPlaced') && !d.events.includes('CallOutcomeUnknown')).length, 0, 'every other decision placed')
})
