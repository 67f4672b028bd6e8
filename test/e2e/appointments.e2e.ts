/**
 * Appointments in a real browser (issue #45): Debian's headless Chromium, driven by playwright-core, on
 * a real server. A lead whose appointment has ended unmarked: Home asks to mark it; the lead's page
 * lists it in the account's zone; the owner presses "No-show"; the page, the timeline and Home say so,
 * and follow-up is scheduled. At desktop and phone widths: nothing wider than the screen, no console
 * error, and axe-core finds no serious or critical violation.
 *
 * Run with `npx tap --disable-coverage test/e2e/appointments.e2e.ts`. CHROMIUM_PATH overrides /usr/bin/chromium.
 */
import { existsSync } from 'node:fs'
import t from 'tap'
import { leadStream } from '../../src/domain/lead/lead.events.ts'
import { buildApp, operatorContext } from '../helpers/build-app.ts'
import { freePort } from '../helpers/cli.ts'
import { accessibilityProblems, CHROMIUM, fits, launchChromium, PASSWORD, signIn, VIEWS, watchedPage } from '../helpers/console-browser.ts'
import { recordBooking } from '../helpers/appointments.ts'

if (!existsSync(CHROMIUM)) {
  t.fail(`no Chromium at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`)
} else {
  t.test('an appointment marked no-show in Chromium', async (t) => {
    // The follow-up call the no-show schedules rings out: the lead stays one who did not come.
    const app = await buildApp(t, { env: { LEADLINE_SIMULATED_OUTCOME: 'no-answer', LEADLINE_SIMULATED_DELAY_MS: '10' } })
    const port = await freePort()
    const baseUrl = `http://127.0.0.1:${port}`
    await app.app.listen({ port, host: '127.0.0.1' })
    const { account, token } = await app.createAccount('Acme Roofing', { speedToLead: false, timeZone: 'America/Chicago', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, callerId: '+13125550100' })
    const email = 'owner@acme-roofing.example.com'
    const link = await app.leadline.users.create(account.accountId, email, operatorContext)
    await app.leadline.users.setPassword(link.token, PASSWORD)
    const response = await app.app.inject({ method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token }, payload: { name: 'Ann Able', phone: '+17735550101', source: 'Spring promo', state: 'IL' } })
    t.equal(response.statusCode, 201)
    const leadId = (response.json() as { leadId: string }).leadId
    const stream = leadStream(account.accountId, '7735550101')
    // Began 90 minutes ago, half an hour long: ended an hour ago, unmarked.
    const start = new Date(Math.floor((Date.now() - 90 * 60_000) / 60_000) * 60_000).toISOString()
    await recordBooking(app.leadline.commands, stream, { appointmentId: 'apt_e2e_ann_0001', start, typeName: 'Roof inspection' })
    await app.leadline.runner.catchUp()

    const browser = await launchChromium(t)

    await t.test('desktop: Home asks to mark it; the owner marks a no-show on the lead page', async (t) => {
      const { page, problems } = await watchedPage(t, browser, VIEWS.desktop)
      await signIn(page, baseUrl, email)
      t.match(await page.locator('.queue li').first().textContent(), /Their Roof inspection appointment ended 20\d\d-\d\d-\d\d \d\d:\d\d C[SD]T: mark attended or no-show\./)
      t.ok(await fits(page))
      t.same(await accessibilityProblems(page), [], 'Home: no serious or critical accessibility violation')
      await page.getByRole('link', { name: 'mark attended or no-show' }).click()
      await page.locator('#appointments').waitFor()
      t.match(await page.locator('#appointments + *, #appointments ~ *').allTextContents().then((x) => x.join(' ')), /Roof inspection\s*20\d\d-\d\d-\d\d \d\d:\d\d C[SD]T to .*ended, not marked/s)
      t.same(await accessibilityProblems(page), [], 'the lead page with its appointments: no serious or critical accessibility violation')
      await page.getByRole('button', { name: 'No-show' }).click()
      await page.locator('[role="status"]', { hasText: 'Marked no-show' }).waitFor()
      t.match(await page.locator('section[aria-labelledby="appointments"]').textContent(), /Roof inspection.*no-show.*Attended/s, 'marked, a correction still possible')
      t.equal(await page.getByRole('button', { name: 'No-show' }).count(), 0, 'no second no-show button')
      t.match(await page.locator('.timeline').textContent(), /You\s*appointment: no-show \(marked by the owner\)/)
      const types = (await app.leadline.store.readStream(stream)).map((e) => e.type)
      const marked = types.indexOf('AppointmentNoShow')
      t.same(types.slice(marked, marked + 2), ['AppointmentNoShow', 'FollowUpScheduled'], 'follow-up calls her again')
      await page.goto(`${baseUrl}/app/home`)
      t.match(await page.locator('.queue li').first().textContent(), /Did not come to their Roof inspection appointment .*: call to book again\./)
      t.same(problems, [], 'no console errors, CSP violations or failed requests')
    })

    await t.test('phone: the lead page with its appointments fits and passes axe', async (t) => {
      const { page, problems } = await watchedPage(t, browser, VIEWS.phone)
      await signIn(page, baseUrl, email)
      await page.goto(`${baseUrl}/app/leads/${leadId}`)
      t.ok(await fits(page), 'nothing is wider than the screen')
      t.same(await accessibilityProblems(page), [])
      t.same(problems, [])
    })
  })
}
