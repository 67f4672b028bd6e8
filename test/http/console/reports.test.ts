/**
 * The Reports and Calls pages and get_stats from a seeded book with known counts (test/helpers/
 * report-book.ts): the numbers each table prints, a chart per table with a bar per value and a cell
 * per hour, the CSV of each table equal to the table, get_stats equal to the page, the Calls page's
 * filters, and both pages behind sign-in.
 */
import t from 'tap'
import { buildApp, operatorContext } from '../../helpers/build-app.ts'
import { BOOK_NOW, BOOK_ZONE, seedReportBook } from '../../helpers/report-book.ts'
import { signedInConsole, TEST_ENV } from './console-helpers.ts'

/** A table's cells as text, row by row, header first. */
function tableOf(page: string, id: string): string[][] {
  const section = new RegExp(`<section class="report" aria-labelledby="${id}-title" id="${id}">([\\s\\S]*?)</section>`).exec(page)?.[1] ?? ''
  const table = /<table>([\s\S]*?)<\/table>/.exec(section)?.[1] ?? ''
  return [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) => [...(row[1] as string).matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) => (c[1] as string).replace(/<[^>]*>/g, '').replace(/&#39;/g, "'")))
}

function svgOf(page: string, id: string): string {
  const section = new RegExp(`id="${id}">([\\s\\S]*?)</section>`).exec(page)?.[1] ?? ''
  return /<svg[\s\S]*?<\/svg>/.exec(section)?.[0] ?? ''
}

/** RFC 4180 lines back to cells (the book's cells hold no quotes or commas). */
const csvRows = (csv: string) => csv.trimEnd().split('\r\n').map((line) => line.split(','))

async function bookConsole(t: Parameters<typeof buildApp>[0]) {
  const app = await buildApp(t, { env: TEST_ENV, clock: () => BOOK_NOW, start: false })
  const f = await signedInConsole(t, { app })
  await app.leadline.accounts.changeSettings(f.accountId, { timeZone: BOOK_ZONE }, operatorContext)
  await seedReportBook(app.leadline.store, f.accountId)
  await app.leadline.runner.catchUp()
  return f
}

t.test('Reports: every figure of the book, a chart beside each table, the CSV equal to the table', async (t) => {
  const f = await bookConsole(t)
  const response = await f.browser.get('/app/reports?days=7')
  t.equal(response.statusCode, 200)
  const page = response.body
  t.match(page, '<a href="/app/reports" aria-current="page">Reports</a>', 'Reports in the navigation')
  t.match(page, '2026-03-05 to 2026-03-11, days in America/Chicago')
  t.match(page, /<dt>Contact rate<\/dt><dd>45\.5 %/, '5 of 11 leads reached')
  t.match(page, 'median 40 s, p90 600 s')
  t.match(page, '50.00 USD')

  const speed = tableOf(page, 'speed-to-lead')
  t.same(speed[0], ['Day', 'Leads called', 'Median (s)', 'p90 (s)'])
  t.same(speed.find((r) => r[0] === '2026-03-10'), ['2026-03-10', '8', '40', '600'], 'median and p90 by hand')
  t.same(speed.find((r) => r[0] === '2026-03-11'), ['2026-03-11', '0', '', ''], 'no call: no figure, not zero')
  t.equal(speed.length, 8, 'a header and the 7 days')
  t.equal([...svgOf(page, 'speed-to-lead').matchAll(/<rect class="bar series-\d" x/g)].length, 2, 'one day with a median and a p90 bar')

  const byDay = tableOf(page, 'contact-rate-by-day')
  t.same(byDay.find((r) => r[0] === '2026-03-10'), ['2026-03-10', '10', '4', '40.0'], '10 leads, 4 reached: 40 %, the lead at 23:30 local on that day')
  t.same(byDay.find((r) => r[0] === '2026-03-11'), ['2026-03-11', '1', '1', '100.0'])
  t.equal([...svgOf(page, 'contact-rate-by-day').matchAll(/<rect class="bar/g)].length, 2, 'a bar for each day with leads')

  t.same(tableOf(page, 'contact-rate-by-source').slice(1), [['Google Ads', '6', '4', '66.7'], ['Facebook', '4', '0', '0.0'], ['Website', '1', '1', '100.0']])
  t.equal([...svgOf(page, 'contact-rate-by-source').matchAll(/<rect class="bar/g)].length, 3)
  t.same(tableOf(page, 'funnel').slice(1), [
    ['New', '11', '100.0'], ['Called', '8', '72.7'], ['Reached', '5', '45.5'], ['Connected', '3', '27.3'], ['Callback booked', '2', '18.2'], ['Qualified', '1', '9.1'], ['Paid', '1', '9.1'],
  ])
  t.equal([...svgOf(page, 'funnel').matchAll(/<rect class="bar/g)].length, 7)
  t.same(tableOf(page, 'speed-distribution').slice(1, 4), [['under 30 s', '2'], ['30 s to 1 min', '3'], ['1 to 2 min', '2']])
  t.same(tableOf(page, 'answer-rate').slice(1), [['Tue', '08:00', '1', '0', '0.0'], ['Tue', '10:00', '7', '4', '57.1']], "on the lead's own clock: the Californian at 08:00")
  const heat = svgOf(page, 'answer-rate')
  t.equal([...heat.matchAll(/<rect class="cell/g)].length, 168, '7 × 24 cells')
  t.equal([...heat.matchAll(/<rect class="cell empty/g)].length, 166, 'two hours had calls')
  t.same(tableOf(page, 'payments').slice(1), [['2026-03-10', '1', '50.00 USD']], 'paid at 23:59 local: the 10th')

  for (const id of ['speed-to-lead', 'speed-distribution', 'contact-rate-by-day', 'contact-rate-by-source', 'funnel', 'answer-rate', 'payments']) {
    t.match(page, `href="/app/reports/${id}.csv?days=7" download`)
    const csv = await f.browser.get(`/app/reports/${id}.csv?days=7`)
    t.equal(csv.statusCode, 200)
    t.match(csv.headers['content-type'], 'text/csv')
    t.match(csv.headers['content-disposition'], `attachment; filename="leadline-${id}-2026-03-05-to-2026-03-11.csv"`)
    const table = tableOf(page, id)
    t.same(csvRows(csv.body), table.length === 2 && table[1]?.[0] === 'None in this period.' ? [table[0]] : table, `${id}: the CSV is the table`)
  }
  t.equal((await f.browser.get('/app/reports/nothing.csv')).statusCode, 404)
  t.match((await f.browser.get('/app/reports?days=5')).body, 'aria-current="page">Last 30 days', 'another period is the default 30 days')
  t.match((await f.browser.get('/app/reports?days=90')).body, '2025-12-12 to 2026-03-11')
})

t.test('get_stats answers what the Reports page shows', async (t) => {
  const f = await bookConsole(t)
  const { key } = await f.app.leadline.accounts.createApiKey(f.accountId, ['read'], 'stats', operatorContext)
  const call = async (args: object) => {
    const response = await f.app.app.inject({ method: 'POST', url: '/api/mcp', headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_stats', arguments: args } } })
    return response.json() as { result?: { structuredContent: any }; error?: { data: { code: string } } }
  }
  const stats = (await call({ days: 7 })).result?.structuredContent
  t.equal(stats.summary, '2026-03-05 to 2026-03-11 (America/Chicago): 11 leads, 5 reached (45.5 %), 3 connected, 1 qualified, 1 paid; speed to lead median 40 s (p90 600 s); collected 50.00 USD.')
  t.same(stats.period, { from: '2026-03-05', to: '2026-03-11', days: 7, time_zone: BOOK_ZONE })
  t.same(stats, (await call({})).result?.structuredContent, 'the last 7 days by default')

  const page = (await f.browser.get('/app/reports?days=7')).body
  const days = tableOf(page, 'contact-rate-by-day').slice(1)
  t.same(days, stats.days.map((d: any) => [d.day, String(d.leads), String(d.reached), d.contact_rate === null ? '' : (d.contact_rate * 100).toFixed(1)]), 'contact rate per day as the page prints it')
  t.same(tableOf(page, 'speed-to-lead').slice(1), stats.days.map((d: any) => [d.day, String(d.called), String(d.speed_to_lead_median_seconds ?? ''), String(d.speed_to_lead_p90_seconds ?? '')]))
  t.same(tableOf(page, 'contact-rate-by-source').slice(1).map((r) => r.slice(1, 3)), stats.sources.map((s: any) => [String(s.leads), String(s.reached)]))
  t.same(tableOf(page, 'answer-rate').slice(1).map((r) => r.slice(2, 4)), stats.answer_rate.map((c: any) => [String(c.calls), String(c.answered)]))
  t.same(stats.payments.totals, [{ currency: 'usd', payments: 1, amount_cents: 5000 }])

  const byDates = (await call({ from: '2026-03-10', to: '2026-03-10' })).result?.structuredContent
  t.match(byDates.totals, { leads: 10, reached: 4, contact_rate: 0.4, speed_to_lead_median_seconds: 40, speed_to_lead_p90_seconds: 600 })
  for (const args of [{ from: '2026-03-10' }, { days: 7, from: '2026-03-10', to: '2026-03-11' }, { from: '2026-03-11', to: '2026-03-10' }, { from: '2025-01-01', to: '2026-03-10' }, { days: 14 }]) {
    t.equal((await call(args)).error?.data.code, 'invalid_arguments', JSON.stringify(args))
  }
})

t.test('Calls: both directions with outcome, who answered, duration, voicemail and source; filters by outcome, source and day', async (t) => {
  const f = await bookConsole(t)
  const page = (await f.browser.get('/app/calls')).body
  t.match(page, '<a href="/app/calls" aria-current="page">Calls</a>')
  const rows = [...page.matchAll(/<tr data-outcome="([a-z_]+)">([\s\S]*?)<\/tr>/g)]
  t.equal(rows.length, 10, '8 placed, 2 inbound')
  const text = (row: string) => row.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim()
  const lead1 = rows.find((r) => (r[2] as string).includes('Book Lead 1<'))?.[2] as string
  t.match(text(lead1), /2026-03-10 10:00 CDT outbound \(speed to lead\) Book Lead 1 Google Ads answered the lead 1 min 01 s/)
  const lead8 = rows.find((r) => (r[2] as string).includes('Book Lead 8<'))?.[2] as string
  t.match(text(lead8), /Facebook a machine answered a machine left$/)
  const inbound = rows.filter((r) => />inbound</.test(r[2] as string)).map((r) => text(r[2] as string))
  t.match(inbound[0], /2026-03-11 00:31 CDT inbound Book Lead 11 Website answered the owner/)
  t.match(inbound[1], /2026-03-10 23:32 CDT inbound Book Lead 10 Facebook missed/)

  const outcomes = async (query: string) => [...(await f.browser.get(`/app/calls?${query}`)).body.matchAll(/<tr data-outcome="([a-z_]+)">/g)].map((m) => m[1])
  t.same(await outcomes('outcome=no_answer'), ['no_answer', 'no_answer', 'no_answer'])
  t.same(await outcomes('outcome=missed'), ['missed'])
  t.same(await outcomes('source=Website'), ['answered'])
  t.same((await outcomes('source=Facebook')).sort(), ['machine', 'missed', 'no_answer'])
  t.same(await outcomes('from=2026-03-11&to=2026-03-11'), ['answered'], "the 11th in the account's zone: the inbound call at 00:31 only")
  t.equal((await outcomes('to=2026-03-10')).length, 9)
  const bad = (await f.browser.get('/app/calls?outcome=won&from=tuesday')).body
  t.match(bad.replaceAll('&#34;', '"'), /role="alert">"won" is not an outcome\. "tuesday" is not a date\./)

  const first = (await f.browser.get('/app/calls')).body
  t.notMatch(first, 'rel="next"', 'ten calls fit one page')
})

t.test('Calls and Reports need a signed-in owner', async (t) => {
  const app = await buildApp(t, { env: TEST_ENV, start: false })
  for (const url of ['/app/calls', '/app/reports', '/app/reports/funnel.csv']) {
    const response = await app.app.inject({ method: 'GET', url })
    t.equal(response.statusCode, 303, url)
    t.match(response.headers.location, '/app/sign-in')
  }
})
