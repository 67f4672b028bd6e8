/**
 * `leadline replay --all` while a server keeps serving on the same store and read models: leads keep
 * arriving during the rebuild and the switch, every request is answered, and afterwards the server's
 * read models equal a fresh rebuild from the log (nothing lost, nothing applied twice).
 */
import path from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { openLeadline, PROJECTIONS } from '../../src/leadline.ts'
import { receiveLead } from '../../src/commands/receive-lead.command.ts'
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'
import { runLeadline, startServer } from '../helpers/cli.ts'
import { OPERATOR, OPERATOR_HEADERS } from '../helpers/build-app.ts'
import { dumpReadModels } from '../helpers/read-models.ts'

const operator = { actor: { kind: 'operator', id: 'test' } } as const

t.test('replay while the server serves: it keeps answering, and its read models equal a fresh rebuild', { timeout: 300_000 }, async (t) => {
  const dir = t.testdir()
  // It hammers one webhook token on purpose: the per-token rate limit is not what this test is about.
  const env = { LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}`, LEADLINE_PUBLIC_URL: 'https://leads.example.com', LEADLINE_SIMULATED_DELAY_MS: '5', LEADLINE_WEBHOOK_RATE: 'off', LEADLINE_OPERATOR_TOKEN_HASH: OPERATOR.hash }
  const viewsPath = path.join(dir, 'leadline.views.db')

  // A log with some history before the server starts.
  const setup = await openLeadline({ store: env.LEADLINE_STORE, viewsPath })
  const { account, webhookToken } = await setup.accounts.create('Busy Co', {}, operator)
  for (let i = 0; i < 300; i++) {
    await receiveLead(setup, account, { phone: `512555${String(i).padStart(4, '0')}`, name: `Lead ${i}`, source: i % 2 ? 'Web' : 'Ads' }, { actor: { kind: 'webhook_token', id: webhookToken.id } })
  }
  await setup.close()

  const server = await startServer(env, { timeoutMs: 120_000 })
  t.teardown(() => server.stop())
  const post = (body: object) =>
    fetch(`${server.url}/api/ingest/lead`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-token': webhookToken.secret }, body: JSON.stringify(body) })

  // Traffic: new leads and repeats of existing ones, from a few concurrent senders, until told to stop.
  let sending = true
  let sent = 0
  const statuses = new Map<number, number>()
  const sender = async (worker: number) => {
    for (let n = 0; sending; n++) {
      const repeat = n % 3 === 0
      const phone = repeat ? `512555${String((n * 7 + worker) % 300).padStart(4, '0')}` : `737${worker}${String(n).padStart(6, '0')}`
      const response = await post({ phone, email: `lead${worker}-${n}@example.com` })
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
      sent++
    }
  }
  const senders = [0, 1, 2].map(sender)

  while (sent < 20) await new Promise((resolve) => setTimeout(resolve, 50))
  const before = sent
  const replay = await runLeadline(['replay', '--all'], env)
  const during = sent - before
  t.equal(replay.code, 0, replay.stderr)
  t.match(replay.stdout, /switched over at position \d+/)
  t.ok(during > 0, `${during} leads were taken in while the replay ran`)
  const afterReplay = sent
  while (sent < afterReplay + 20) await new Promise((resolve) => setTimeout(resolve, 50))
  sending = false
  await Promise.all(senders)
  t.same([...statuses.keys()].filter((status) => status !== 200 && status !== 201), [], `every one of ${sent} requests was answered with 200 or 201`)

  // The server still answers, takes a lead, and catches up with everything on the log.
  t.equal((await fetch(`${server.url}/healthz`)).status, 200)
  t.equal((await post({ phone: '7375550000', name: 'After Replay' })).status, 201)
  // Compare once the server has applied everything and nothing new is arriving (its process
  // managers may still append a reaction or two): retried until both sides stand at the same head.
  const live = new Database(viewsPath, { readonly: true })
  t.teardown(() => live.close())
  for (let attempt = 1; ; attempt++) {
    let head = -1
    for (let i = 0; i < 200; i++) {
      const ready = await fetch(`${server.url}/readyz`, { headers: OPERATOR_HEADERS })
      const body = (await ready.json()) as { head: number }
      if (ready.status === 200 && body.head === head) break // ready, and nothing new since the last look
      head = body.head
      await new Promise((resolve) => setTimeout(resolve, 300))
    }
    const checkpoints = live.prepare('SELECT position FROM projection_checkpoints').pluck().all() as number[]
    const served = dumpReadModels({ views: live as ViewsDatabase, runner: { projections: PROJECTIONS } } as unknown as Parameters<typeof dumpReadModels>[0])
    const fresh = await openLeadline({ store: env.LEADLINE_STORE, viewsPath: path.join(dir, `fresh-${attempt}.views.db`) })
    await fresh.runner.catchUp()
    const freshHead = fresh.runner.lowestCheckpoint()
    const rebuilt = dumpReadModels(fresh)
    await fresh.close()
    if ((freshHead !== head || checkpoints.some((p) => p !== head)) && attempt < 10) continue
    t.ok(checkpoints.length >= PROJECTIONS.length && checkpoints.every((p) => p === head), `every served read model at the head (${head})`)
    t.equal(freshHead, head, 'the fresh rebuild reached the same head')
    t.equal(served.inbound_leads?.length, rebuilt.inbound_leads?.length)
    t.same(served, rebuilt, 'the served read models equal a fresh rebuild')
    break
  }
})
