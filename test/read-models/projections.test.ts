import path from 'node:path'
import t from 'tap'
import { openLeadline } from '../../src/leadline.ts'
import { ProjectionRunner } from '../../src/read-models/projection-runner.ts'
import { openViewsDatabase } from '../../src/read-models/views-database.ts'
import type { RecordedEvent } from '../../src/domain/event.ts'
import { inboundLeadsProjection } from '../../projections/inbound-leads/inbound-leads.projection.ts'
import { buildApp, operatorContext } from '../helpers/build-app.ts'
import { dumpReadModels } from '../helpers/read-models.ts'

async function seed(t: Parameters<typeof buildApp>[0]) {
  const built = await buildApp(t, { store: 'sqlite' })
  const a = await built.createAccount('A', { industry: 'solar' })
  const b = await built.createAccount('B')
  const post = (token: string, body: object) =>
    built.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token }, payload: body })
  for (let i = 0; i < 40; i++) {
    await post(i % 2 ? a.token : b.token, { phone: `55500${String(i % 25).padStart(5, '0')}`, name: `Person ${i}`, source: i % 3 ? 'Web' : 'Ads', 'Roof Type': 'tile', [`extra_${i}`]: i, dnc: i % 7 === 0 ? 'y' : '' })
  }
  await built.leadline.accounts.createApiKey(a.account.accountId, ['read'], null, operatorContext)
  await built.leadline.runner.catchUp()
  return { ...built, a, b }
}

t.test('read models rebuilt from position 0 are identical to the live ones, twice over', async (t) => {
  const { leadline, dir, store } = await seed(t)
  const live = dumpReadModels(leadline)
  t.ok((live.inbound_leads?.length ?? 0) > 20)
  for (const name of ['first', 'second']) {
    const rebuilt = await openLeadline({ store, viewsPath: path.join(dir, `${name}.views.db`) })
    await rebuilt.runner.catchUp()
    t.same(dumpReadModels(rebuilt), live, `${name} rebuild`)
    await rebuilt.close()
  }
})

t.test('queries filter by source, vendor, since and do-not-call, and page with cursors', async (t) => {
  const { leadline, a } = await seed(t)
  const all = leadline.inboundLeads.list(a.account.accountId, { limit: 500 }).leads
  t.ok(all.length > 5)
  t.ok(all.every((l, i) => i === 0 || (all[i - 1] as { receivedAt: string }).receivedAt >= l.receivedAt), 'newest first')
  t.ok(leadline.inboundLeads.list(a.account.accountId, { source: 'web' }).leads.every((l) => l.source === 'Web'), 'source is case-insensitive')
  t.same(leadline.inboundLeads.list(a.account.accountId, { vendor: 'nobody' }).leads, [])
  t.ok(leadline.inboundLeads.list(a.account.accountId, { doNotCall: true }).leads.every((l) => l.doNotCall))
  t.ok(leadline.inboundLeads.list(a.account.accountId, { doNotCall: false }).leads.every((l) => !l.doNotCall))
  t.same(leadline.inboundLeads.list(a.account.accountId, { since: '2999-01-01T00:00:00Z' }).leads, [])
  t.throws(() => leadline.inboundLeads.list(a.account.accountId, { since: 'yesterday' }), { code: 'invalid_since' })
  t.throws(() => leadline.inboundLeads.list(a.account.accountId, { cursor: 'garbage' }), { code: 'invalid_cursor' })

  const seen: string[] = []
  let cursor: string | undefined
  do {
    const page = leadline.inboundLeads.list(a.account.accountId, { limit: 3, ...(cursor ? { cursor } : {}) })
    t.ok(page.leads.length <= 3)
    seen.push(...page.leads.map((l) => l.leadId))
    cursor = page.nextCursor ?? undefined
  } while (cursor)
  t.same(seen, all.map((l) => l.leadId), 'cursor pages cover the list exactly once, in order')
  const lead = all[0] as (typeof all)[number]
  t.same(leadline.inboundLeads.get(a.account.accountId, { leadId: lead.leadId }), lead)
  t.equal(leadline.inboundLeads.get('acc_other', { leadId: lead.leadId }), null, 'another account never sees it')
  t.same(leadline.inboundLeads.get(a.account.accountId, { phoneLast10: lead.phone.slice(-10) }), lead)
})

t.test('a new projection version drops and rebuilds its read model', async (t) => {
  const { leadline, store } = await seed(t)
  const before = dumpReadModels(leadline)
  leadline.views.prepare('DELETE FROM inbound_leads').run()
  const bumped = { ...inboundLeadsProjection, version: inboundLeadsProjection.version + 1 }
  const runner = new ProjectionRunner(leadline.store, leadline.views, [bumped])
  t.equal(runner.statuses()[0]?.position, 0, 'the checkpoint went back to 0')
  await runner.catchUp()
  t.same(leadline.views.prepare('SELECT * FROM inbound_leads ORDER BY stream').all(), before.inbound_leads?.slice().sort((x, y) => String((x as { stream: string }).stream).localeCompare((y as { stream: string }).stream)))
  t.ok(store)
})

t.test('a batch can cover positions past its last event: the checkpoints move there, and nothing in between is applied', async (t) => {
  const { leadline, dir } = await seed(t)
  const events = await leadline.store.readAll()
  const received = events.filter((e) => e.type === 'LeadReceived')
  const [first, second] = received as [RecordedEvent, RecordedEvent]
  const views = openViewsDatabase(path.join(dir, 'through.views.db'))
  t.teardown(() => views.close())
  const runner = new ProjectionRunner(leadline.store, views, [inboundLeadsProjection])
  runner.applyBatch([first], second.position)
  t.equal(runner.lowestCheckpoint(), second.position, 'the checkpoint is where the batch said it ends')
  t.equal(runner.appliedPosition, second.position)
  t.same(views.prepare('SELECT stream FROM inbound_leads').pluck().all(), [first.stream], 'only the event given was applied')
  runner.applyBatch([], second.position + 1)
  t.equal(runner.lowestCheckpoint(), second.position + 1, 'an empty batch covering positions moves it too')
  runner.applyBatch([second])
  t.same(views.prepare('SELECT stream FROM inbound_leads').pluck().all(), [first.stream], 'an event at or below the checkpoint is skipped')
})

t.test('two runners on one views database never apply an event twice', async (t) => {
  const { leadline } = await seed(t)
  const before = dumpReadModels(leadline)
  // Rewind a second runner's view of the world: it must skip what the first already applied.
  const second = new ProjectionRunner(leadline.store, leadline.views, leadline.runner.projections)
  second.applyBatch(await leadline.store.readAll())
  await second.catchUp()
  t.same(dumpReadModels(leadline), before)
})

t.test('waitFor resolves when the live subscription reaches a position, and times out otherwise', async (t) => {
  const built = await buildApp(t, { store: 'sqlite' })
  const { token } = await built.createAccount()
  await built.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token }, payload: { phone: '5550009999' } })
  const head = await built.leadline.store.headPosition()
  await built.leadline.runner.waitFor(head)
  t.ok(built.leadline.runner.lowestCheckpoint() >= head)
  await t.rejects(built.leadline.runner.waitFor(head + 1000, 50), /did not reach position/)
  t.equal(await built.leadline.runner.caughtUp(), true)
})
