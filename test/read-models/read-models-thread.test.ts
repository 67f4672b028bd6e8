/**
 * A server's read models are applied on a thread of their own beside the event store's writer thread,
 * from the batches it commits (src/read-models/read-models-thread.ts): the main thread's runner only hears how far.
 * Here the runner is not started unless a test says so, so whatever reaches the read models was
 * applied by the thread; a commit by another process in between leaves them to the runner; either
 * way the read models are those a rebuild from position 0 makes, and no event is applied twice.
 */
import path from 'node:path'
import t, { type Test } from 'tap'
import { openLeadline, type Leadline } from '../../src/leadline.ts'
import { openSqliteEventStore, preferWriterThread } from '../../src/eventstore/sqlite/sqlite-event-store.adapter.ts'
import type { AccountState } from '../../src/domain/account/account.decider.ts'
import { dumpReadModels } from '../helpers/read-models.ts'
import { waitFor } from '../helpers/dialing-app.ts'

// What `leadline serve` does: every store this process opens writes on the writer thread.
preferWriterThread()

const context = { actor: { kind: 'webhook_token', id: 'wht_test' } } as const

async function open(t: Test, name = 'views'): Promise<{ leadline: Leadline; account: AccountState; store: string; dir: string }> {
  const dir = t.testdir()
  const store = `sqlite:${path.join(dir, 'events.db')}`
  const leadline = await openLeadline({ store, viewsPath: path.join(dir, `${name}.db`) })
  t.teardown(() => leadline.close())
  const { account } = await leadline.accounts.create('Thread', {}, { actor: { kind: 'operator', id: 'test' } })
  return { leadline, account, store, dir }
}

function receive(leadline: Leadline, account: AccountState, from: number, count: number): Promise<unknown[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      leadline.intake.receive(account, { phone: `212500${String(from + i).padStart(4, '0')}`, name: `Person ${from + i}`, source: i % 2 ? 'Web' : 'Ads' }, context),
    ),
  )
}

/** The read models as a rebuild from position 0 makes them, in a views file of their own. */
async function rebuilt(t: Test, store: string, dir: string): Promise<Record<string, unknown[]>> {
  const fresh = await openLeadline({ store, viewsPath: path.join(dir, `rebuilt-${Date.now()}.db`) })
  t.teardown(() => fresh.close())
  await fresh.runner.catchUp()
  return dumpReadModels(fresh)
}

const head = (leadline: Leadline) => leadline.store.headPosition()

t.test('the read models thread applies each batch the writer commits; the runner, never started, is told how far', async (t) => {
  const { leadline, account, store, dir } = await open(t)
  await receive(leadline, account, 0, 40)
  const last = await head(leadline)
  await waitFor('the thread to reach the head', () => leadline.runner.appliedPosition >= last)
  t.equal(leadline.inboundLeads.count(account.accountId), 40, 'every lead is in Inbound Leads')
  t.same(new Set(leadline.runner.statuses().map((s) => s.position)), new Set([last]), 'every checkpoint at the head')
  t.same(dumpReadModels(leadline), await rebuilt(t, store, dir), 'as a rebuild from position 0 makes them')
})

t.test("a batch after another process's commit is left to the runner, which catches up; then the thread goes on", async (t) => {
  const { leadline, account, store, dir } = await open(t)
  await receive(leadline, account, 0, 10)
  const before = await head(leadline)
  await waitFor('the thread to reach the head', () => leadline.runner.appliedPosition >= before)

  // Another process (the CLI) commits on the same file: the thread never sees that event.
  const cli = openSqliteEventStore({ path: path.join(dir, 'events.db'), writer: 'inline' })
  const other = await cli.appendToStream('note-1', [{ type: 'OperatorNoted', data: { text: 'hello' }, metadata: { correlationId: 'c', causationId: null, actor: { kind: 'operator', id: 'cli' }, schemaVersion: 1 } }], 'no_stream')
  await cli.close()

  await receive(leadline, account, 10, 10)
  const after = await head(leadline)
  t.ok(after > other.position, 'the leads came after the other commit')
  // Give the thread every chance to (wrongly) apply past the gap.
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.equal(leadline.runner.appliedPosition, before, 'the runner was told nothing past the gap')
  t.same(new Set(leadline.runner.statuses().map((s) => s.position)), new Set([before]), 'no checkpoint moved past the gap')
  t.equal(leadline.inboundLeads.count(account.accountId), 10, 'the leads after the gap wait for the runner')

  await leadline.runner.catchUp()
  t.equal(leadline.inboundLeads.count(account.accountId), 20, 'the runner caught up from the log')
  await receive(leadline, account, 20, 5)
  const last = await head(leadline)
  await waitFor('the thread to go on from there', () => leadline.runner.appliedPosition >= last)
  t.equal(leadline.inboundLeads.count(account.accountId), 25)
  t.same(dumpReadModels(leadline), await rebuilt(t, store, dir), 'as a rebuild from position 0 makes them')
})

t.test('with the runner live beside the thread, every event is applied once', async (t) => {
  const { leadline, account, store, dir } = await open(t)
  leadline.runner.start()
  for (let round = 0; round < 5; round++) await receive(leadline, account, round * 40, 40)
  // Repeats too: updates count submissions, which a second application would count twice.
  await receive(leadline, account, 0, 40)
  const last = await head(leadline)
  await leadline.runner.waitFor(last)
  t.equal(leadline.inboundLeads.count(account.accountId), 200)
  t.same(dumpReadModels(leadline), await rebuilt(t, store, dir), 'as a rebuild from position 0 makes them')
})
