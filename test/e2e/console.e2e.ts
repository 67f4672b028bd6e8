/**
 * The owner console in a real browser: Debian's headless Chromium, driven by playwright-core, on a
 * real server. The flow on a desktop: set a password through the one-time link, sign in,
 * create a key with scopes and use it against /api/mcp, rotate the webhook token and see the old
 * one fail, send a test lead and find it in the list and its timeline. Then every page on a phone.
 * No console errors (a CSP violation is one), nothing wider than the screen; screenshots of each
 * page go to docs/screenshots/ (docs/console.md shows them).
 *
 * Run with `npm run test:e2e`. CHROMIUM_PATH overrides /usr/bin/chromium.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { SCREENSHOTS_DIR } from '../../src/http/docs/docs-source.ts'
import t, { type Test } from 'tap'
import { chromium, type Browser, type Page } from 'playwright-core'
import { buildApp, operatorContext } from '../helpers/build-app.ts'
import { freePort } from '../helpers/cli.ts'
import { PASSWORD, signIn, VIEWS, watchedPage } from '../helpers/console-browser.ts'

// The browser globals used by callbacks that run inside the page (the project compiles without the DOM lib).
declare const document: { documentElement: { scrollWidth: number }; activeElement: { className: string } | null }
declare const window: { innerWidth: number }

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
// Saved where the docs serve them from (docs/console.md shows them).
// SCREENSHOTS_DIR is a directory path without a trailing separator: each file goes inside it.
const SCREENSHOTS = `${SCREENSHOTS_DIR}/`
async function fits(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)
}


async function rpc(baseUrl: string, key: string, name: string) {
  const response = await fetch(`${baseUrl}/api/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }),
  })
  return (await response.json()) as { result?: { content: Array<{ text: string }> }; error?: { code: number } }
}

function ingest(baseUrl: string, token: string) {
  return fetch(`${baseUrl}/api/ingest/lead`, { method: 'POST', headers: { 'x-service-token': token, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Jane Doe', phone: '(312) 555-0142', source: 'Spring promo' }) })
}

if (!existsSync(CHROMIUM)) {
  t.fail(`no Chromium at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`)
} else {
  t.test('the owner console in Chromium', async (t) => {
    // The public URL is the address the browser uses, so links and the webhook URL on the pages work.
    const port = await freePort()
    const baseUrl = `http://127.0.0.1:${port}`
    const app = await buildApp(t, { publicUrl: baseUrl })
    await app.app.listen({ port, host: '127.0.0.1' })
    const { account, token: firstToken } = await app.createAccount('Acme Insurance')
    const email = 'owner@acme.example.com'
    // What `leadline user create` does, and the link it prints.
    const link = await app.leadline.users.create(account.accountId, email, operatorContext)
    mkdirSync(SCREENSHOTS, { recursive: true })
    const browser: Browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    })
    t.teardown(() => browser.close())

    await t.test('desktop: the whole flow', async (t) => {
      const { page, context, problems } = await watchedPage(t, browser, VIEWS.desktop)
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl })

      await page.goto(`${baseUrl}/app/set-password?token=${link.token}`)
      t.equal(await page.locator('h1').textContent(), 'Set your password')
      await page.getByLabel('New password').fill(PASSWORD)
      await page.getByLabel('Repeat it').fill(PASSWORD)
      await Promise.all([page.waitForURL(`${baseUrl}/app/sign-in?password-set`), page.getByRole('button', { name: 'Set password' }).click()])
      t.match(await page.locator('.notice').textContent(), 'Your password is set')
      await page.keyboard.press('Tab')
      t.equal(await page.evaluate(() => document.activeElement?.className), 'skip', 'the first Tab reaches "Skip to content"')
      await page.screenshot({ path: `${SCREENSHOTS}console-sign-in-desktop.png` })

      await page.getByLabel('Email').fill(email)
      await page.getByLabel('Password').fill('not my password')
      await page.getByRole('button', { name: 'Sign in' }).click()
      t.match(await page.getByRole('alert').textContent(), 'Wrong email or password.')
      // Chromium logs the 401 page of that wrong password as a console error: the one expected.
      const expected401 = problems.findIndex((p) => p.includes('status of 401'))
      if (expected401 !== -1) problems.splice(expected401, 1)
      await signIn(page, baseUrl, email)
      t.equal(await page.locator('h1').textContent(), 'Call now', 'signing in lands on Home')
      t.equal(await page.locator('nav.nav a[aria-current="page"]').textContent(), 'Home')

      // Setup → AI access: a key with chosen scopes, shown once, copied, used against /api/mcp.
      await page.getByRole('link', { name: 'Setup → AI access' }).click()
      await page.getByLabel('Label').fill('Sales agent')
      await page.getByRole('checkbox', { name: /^dial/ }).check()
      await page.getByRole('button', { name: 'Create key' }).click()
      const key = await page.locator('#new-key').inputValue()
      t.match(key, /^ll_live_[0-9a-z]{32}$/, 'the new key is shown')
      await page.getByRole('button', { name: 'Copy key' }).click()
      await page.locator('#new-key-copy-status', { hasText: 'Copied' }).waitFor()
      t.equal(await page.evaluate('navigator.clipboard.readText()'), key, 'the copy button copies it')
      const used = await rpc(baseUrl, key, 'get_next_actions')
      t.notOk(used.error, 'the key works against /api/mcp')
      t.match(JSON.parse(used.result?.content[0]?.text ?? '{}'), { summary: String, stale_leads: Array })
      t.equal((await rpc(baseUrl, key, 'request_payment')).error?.code, -32003, 'within its scopes only')
      await page.screenshot({ path: `${SCREENSHOTS}console-ai-access-desktop.png` })
      // (A reload would post the form again, as it does for any form; browsers ask first.)
      await page.goto(`${baseUrl}/app/setup/ai-access`)
      t.equal(await page.locator('#new-key').count(), 0, 'shown once only')
      t.match(await page.locator('tr', { hasText: 'Sales agent' }).textContent(), /read\s*dial/)

      // Connections → Lead webhook: rotate, reveal, the old token fails.
      await page.getByRole('link', { name: 'Connections → Lead webhook' }).click()
      t.equal((await ingest(baseUrl, firstToken)).status, 201, 'the first token works')
      await page.getByRole('button', { name: 'Rotate token' }).click()
      await page.locator('#token-title').waitFor()
      t.notOk(await page.locator('#webhook-token').isVisible(), 'the new token is hidden until revealed')
      await page.getByText('Reveal the token').click()
      t.ok(await page.locator('#webhook-token').isVisible(), 'and shown on Reveal')
      const token = await page.locator('#webhook-token').inputValue()
      t.match(token, /^llwh_[0-9a-z]{32}$/)
      t.equal((await ingest(baseUrl, firstToken)).status, 401, 'the old token fails at once')
      t.equal((await ingest(baseUrl, token)).status, 200, 'the new token works (the same person again: an update)')
      t.match(await page.locator('#curl-example').textContent(), `x-service-token: ${token}`, 'the curl example carries it')
      await page.screenshot({ path: `${SCREENSHOTS}console-lead-webhook-desktop.png` })

      // Send a test lead, see the deliveries, find it in the list and its timeline.
      await page.getByRole('button', { name: 'Send a test lead' }).click()
      await page.getByText('Test lead sent.').waitFor()
      t.equal(await page.locator('table tbody tr').count(), 3, 'the deliveries: the two accepted and the test lead; a wrong token is not listed')
      await page.getByRole('link', { name: 'Leads', exact: true }).click()
      t.equal(await page.locator('tbody tr').first().locator('a').textContent(), 'Test Lead', 'newest first in Inbound Leads')
      await page.getByRole('searchbox').fill('jane')
      await page.getByRole('button', { name: 'Search' }).click()
      t.same(await page.locator('tbody tr td:first-child a').allTextContents(), ['Jane Doe'], 'search')
      await page.getByRole('link', { name: 'Clear' }).click()
      await page.screenshot({ path: `${SCREENSHOTS}console-leads-desktop.png` })
      await page.getByRole('link', { name: 'Test Lead' }).click()
      t.equal(await page.locator('h1').textContent(), 'Test Lead')
      const timeline = await page.locator('.timeline li').allTextContents()
      // One event: the lead, the list it joined and why speed to lead did not call.
      t.match(timeline[0], /lead received: Test Lead, \+1\d{10}, test\.lead@example\.com, source "Leadline test", do-not-call; added to list "Inbound Leads"; speed to lead did not call: /)
      t.equal(timeline.length, 1, 'nothing else happened to the test lead')
      await page.screenshot({ path: `${SCREENSHOTS}console-lead-desktop.png`, fullPage: true })

      // Settings: the calling-hours editor.
      await page.getByRole('link', { name: 'Settings' }).click()
      await page.getByRole('checkbox', { name: 'Saturday' }).check()
      await page.getByLabel('Saturday from').fill('10:00')
      await page.getByLabel('Saturday to').fill('14:00')
      await page.getByLabel('Time zone').selectOption('America/Chicago')
      await page.getByRole('button', { name: 'Save settings' }).click()
      await page.getByText('Settings saved.').waitFor()
      t.match((await app.leadline.accounts.require(account.accountId)).settings, { callingHours: 'mon-fri 09:00-18:00, sat 10:00-14:00', timeZone: 'America/Chicago' })
      await page.screenshot({ path: `${SCREENSHOTS}console-settings-desktop.png` })

      t.ok(await fits(page), 'nothing is wider than the screen')
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.waitForURL(`${baseUrl}/app/sign-in?signed-out`)
      await page.goto(`${baseUrl}/app/leads`)
      t.match(page.url(), /\/app\/sign-in\?next=/, 'signed out')
      t.same(problems, [], 'no console errors, CSP violations or failed requests')
    })

    await t.test('phone: every page fits the screen', async (t) => {
      const { page, problems } = await watchedPage(t, browser, VIEWS.phone)
      await page.goto(`${baseUrl}/app/sign-in`)
      await page.screenshot({ path: `${SCREENSHOTS}console-sign-in-phone.png` })
      await signIn(page, baseUrl, email)
      const pages: Array<[string, string]> = [
        ['leads', '/app/leads'], ['lead-webhook', '/app/connections/lead-webhook'], ['ai-access', '/app/setup/ai-access'],
        ['phone-numbers', '/app/setup/phone-numbers?area_code=415'], ['settings', '/app/settings'],
      ]
      for (const [name, path] of pages) {
        await page.goto(`${baseUrl}${path}`)
        t.ok(await fits(page), `${name}: nothing is wider than the screen`)
        await page.screenshot({ path: `${SCREENSHOTS}console-${name}-phone.png` })
      }
      await page.goto(`${baseUrl}/app/leads`)
      await page.locator('tbody tr a').first().click()
      t.ok(await fits(page), 'lead page: nothing is wider than the screen')
      await page.screenshot({ path: `${SCREENSHOTS}console-lead-phone.png` })
      t.same(problems, [], 'no console errors, CSP violations or failed requests')
    })
  })
}
