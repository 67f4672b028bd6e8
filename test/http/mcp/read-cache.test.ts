/**
 * Read tools' answers are shared while nothing they are made of has moved (src/http/mcp/read-cache.ts):
 * the log's head, the read models' position, the account's state and the clock's second. These
 * tests prove an answer is never older than any of them, never crosses accounts, is computed once
 * for callers that arrive together, and that failures are not kept.
 */
import t from 'tap'
import { ToolCallResult } from '../../../src/http/mcp/json-rpc.ts'
import { ReadCache, type ReadStamp } from '../../../src/http/mcp/read-cache.ts'
import type { AccountState } from '../../../src/domain/account/account.decider.ts'
import { DEFAULT_PAGE_SIZE } from '../../../projections/inbound-leads/inbound-leads.queries.ts'
import { operatorContext } from '../../helpers/build-app.ts'
import { SIMULATED_CALENDAR_ID, simulatedCalendarsOf } from '../../../src/integrations/calendar/simulated/index.ts'
import { mcpApp } from './mcp-helpers.ts'

const DIALABLE = { callerId: '+15125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, callsPerSecond: 50 }

t.test('an answer holds until the log, the read models, the account or the clock second moves', async (t) => {
  let now = new Date('2025-06-02T15:00:00.100Z')
  const app = await mcpApp(t, { clock: () => now })
  const a = await app.account('A', DIALABLE)
  await a.pushLead({ name: 'Alice A', phone: '(312) 555-0101', source: 'Spring' })
  await app.quiet() // speed to lead's decision on Alice is on the log and applied: from here on nothing moves by itself
  const first = await app.call(a.keys.read, 'list_leads', {})
  t.same(first.result?.structuredContent.leads.map((l: { full_name: string }) => l.full_name), ['Alice A'])

  // A change behind the log's back (never done by Leadline): the kept answer does not see it, which
  // shows the answer is shared rather than computed again...
  const changed = app.leadline.views.prepare("UPDATE inbound_leads SET full_name = 'Changed Behind' WHERE account_id = ?").run(a.accountId)
  t.equal(changed.changes, 1)
  t.same((await app.call(a.keys.read, 'list_leads', {})).result, first.result, 'the same answer while nothing moved')
  t.same((await app.call(a.keys.read, 'list_leads', { limit: DEFAULT_PAGE_SIZE })).result, first.result, 'the defaults filled in: the same question')
  t.same((await app.call(a.keys.read, 'list_leads', { limit: 10 })).result?.structuredContent.leads.map((l: { full_name: string }) => l.full_name), ['Changed Behind'], 'other arguments: another answer')

  // ...and any event on the log ends it: here a new lead, seen by the very next call after its 201.
  await a.pushLead({ name: 'Bob B', phone: '(312) 555-0102' })
  t.same((await app.call(a.keys.read, 'list_leads', {})).result?.structuredContent.leads.map((l: { full_name: string }) => l.full_name), ['Bob B', 'Changed Behind'])

  // The clock: 20 minutes later both leads are stale (never contacted); within the same second, the kept answer.
  const before = await app.call(a.keys.read, 'get_next_actions', {})
  t.match(before.result?.structuredContent, { summary: /^No stale leads/ })
  now = new Date(now.getTime() + 20 * 60_000)
  const later = await app.call(a.keys.read, 'get_next_actions', {})
  t.match(later.result?.structuredContent, { summary: /2 new leads have not been contacted/ })
  t.equal(later.result?.structuredContent.stale_leads.length, 2)
  now = new Date(now.getTime() + 500) // the same second
  t.same((await app.call(a.keys.read, 'get_next_actions', {})).result, later.result, 'within the second: the kept answer')

  // A setting: stale-after is part of the summary; changing it is an account event.
  await app.leadline.accounts.changeSettings(a.accountId, { staleAfterMinutes: 120 }, operatorContext)
  t.match((await app.call(a.keys.read, 'get_next_actions', {})).result?.structuredContent, { summary: /over 2 hours/ }, 'the new setting shows at once')
})

t.test('the read models catching up ends an answer even when the log head has not moved', async (t) => {
  const app = await mcpApp(t, { start: false }) // no live subscription: the read models move only on settle()
  const a = await app.account('A', DIALABLE)
  await a.pushLead({ name: 'Alice A', phone: '(312) 555-0101' })
  // Appended, not yet applied: the answer made now lacks it.
  const response = await app.app.inject({
    method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': a.token, 'content-type': 'application/json' },
    payload: JSON.stringify({ name: 'Bob B', phone: '(312) 555-0102' }),
  })
  t.equal(response.statusCode, 201)
  t.same((await app.call(a.keys.read, 'list_leads', {})).result?.structuredContent.leads.map((l: { full_name: string }) => l.full_name), ['Alice A'], 'not applied yet')
  await app.settle()
  t.same((await app.call(a.keys.read, 'list_leads', {})).result?.structuredContent.leads.map((l: { full_name: string }) => l.full_name), ['Bob B', 'Alice A'], 'applied: seen')
})

t.test('accounts never share answers; callers that arrive together share one computation', async (t) => {
  let now = new Date('2025-06-02T15:00:00Z')
  const app = await mcpApp(t, { clock: () => now })
  const a = await app.account('A', DIALABLE)
  const b = await app.account('B', { ...DIALABLE, callerId: '+15125550200' })
  await a.pushLead({ name: 'Alice A', phone: '(312) 555-0101' })
  await b.pushLead({ name: 'Bob B', phone: '(415) 555-0202' })
  now = new Date(now.getTime() + 20 * 60_000) // both stale: never contacted
  const service = app.leadline.nextActions
  const original = service.getNextActions.bind(service)
  let computed = 0
  service.getNextActions = (...args) => {
    computed++
    return original(...args)
  }
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => app.call((i % 2 ? b : a).keys.read, 'get_next_actions', { limit: 5 })))
  t.equal(computed, 2, 'once per account')
  for (const [i, answer] of answers.entries()) {
    const text = JSON.stringify(answer.result)
    t.ok(i % 2 ? text.includes('4155550202') && !text.includes('3125550101') : text.includes('3125550101') && !text.includes('4155550202'), `call ${i}: its own account's leads only`)
  }
  // Scope is checked before any answer is shared.
  t.match(await app.call(a.keys.write, 'get_next_actions', { limit: 5 }), { error: { code: -32003 } })
})

t.test('ReadCache: failures are not kept; the size is bounded, oldest first', async (t) => {
  let stamp: ReadStamp = { head: 1, views: 1, second: 1 }
  const account = { accountId: 'acc_1' } as AccountState
  // An entry of 40 characters of output counts about 200 (its key, its text and the encoded response): two fit, three do not.
  const cache = new ReadCache(async () => stamp, 500)
  let runs = 0
  const failing = () => {
    runs++
    return Promise.reject(new Error('boom'))
  }
  await t.rejects(cache.answer(account, 'tool', {}, failing), /boom/)
  await t.rejects(cache.answer(account, 'tool', {}, failing), /boom/)
  t.equal(runs, 2, 'a failure is computed again')
  t.equal(cache.size, 0)

  const result = (text: string) => () => Promise.resolve(new ToolCallResult(text, false))
  const one = await cache.answer(account, 'tool', { n: 1 }, result('x'.repeat(40)))
  t.equal(await cache.answer(account, 'tool', { n: 1 }, result('other')), one, 'kept')
  await cache.answer(account, 'tool', { n: 2 }, result('y'.repeat(40)))
  t.equal(cache.size, 2)
  await cache.answer(account, 'tool', { n: 3 }, result('z'.repeat(40)))
  t.equal(cache.size, 2, 'over 500: the oldest went')
  t.not(await cache.answer(account, 'tool', { n: 1 }, result('x'.repeat(40))), one, 'the oldest is computed again')

  const kept = await cache.answer(account, 'tool', { n: 9 }, result('a'))
  t.equal(await cache.answer(account, 'tool', { n: 9 }, result('b')), kept)
  t.not(await cache.answer({ ...account } as AccountState, 'tool', { n: 9 }, result('c')), kept, 'a new account state: computed again')
  stamp = { ...stamp, views: 2 }
  t.equal((await cache.answer({ ...account } as AccountState, 'tool', { n: 9 }, result('d'))).text, 'd', 'the read models moved: computed again')
})

t.test('list_open_slots is asked of the calendar every time: an event the owner just added shows within the same second', async (t) => {
  const now = new Date('2026-03-09T13:00:00.100Z') // Monday 09:00 in New York; the clock stands still
  const app = await mcpApp(t, { clock: () => now })
  const a = await app.account('A', { ...DIALABLE, timeZone: 'America/New_York' })
  await app.leadline.calendars.connect(a.accountId, { kind: 'simulated' }, operatorContext.actor)
  await app.leadline.calendars.saveType(a.accountId, { id: 'call', name: 'Quick call', durationMinutes: 60, bookableHours: 'mon-fri 10:00-12:00', minimumNoticeMinutes: 0, calendarId: SIMULATED_CALENDAR_ID }, operatorContext.actor)
  await app.quiet()
  const ask = async () => ((await app.call(a.keys.read, 'list_open_slots', { appointment_type_id: 'call', from: '2026-03-09T14:00:00Z', to: '2026-03-09T16:00:00Z' })).result?.structuredContent.slots as Array<{ start: string }>).map((s) => s.start)
  t.same(await ask(), ['2026-03-09T14:00:00.000Z', '2026-03-09T15:00:00.000Z'])
  // The owner fills 10:00 in their own calendar: nothing moves on the log, the clock's second is the same.
  simulatedCalendarsOf(a.accountId).ownerEvent('dentist', '2026-03-09T14:00:00Z', '2026-03-09T15:00:00Z', 'Dentist')
  t.same(await ask(), ['2026-03-09T15:00:00.000Z'], 'the slot the owner just filled is gone')
})
