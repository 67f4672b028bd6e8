/**
 * Calls and Reports in a real browser (issue #44): Debian's headless Chromium, driven by
 * playwright-core, on a real server holding the seeded book of test/helpers/report-book.ts. The
 * charts are drawn with a bar per value and a cell per hour of the book, the Calls filters narrow the
 * list, both pages fit a phone, no console error or CSP violation, and axe-core finds no serious or
 * critical violation. Screenshots go to docs/screenshots/ (docs/console.md shows them).
 *
 * Run with `npx tap --disable-coverage test/e2e/reports.e2e.ts`. CHROMIUM_PATH overrides /usr/bin/chromium.
 */
import { existsSync, mkdirSync } from 'node:fs'
import t, { type Test } from 'tap'
import { chromium, type Browser, type Page } from 'playwright-core'
import { SCREENSHOTS_DIR } from '../../src/http/docs/docs-source.ts'
import { buildApp, operatorContext } from '../helpers/build-app.ts'
import { freePort } from '../helpers/cli.ts'
import { PASSWORD, signIn, watchedPage } from '../helpers/console-browser.ts'
import { seriousViolations } from '../helpers/axe-check.ts'
import { BOOK_NOW, BOOK_ZONE, seedReportBook } from '../helpers/report-book.ts'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const EMAIL = 'owner@book.example.com'
const SIZES = {
  desktop: { viewport: { width: 1280, height: 900 }, isMobile: false, hasTouch: false },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
} as const

/** A signed-in page that records console errors (a CSP violation is one) and failed requests. */
async function signedInPage(t: Test, browser: Browser, size: keyof typeof SIZES, baseUrl: string): Promise<{ page: Page; problems: string[] }> {
  const { page, problems } = await watchedPage(t, browser, SIZES[size])
  await signIn(page, baseUrl, EMAIL)
  return { page, problems }
}

const bars = (page: Page, figure: string) => page.locator(`#${figure} svg rect.bar:not(.legend)`).count()
const widthFits = (page: Page) => page.evaluate('document.documentElement.scrollWidth <= window.innerWidth') as Promise<boolean>

if (!existsSync(CHROMIUM)) {
  t.fail(`no Chromium at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`)
} else {
  t.test('Calls and Reports in Chromium', async (t) => {
    const port = await freePort()
    const baseUrl = `http://127.0.0.1:${port}`
    const app = await buildApp(t, { publicUrl: baseUrl, clock: () => BOOK_NOW, start: false, env: { LEADLINE_SCRYPT_LOG_N: '10' } })
    await app.app.listen({ port, host: '127.0.0.1' })
    const { account } = await app.createAccount('Acme Roofing', { timeZone: BOOK_ZONE })
    const link = await app.leadline.users.create(account.accountId, EMAIL, operatorContext)
    await app.leadline.users.setPassword(link.token, PASSWORD)
    await seedReportBook(app.leadline.store, account.accountId)
    await app.leadline.runner.catchUp()
    mkdirSync(SCREENSHOTS_DIR, { recursive: true })
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'] })
    t.teardown(() => browser.close())

    await t.test('desktop: the charts of the book, the Calls filters, accessible', async (t) => {
      const { page, problems } = await signedInPage(t, browser, 'desktop', baseUrl)
      await page.getByRole('link', { name: 'Reports', exact: true }).click()
      await page.getByRole('link', { name: 'Last 7 days' }).click()
      t.equal(await page.locator('h1').textContent(), 'Reports')
      t.equal(await page.locator('nav.nav a[aria-current="page"]').textContent(), 'Reports')
      t.equal(await bars(page, 'speed-to-lead'), 2, 'one day with calls: its median and p90')
      t.equal(await bars(page, 'speed-distribution'), 9, 'a bar per bucket')
      t.equal(await bars(page, 'contact-rate-by-day'), 2, 'a bar per day with leads')
      t.equal(await bars(page, 'contact-rate-by-source'), 3, 'a bar per source')
      t.equal(await bars(page, 'funnel'), 7, 'a bar per stage')
      t.equal(await page.locator('#answer-rate svg rect.cell').count(), 168, '7 × 24 cells')
      t.equal(await page.locator('#answer-rate svg rect.cell:not(.empty)').count(), 2, 'two hours with calls')
      const funnel = await page.getByRole('table', { name: 'Funnel' }).locator('tbody tr').allInnerTexts()
      t.match(funnel[3], /Connected\s+3\s+27\.3/, 'the table beside the chart carries the numbers')
      const box = await page.locator('#funnel svg').boundingBox()
      t.ok(box !== null && box.width > 300 && box.height > 100, 'the chart is drawn at a readable size')
      t.same(await seriousViolations(page), [], 'axe: no serious or critical violation on Reports')
      await page.screenshot({ path: `${SCREENSHOTS_DIR}/console-reports-desktop.png` })
      const href = await page.getByRole('link', { name: /^Download CSV\W+Funnel$/ }).getAttribute('href')
      const csv = await page.request.get(`${baseUrl}${href}`)
      t.match(csv.headers()['content-disposition'], 'leadline-funnel-2026-03-05-to-2026-03-11.csv')
      t.same((await csv.text()).trimEnd().split('\r\n').slice(1).map((line) => line.split(',').join(' ')), funnel.map((row) => row.split(/\s+/).join(' ')), 'the CSV holds the rows the table shows')

      await page.getByRole('link', { name: 'Calls', exact: true }).click()
      t.equal(await page.locator('tbody tr').count(), 10, 'both directions')
      await page.getByLabel('Outcome').selectOption('no_answer')
      await Promise.all([page.waitForURL(/outcome=no_answer/), page.getByRole('button', { name: 'Filter' }).click()])
      t.same(await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => (r as unknown as { dataset: { outcome: string } }).dataset.outcome)), ['no_answer', 'no_answer', 'no_answer'])
      await page.getByLabel('Outcome').selectOption('')
      await page.getByLabel('Source').selectOption('Facebook')
      await page.getByLabel('From').fill('2026-03-10')
      await page.getByLabel('To').fill('2026-03-10')
      await Promise.all([page.waitForURL(/source=Facebook/), page.getByRole('button', { name: 'Filter' }).click()])
      t.equal(await page.locator('tbody tr').count(), 3, "Facebook's leads on the 10th: leads 7 and 8 called, lead 10's missed inbound call at 23:32")
      t.same(await seriousViolations(page), [], 'axe: no serious or critical violation on Calls')
      await page.screenshot({ path: `${SCREENSHOTS_DIR}/console-calls-desktop.png` })
      t.ok(await widthFits(page))
      t.same(problems, [], 'no console errors, CSP violations or failed requests')
    })

    await t.test('phone: both pages fit, accessible', async (t) => {
      const { page, problems } = await signedInPage(t, browser, 'phone', baseUrl)
      await page.goto(`${baseUrl}/app/reports?days=7`)
      t.ok(await widthFits(page), 'Reports: nothing wider than the screen')
      t.equal(await page.locator('#answer-rate svg rect.cell').count(), 168)
      t.same(await seriousViolations(page), [], 'axe on a phone: Reports')
      await page.screenshot({ path: `${SCREENSHOTS_DIR}/console-reports-phone.png` })
      await page.goto(`${baseUrl}/app/calls`)
      t.ok(await widthFits(page), 'Calls: nothing wider than the screen')
      t.same(await seriousViolations(page), [], 'axe on a phone: Calls')
      await page.screenshot({ path: `${SCREENSHOTS_DIR}/console-calls-phone.png` })
      t.same(problems, [], 'no console errors, CSP violations or failed requests')
    })
  })
}
