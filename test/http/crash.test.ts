/**
 * Nothing acknowledged is lost: a server under load is killed with SIGKILL (no chance to flush or
 * close), restarted, and every lead that got a 2xx must be in the log and in Inbound Leads.
 */
import path from 'node:path'
import t from 'tap'
import { openLeadline } from '../../src/leadline.ts'
import { startServer } from '../helpers/cli.ts'
import { operatorContext } from '../helpers/build-app.ts'
import { dumpReadModels } from '../helpers/read-models.ts'

t.test('every acknowledged lead survives kill -9, three times over', async (t) => {
  const dir = t.testdir()
  // Sixteen workers on one token are far over the webhook's rate limit, which is not what this test is about.
  const env = { LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}`, LOG_LEVEL: 'warn', LEADLINE_WEBHOOK_RATE: 'off' }
  const setup = await openLeadline({ store: env.LEADLINE_STORE, viewsPath: path.join(dir, 'leadline.views.db') })
  const { account, webhookToken } = await setup.accounts.create('Crash Co', {}, operatorContext)
  await setup.close()

  const acknowledged = new Set<string>()
  let next = 0
  for (let round = 0; round < 3; round++) {
    const server = await startServer(env)
    let running = true
    const workers = Array.from({ length: 16 }, async () => {
      while (running) {
        const phone = `512${String(7_000_000 + next++).padStart(7, '0')}`
        try {
          const response = await fetch(`${server.url}/api/ingest/lead`, {
            method: 'POST',
            headers: { 'x-service-token': webhookToken.secret, 'content-type': 'application/json' },
            body: JSON.stringify({ phone, name: `Lead ${phone}` }),
          })
          if (response.status === 201) acknowledged.add(phone)
          else if (response.status !== 503) t.fail(`unexpected status ${response.status}`)
        } catch {
          // the connection died with the server: not acknowledged, so nothing is promised
        }
      }
    })
    await new Promise((resolve) => setTimeout(resolve, 700 + round * 200))
    server.child.kill('SIGKILL')
    running = false
    await Promise.all(workers)
    await server.stop()
  }
  t.ok(acknowledged.size > 50, `leads acknowledged before the kills: ${acknowledged.size}`)

  const after = await openLeadline({ store: env.LEADLINE_STORE, viewsPath: path.join(dir, 'leadline.views.db') })
  t.teardown(() => after.close())
  const received = new Set(
    (await after.store.readAll()).filter((e) => e.type === 'LeadReceived').map((e) => (e.data as { fields: { phoneLast10: string } }).fields.phoneLast10),
  )
  const missing = [...acknowledged].filter((phone) => !received.has(phone))
  t.same(missing, [], 'every acknowledged lead is in the log')

  await after.runner.catchUp()
  const listed = new Set<string>()
  for (let cursor: string | undefined; ;) {
    const page = after.inboundLeads.list(account.accountId, { limit: 500, ...(cursor ? { cursor } : {}) })
    for (const lead of page.leads) listed.add(lead.phone.slice(-10))
    if (!page.nextCursor) break
    cursor = page.nextCursor
  }
  t.same([...acknowledged].filter((phone) => !listed.has(phone)), [], 'every acknowledged lead is in Inbound Leads')
  t.equal(listed.size, received.size, 'one list row per lead on the log')

  // The read models the killed servers left behind equal a fresh rebuild from the log.
  const rebuilt = await openLeadline({ store: env.LEADLINE_STORE, viewsPath: path.join(dir, 'rebuilt.views.db') })
  t.teardown(() => rebuilt.close())
  await rebuilt.runner.catchUp()
  t.same(dumpReadModels(after), dumpReadModels(rebuilt))
})
