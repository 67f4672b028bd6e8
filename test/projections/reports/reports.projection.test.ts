/**
 * The reports read model from a book with known counts (test/helpers/report-book.ts): the funnel per
 * day in the account's zone (a lead at 23:30 local counts on that day), speed to lead's median and
 * p90 by nearest rank, contact rate by source and day, the hour × weekday answer rate on the lead's
 * own clock, payments, the call log of both directions; and a replay rebuilds the same figures.
 */
import path from 'node:path'
import t from 'tap'
import { replay } from '../../../src/audit/replay.ts'
import { PROJECTIONS } from '../../../src/leadline.ts'
import { nearestRank } from '../../../projections/reports/nearest-rank.ts'
import { localSlot } from '../../../projections/reports/local-slot.ts'
import { reportPeriod } from '../../../projections/reports/reports.queries.ts'
import { buildApp } from '../../helpers/build-app.ts'
import { BOOK_NOW, BOOK_ZONE, EXPECTED, seedReportBook } from '../../helpers/report-book.ts'

t.test('nearest rank: exact values, never interpolated', async (t) => {
  const values = [10, 20, 30, 40, 50, 60, 70, 600].map((value) => ({ value, count: 1 }))
  t.equal(nearestRank(values, 50), 40, 'rank ceil(0.5 × 8) = 4')
  t.equal(nearestRank(values, 90), 600, 'rank ceil(0.9 × 8) = 8')
  t.equal(nearestRank([{ value: 5, count: 3 }, { value: 9, count: 1 }], 50), 5)
  t.equal(nearestRank([{ value: 7, count: 1 }], 90), 7)
  t.equal(nearestRank([], 50), null)
})

t.test('local slots: the day, weekday and hour on the zone\'s clock, across a DST change', async (t) => {
  t.same(localSlot('2026-03-11T04:30:00Z', 'America/Chicago'), { day: '2026-03-10', weekday: 2, hour: 23 }, '23:30 CDT on Tuesday the 10th')
  t.same(localSlot('2026-03-08T07:30:00Z', 'America/Chicago'), { day: '2026-03-08', weekday: 7, hour: 1 }, 'CDT begins at 08:00 UTC: 07:30 UTC is still 01:30 CST')
  t.same(localSlot('2026-03-08T08:30:00Z', 'America/Chicago'), { day: '2026-03-08', weekday: 7, hour: 3 }, '08:30 UTC is 03:30 CDT')
  t.same(localSlot('2026-03-10T15:00:00Z', 'Asia/Kolkata'), { day: '2026-03-10', weekday: 2, hour: 20 }, 'a half-hour zone: 20:30')
  t.equal(localSlot('not a time', 'UTC'), null)
  t.same(reportPeriod(7, 'America/Chicago', new Date('2026-03-11T04:30:00Z')), { from: '2026-03-04', to: '2026-03-10' }, "today is the account's day, not UTC's")
})

t.test('the book gives the figures worked out by hand; a replay rebuilds the same', async (t) => {
  const built = await buildApp(t, { start: false, store: 'sqlite', clock: () => BOOK_NOW })
  const { account } = await built.createAccount('Book', { timeZone: BOOK_ZONE })
  await seedReportBook(built.leadline.store, account.accountId)
  await built.leadline.runner.catchUp()
  const figures = () => built.leadline.reports.figures(account.accountId, { from: '2026-03-05', to: '2026-03-11' })
  const before = figures()

  const day = (d: string) => before.days.find((x) => x.day === d)
  t.equal(before.days.length, 7, 'every day of the period, zeros included')
  t.match(day('2026-03-10'), EXPECTED.march10, '10 leads, 4 reached: 40 %; median 40 s, p90 600 s')
  t.match(day('2026-03-11'), EXPECTED.march11, 'the lead at 00:30 on the 11th, reached by its inbound call')
  t.match(day('2026-03-09'), { leads: 0, contactRate: null, speedMedianSeconds: null })
  t.match(before.totals, { leads: 11, called: 8, reached: 5, connected: 3, callback: 2, qualified: 1, paid: 1, speedMedianSeconds: 40, speedP90Seconds: 600 })
  t.equal(before.totals.contactRate, 5 / 11)
  t.same(before.sources, [
    { source: 'Google Ads', leads: 6, reached: 4, contactRate: 4 / 6 },
    { source: 'Facebook', leads: 4, reached: 0, contactRate: 0 },
    { source: 'Website', leads: 1, reached: 1, contactRate: 1 },
  ])
  t.same(before.speedDistribution.map((b) => b.leads), [2, 3, 2, 0, 1, 0, 0, 0, 0], '10, 20 | 30, 40, 50 | 60, 70 | 600 s')
  t.equal(before.answerRate.length, 7 * 24)
  const cell = (weekday: number, hour: number) => before.answerRate.find((c) => c.weekday === weekday && c.hour === hour)
  t.match(cell(2, 10), { ...EXPECTED.tuesday10, answerRate: 4 / 7 })
  t.match(cell(2, 8), { ...EXPECTED.tuesday8, answerRate: 0 }, "the Californian lead, on its own clock")
  t.equal(before.answerRate.reduce((sum, c) => sum + c.calls, 0), 8, 'inbound calls are not calls that rang a lead')
  t.same(before.payments, { days: [{ day: '2026-03-10', currency: 'usd', payments: 1, amountCents: 5000 }], totals: [{ currency: 'usd', payments: 1, amountCents: 5000 }] }, 'settled at 23:59 CDT: the 10th')

  const page = built.leadline.callLog.page(account.accountId, { limit: 50 })
  t.equal(page.calls.length, EXPECTED.calls, '8 outbound and 2 inbound')
  const outcomes = Object.fromEntries(page.calls.map((c) => [c.key, [c.direction, c.outcome, c.answeredBy, c.voicemail, c.source]]))
  t.same(outcomes['dec_book1'], ['outbound', 'answered', 'person', false, 'Google Ads'])
  t.same(outcomes['dec_book5'], ['outbound', 'no_answer', null, false, 'Google Ads'])
  t.same(outcomes['dec_book8'], ['outbound', 'machine', 'machine', true, 'Facebook'])
  t.same(outcomes['inbound:CAin11'], ['inbound', 'answered', 'owner', false, 'Website'])
  t.same(outcomes['inbound:CAin10'], ['inbound', 'missed', null, false, 'Facebook'])
  t.equal(page.calls.find((c) => c.key === 'dec_book2')?.durationSeconds, 62)
  t.same(page.calls.map((c) => c.at), [...page.calls.map((c) => c.at)].sort().reverse(), 'newest first')
  t.same(built.leadline.callLog.page(account.accountId, { limit: 50, outcome: 'no_answer' }).calls.map((c) => c.key).sort(), ['dec_book5', 'dec_book6', 'dec_book7'])
  t.same(built.leadline.callLog.page(account.accountId, { limit: 50, source: 'Website' }).calls.map((c) => c.key), ['inbound:CAin11'])
  t.same(built.leadline.callLog.page(account.accountId, { limit: 50, since: '2026-03-11T05:00:00.000Z' }).calls.map((c) => c.key), ['inbound:CAin11'])
  const first = built.leadline.callLog.page(account.accountId, { limit: 4 })
  const second = built.leadline.callLog.page(account.accountId, { limit: 4, cursor: first.nextCursor as string })
  t.equal(second.calls.length, 4)
  t.same(second.calls.filter((c) => first.calls.some((f) => f.key === c.key)), [], 'a next page repeats nothing')

  const result = await replay({ store: built.leadline.store, live: built.leadline.views, scratchPath: path.join(built.dir, 'scratch.db'), projections: PROJECTIONS, mode: 'switch' })
  t.ok(result, 'replayed')
  t.same(figures(), before, 'leadline replay rebuilds the same figures')
  t.equal(built.leadline.inboundLeads.count(account.accountId), 11, "Inbound Leads' count, kept as leads are listed")
  t.same(built.leadline.callLog.page(account.accountId, { limit: 50 }), page)
})
