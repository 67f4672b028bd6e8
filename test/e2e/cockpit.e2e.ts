/**
 * The owner's cockpit (issue #44) in a real browser: Debian's headless Chromium, driven by
 * playwright-core, on a real server with the real Twilio adapter pointed at the fake. On a seeded book:
 * Home's queue and its Call button (the owner's phone rung first), the Inbox and its count, a lead's
 * texts and a reply sent; the leads list by status. At desktop and phone widths: nothing wider than the
 * screen, no console error (a CSP violation is one), and axe-core finds no serious or critical
 * violation on any of these pages. Screenshots go to docs/screenshots/ (docs/console.md shows them).
 *
 * Run with `npx tap --disable-coverage test/e2e/cockpit.e2e.ts`. CHROMIUM_PATH overrides /usr/bin/chromium.
 */
import { existsSync, mkdirSync } from 'node:fs'
import t, { type Test } from 'tap'
import type { Page } from 'playwright-core'
import { SCREENSHOTS_DIR } from '../../src/http/docs/docs-source.ts'
import { buildApp, operatorContext } from '../helpers/build-app.ts'
import { freePort } from '../helpers/cli.ts'
import { accessibilityProblems, CHROMIUM, fits, launchChromium, PASSWORD, signIn, VIEWS, watchedPage, type View } from '../helpers/console-browser.ts'
import { DIALING, fakeTwilio, placedCalls, PUBLIC_URL, twilioEnv } from '../helpers/dialing-app.ts'
import { inboundText } from '../helpers/inbound-text.ts'

const SCREENSHOTS = `${SCREENSHOTS_DIR}/`
const OWNER_PHONE = '+13125550177'

if (!existsSync(CHROMIUM)) {
  t.fail(`no Chromium at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`)
} else {
  t.test("the owner's cockpit in Chromium", async (t) => {
    const fake = await fakeTwilio(t)
    // The book arrived 20 minutes ago: the server's clock runs that far ahead once it is seeded.
    let ahead = 0
    const app = await buildApp(t, { publicUrl: PUBLIC_URL, env: twilioEnv(fake), clock: () => new Date(Date.now() + ahead) })
    const port = await freePort()
    const baseUrl = `http://127.0.0.1:${port}`
    await app.app.listen({ port, host: '127.0.0.1' })
    const { account, token } = await app.createAccount('Acme Roofing', { ...DIALING, speedToLead: false, timeZone: 'America/Chicago', onAnswer: `greeting+bridge:${OWNER_PHONE}` })
    const email = 'owner@acme-roofing.example.com'
    const link = await app.leadline.users.create(account.accountId, email, operatorContext)
    await app.leadline.users.setPassword(link.token, PASSWORD)
    for (const [name, phone, extra] of [['Ann Able', '+17735550101', {}], ['Ben Baker', '+17735550102', {}], ['Cara Cole', '+17735550103', { dnc: 'yes' }]] as const) {
      const response = await app.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token }, payload: { name, phone, source: 'Spring promo', state: 'IL', ...extra } })
      t.equal(response.statusCode, 201)
    }
    t.equal(await inboundText(app.app, fake, 'Can you call me after 5? My roof leaks over the porch.', { from: '+17735550102' }), 200)
    ahead = 20 * 60_000
    await app.leadline.runner.catchUp()

    mkdirSync(SCREENSHOTS, { recursive: true })
    const browser = await launchChromium(t)

    async function signedInPage(t: Test, view: View) {
      const { page, problems } = await watchedPage(t, browser, VIEWS[view])
      await signIn(page, baseUrl, email)
      return { page, problems }
    }

    /** The page fits, passes axe, and is saved for the docs. */
    async function check(t: Test, page: Page, name: string, view: View, show?: string) {
      t.ok(await fits(page), `${name} (${view}): nothing is wider than the screen`)
      t.same(await accessibilityProblems(page), [], `${name} (${view}): no serious or critical accessibility violation`)
      if (show !== undefined) await page.locator(show).evaluate((element) => (element as unknown as { scrollIntoView(): void }).scrollIntoView())
      await page.screenshot({ path: `${SCREENSHOTS}console-${name}-${view}.png`, fullPage: view === 'desktop' })
    }

    await t.test('desktop: the queue, a click-to-call, the Inbox and a reply', async (t) => {
      const { page, problems } = await signedInPage(t, 'desktop')
      t.equal(await page.locator('h1').textContent(), 'Call now')
      t.same(await page.locator('.queue h2').allTextContents(), ['Ben Baker', 'Ann Able'], 'the reply first, then the new lead; the do-not-call lead is not there')
      t.match(await page.locator('.queue li').first().textContent(), /Texted you back 20\d\d-\d\d-\d\d \d\d:\d\d C[SD]T: read the texts and call\./)
      t.match(await page.locator('nav.nav a', { hasText: 'Inbox' }).textContent(), 'Inbox 1 unread')
      await check(t, page, 'home', 'desktop')

      await page.getByRole('button', { name: 'Call Ann Able' }).click()
      t.match(await page.locator('.notice').textContent(), `Calling your phone (${OWNER_PHONE}) now. Press 1 when you answer and Leadline dials Ann Able.`)
      t.same(placedCalls(fake).map((c) => c.form.To), [OWNER_PHONE], "the owner's phone is rung, not the lead's")

      await page.getByRole('link', { name: /^Inbox/ }).click()
      t.equal(await page.locator('h1').textContent(), 'Inbox')
      await check(t, page, 'inbox', 'desktop')
      await page.getByRole('link', { name: 'Ben Baker' }).click()
      t.match(await page.locator('.thread li.in').textContent(), 'Can you call me after 5? My roof leaks over the porch.')
      await page.getByLabel(/^Reply/).fill('Sure, 5:30 today. Mike')
      await page.getByRole('button', { name: 'Send text' }).click()
      await page.locator('.thread li.out', { hasText: 'Sure, 5:30 today. Mike' }).waitFor()
      t.match(await page.locator('.thread li.out').textContent(), /by you.*sent \(the carrier took it\)/s)
      t.equal(fake.messageRequests().filter((r) => r.form.To === '+17735550102').length, 1, 'the text went out once')
      t.notMatch(await page.locator('nav.nav').textContent(), 'unread', 'read: the Inbox count is gone')
      await check(t, page, 'conversation', 'desktop')

      await page.goto(`${baseUrl}/app/leads?status=replied`)
      t.same(await page.locator('tbody tr td:first-child a').allTextContents(), ['Ben Baker'], 'the leads list by status')
      await page.getByLabel('Status').selectOption('do_not_call')
      await page.getByRole('button', { name: 'Search' }).click()
      t.same(await page.locator('tbody tr td:first-child a').allTextContents(), ['Cara Cole'])
      await check(t, page, 'leads-status', 'desktop')
      t.same(problems, [], 'no console errors, CSP violations or failed requests')
    })

    await t.test('phone: every cockpit page fits and passes axe', async (t) => {
      const { page, problems } = await signedInPage(t, 'phone')
      await check(t, page, 'home', 'phone')
      await page.goto(`${baseUrl}/app/inbox`)
      await check(t, page, 'inbox', 'phone')
      await page.goto(`${baseUrl}/app/leads?status=replied`)
      await check(t, page, 'leads-status', 'phone')
      await page.locator('tbody tr a').first().click()
      await check(t, page, 'conversation', 'phone', '#conversation')
      t.same(problems, [], 'no console errors, CSP violations or failed requests')
    })
  })
}
