/**
 * The outbound deliveries table: only the oldest pending delivery of a lane (one subscription, one
 * lead) is due, so a lead's events go out in log order while other lanes go on; a redelivered event
 * adds nothing; failed deliveries are retried by hand only; old rows are pruned, failed ones later.
 */
import t from 'tap'
import { OutboundDeliveries, type NewDelivery } from '../../src/read-models/outbound-deliveries.ts'
import { openViewsDatabase } from '../../src/read-models/views-database.ts'

const NOW = new Date('2026-11-26T14:00:00Z')

function row(subscriptionId: string, lane: string, position: number): NewDelivery {
  return { webhookId: `msg_${subscriptionId}_${position}`, accountId: 'acc_1', subscriptionId, lane, position, eventId: `evt_${position}`, type: 'lead.received', payload: '{}' }
}

t.test('only the head of each lane is due; a redelivery adds nothing', async (t) => {
  const db = openViewsDatabase(':memory:')
  t.teardown(() => db.close())
  const deliveries = new OutboundDeliveries(db)
  const rows = [row('sub_a', 'lead-1', 1), row('sub_a', 'lead-1', 2), row('sub_a', 'lead-2', 3), row('sub_b', 'lead-1', 1)]
  db.transaction(() => deliveries.add(rows, NOW))()
  db.transaction(() => deliveries.add(rows, NOW))()
  t.equal(deliveries.latest('acc_1', { limit: 100 }).length, 4, 'each event once per subscription')
  const due = (at = NOW.getTime()) => deliveries.due(at, 100).map((d) => `${d.subscriptionId}/${d.lane}/${d.position}`).sort()
  t.same(due(), ['sub_a/lead-1/1', 'sub_a/lead-2/3', 'sub_b/lead-1/1'], 'position 2 waits behind 1 of its lane')

  const first = deliveries.due(NOW.getTime(), 100).find((d) => d.position === 1 && d.subscriptionId === 'sub_a')!
  deliveries.recordAttempt(first.id, { attempt: 1, at: NOW.toISOString(), status: 500, error: 'HTTP 500', durationMs: 3 }, { status: 'pending', nextAttemptAt: NOW.getTime() + 5000 })
  t.same(due(), ['sub_a/lead-2/3', 'sub_b/lead-1/1'], 'a head waiting for its retry holds its lane back, and only its lane')
  deliveries.recordAttempt(first.id, { attempt: 2, at: NOW.toISOString(), status: null, error: 'timeout: no answer in 10000 ms', durationMs: 10000 }, { status: 'failed', nextAttemptAt: NOW.getTime() })
  t.same(due(), ['sub_a/lead-1/2', 'sub_a/lead-2/3', 'sub_b/lead-1/1'], 'a failed head frees its lane')
  t.same(deliveries.attempts(first.id).map((a) => [a.attempt, a.status, a.error]), [[1, 500, 'HTTP 500'], [2, null, 'timeout: no answer in 10000 ms']])

  t.equal(deliveries.retry('acc_other', { deliveryId: first.id }, NOW.getTime()), 0, 'another account cannot retry it')
  t.equal(deliveries.retry('acc_1', { deliveryId: first.id }, NOW.getTime() + 1000), 1)
  t.equal(deliveries.retry('acc_1', { deliveryId: first.id }, NOW.getTime() + 1000), 0, 'only a failed one is retried')
  const retried = deliveries.latest('acc_1', { status: 'pending', limit: 100 }).find((d) => d.id === first.id)
  t.equal(retried?.windowStart, NOW.getTime() + 1000, 'with a new 24-hour window')
  t.same(due(NOW.getTime() + 1000), ['sub_a/lead-1/1', 'sub_a/lead-2/3', 'sub_b/lead-1/1'], 'and it heads its lane again, from then')
})

t.test('pruning: delivered and cancelled rows after their time, failed ones after theirs', async (t) => {
  const db = openViewsDatabase(':memory:')
  t.teardown(() => db.close())
  const deliveries = new OutboundDeliveries(db)
  db.transaction(() => deliveries.add([row('sub_a', 'lead-1', 1), row('sub_a', 'lead-2', 2), row('sub_a', 'lead-3', 3)], NOW))()
  const [a, b, c] = deliveries.latest('acc_1', { limit: 10 }).reverse()
  deliveries.recordAttempt(a!.id, { attempt: 1, at: NOW.toISOString(), status: 200, error: null, durationMs: 1 }, { status: 'delivered', nextAttemptAt: 0 })
  deliveries.recordAttempt(b!.id, { attempt: 1, at: NOW.toISOString(), status: 500, error: 'HTTP 500', durationMs: 1 }, { status: 'failed', nextAttemptAt: 0 })
  const later = new Date(NOW.getTime() + 1000).toISOString()
  deliveries.prune(later, NOW.toISOString())
  t.same(deliveries.latest('acc_1', { limit: 10 }).map((d) => d.id).sort(), [b!.id, c!.id].sort(), 'the delivered one goes; failed and pending stay')
  t.same(deliveries.attempts(a!.id), [], 'with its attempts')
  deliveries.prune(later, later)
  t.same(deliveries.latest('acc_1', { limit: 10 }).map((d) => d.id), [c!.id], 'the failed one goes later; a pending one never')
})

t.test('a backlog of 60,000 pending deliveries: the next due come from the index in order, not by sorting them all', async (t) => {
  const db = openViewsDatabase(':memory:')
  t.teardown(() => db.close())
  const deliveries = new OutboundDeliveries(db)
  // A flood's deliveries, written after it: three subscriptions, one event a lead, all due at once.
  const rows = Array.from({ length: 60_000 }, (_, i) => row(`sub_${i % 3}`, `lead-${Math.floor(i / 3)}`, Math.floor(i / 3) + 1))
  db.transaction(() => deliveries.add(rows, NOW))()
  // The plan, not a stopwatch (a loaded machine slows both): the query SQLite was given, asked how it runs.
  const prepare = db.prepare.bind(db)
  const prepared: string[] = []
  db.prepare = ((sql: string) => (prepared.push(sql), prepare(sql))) as typeof db.prepare
  for (let i = 0; i < 10; i++) t.equal(deliveries.due(NOW.getTime(), 64).length, 64)
  db.prepare = prepare
  const dueSql = prepared.find((sql) => sql.includes('next_attempt_at <='))
  t.ok(dueSql, 'the look for due work is one query')
  const plan = (prepare(`EXPLAIN QUERY PLAN ${dueSql}`).all(NOW.getTime(), 64) as Array<{ detail: string }>).map((step) => step.detail)
  // Sorting every due row took about 45 ms a look (100 ms on disk: a backlog drained at 114 a second); the index, about 1.
  t.notOk(plan.some((detail) => /TEMP B-TREE FOR ORDER BY/.test(detail)), `read in order from an index, no sort (${plan.join('; ')})`)
  t.same(deliveries.due(NOW.getTime(), 3).map((d) => d.position), [1, 1, 1], 'the oldest first')
})
