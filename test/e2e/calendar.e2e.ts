/**
 * Setup → Calendar in a real browser (issue #45): Debian's headless Chromium, driven by playwright-core,
 * on a real server. The owner connects the simulated calendar, adds an appointment type (a refused
 * length shown beside its field first) and sees it listed; the disconnect confirmation. At desktop and
 * phone widths: nothing wider than the screen, no console error (a CSP violation is one), and axe-core
 * finds no serious or critical violation. Screenshots go to docs/screenshots/ (docs/console.md shows them).
 *
 * Run with `npx tap --disable-coverage test/e2e/calendar.e2e.ts`. CHROMIUM_PATH overrides /usr/bin/chromium.
 */
import { existsSync, mkdirSync } from 'node:fs'
import t, { type Test } from 'tap'
import { chromium, type Browser, type Page } from 'playwright-core'
import { SCREENSHOTS_DIR } from '../../src/http/docs/docs-source.ts'
import { buildApp, operatorContext } from '../helpers/build-app.ts'
import { freePort } from '../helpers/cli.ts'
import { PASSWORD, signIn, VIEWS, watchedPage, type View } from '../helpers/console-browser.ts'
import { seriousViolations } from '../helpers/axe-check.ts'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const widthFits = (page: Page) => page.evaluate('document.documentElement.scrollWidth <= window.innerWidth') as Promise<boolean>

if (!existsSync(CHROMIUM)) {
  t.fail(`no Chromium at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`)
} else {
  t.test('Setup → Calendar in Chromium', async (t) => {
    const port = await freePort()
    const baseUrl = `http://127.0.0.1:${port}`
    const app = await buildApp(t, { publicUrl: baseUrl, start: false, env: { LEADLINE_SCRYPT_LOG_N: '10' } })
    await app.app.listen({ port, host: '127.0.0.1' })
    const email = 'owner@acme-roofing.example.com'
    const { account } = await app.createAccount('Acme Roofing', { timeZone: 'America/Chicago' })
    const link = await app.leadline.users.create(account.accountId, email, operatorContext)
    await app.leadline.users.setPassword(link.token, PASSWORD)
    mkdirSync(SCREENSHOTS_DIR, { recursive: true })
    const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'] })
    t.teardown(() => browser.close())

    async function signedInPage(t: Test, view: View) {
      const { page, problems } = await watchedPage(t, browser, VIEWS[view])
      await signIn(page, baseUrl, email)
      return { page, problems }
    }

    await t.test('desktop: connect the simulated calendar, add a type, see it listed', async (t) => {
      const { page, problems } = await signedInPage(t, 'desktop')
      await page.getByRole('link', { name: /Setup → Calendar/ }).click()
      t.equal(await page.locator('h1').textContent(), 'Setup → Calendar')
      t.equal(await page.locator('nav.nav a[aria-current="page"]').textContent(), 'Setup → Calendar')
      t.match(await page.locator('#calendar-status').textContent(), /No calendar is connected/)
      t.same(await seriousViolations(page), [], 'axe: nothing connected yet')

      await Promise.all([page.waitForURL(/\?connected$/), page.getByRole('button', { name: 'Use the simulated calendar' }).click()])
      t.match(await page.getByRole('status').textContent(), /Connected: Simulated calendar/)
      t.match(await page.locator('#calendar-status').textContent(), /Simulated \(demo\)/)

      await page.locator('#type-name').fill('Roof estimate')
      await page.locator('#type-durationMinutes').fill('2')
      await Promise.all([page.waitForURL(`${baseUrl}/app/setup/calendar/types`), page.getByRole('button', { name: 'Add appointment type' }).click()])
      t.equal(await page.locator('#type-durationMinutes-error').textContent(), 'Length: must be at least 5. Nothing was saved.', 'the refusal beside the field')
      t.equal(await page.locator('#type-durationMinutes').getAttribute('aria-describedby'), 'type-durationMinutes-error')
      t.equal(await page.locator('#type-name').inputValue(), 'Roof estimate', 'what was typed is kept')
      t.same(await seriousViolations(page), [], 'axe: a refused form')
      t.match(problems.splice(0), [/status of 400 \(Bad Request\)/], 'a refused form answers 400, as every refused console form does; nothing else went wrong')

      await page.locator('#type-durationMinutes').fill('60')
      await page.locator('#type-bufferMinutes').fill('15')
      await page.locator('#type-maxPerDay').fill('4')
      await page.locator('#type-calendarId').selectOption({ index: 0 })
      await Promise.all([page.waitForURL(/\?saved$/), page.getByRole('button', { name: 'Add appointment type' }).click()])
      const row = page.locator('#types tbody tr[data-type="roof-estimate"]')
      t.match(await row.innerText(), /Roof estimate\s+60 min\s+15 min\s+business hours\s+120 min\s+4\s+Simulated calendar/)
      t.same(await seriousViolations(page), [], 'axe: connected, with a type')
      t.ok(await widthFits(page), 'nothing wider than the screen')
      await page.screenshot({ path: `${SCREENSHOTS_DIR}/console-calendar-desktop.png`, fullPage: true, clip: { x: 0, y: 0, width: VIEWS.desktop.viewport.width, height: 1080 } })

      await page.getByRole('link', { name: 'Disconnect…' }).click()
      t.match(await page.locator('h1').textContent(), /^Disconnect Simulated calendar/)
      t.same(await seriousViolations(page), [], 'axe: the confirm step')
      await page.getByRole('link', { name: 'Cancel' }).click()
      t.match(await page.locator('#calendar-status').textContent(), /Simulated \(demo\)/, 'cancelled: still connected')
      t.same(problems, [], 'no console errors, CSP violations or failed requests')
    })

    await t.test('phone: the page fits and is accessible', async (t) => {
      const { page, problems } = await signedInPage(t, 'phone')
      await page.goto(`${baseUrl}/app/setup/calendar`)
      t.equal(await page.locator('#types tbody tr').count(), 1, 'the type added on the desktop')
      t.ok(await widthFits(page), 'nothing wider than the screen')
      t.same(await seriousViolations(page), [], 'axe on a phone')
      await page.screenshot({ path: `${SCREENSHOTS_DIR}/console-calendar-phone.png` })
      t.same(problems, [], 'no console errors, CSP violations or failed requests')
    })
  })
}
