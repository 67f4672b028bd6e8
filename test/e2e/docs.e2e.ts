/**
 * The docs in a real browser: Debian's headless Chromium, driven by playwright-core, renders the
 * home page and the webhook page on a real server, on a desktop and on a phone. No console errors
 * (a Content-Security-Policy violation is one), the sidebar links every page, nothing is wider than
 * the screen, and a screenshot of each view goes to test/e2e/screenshots/.
 *
 * Run with `npm run test:e2e`. CHROMIUM_PATH overrides /usr/bin/chromium.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { chromium, type Browser, type Page } from 'playwright-core'
import { loadDocsSource } from '../../src/http/docs/docs-source.ts'
import { buildApp } from '../helpers/build-app.ts'

// The browser globals used by callbacks that run inside the page (the project compiles without the DOM lib).
declare const document: { documentElement: { scrollWidth: number }; querySelector(selector: string): { getBoundingClientRect(): { right: number; left: number } } | null }
declare const window: { innerWidth: number }
declare function getComputedStyle(element: unknown): { display: string; borderTopStyle: string }

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const SCREENSHOTS = fileURLToPath(new URL('./screenshots/', import.meta.url))
const VIEWS = [
  { name: 'desktop', viewport: { width: 1280, height: 860 }, isMobile: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true },
] as const

const source = loadDocsSource()
const expectedNav = source.manifest.sections.flatMap((s) => s.pages).map((name) => (name === 'index' ? '/docs' : `/docs/${name}`))

if (!existsSync(CHROMIUM)) {
  t.fail(`no Chromium at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`)
} else {
  t.test('the docs render in Chromium on a desktop and a phone', async (t) => {
    // A fixed public URL keeps the screenshots the same from run to run (links within the docs are paths).
    const baseUrl = await (await buildApp(t, { publicUrl: 'https://leads.example.com' })).listen()
    mkdirSync(SCREENSHOTS, { recursive: true })
    const browser: Browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    })
    t.teardown(() => browser.close())

    for (const view of VIEWS) {
      await t.test(view.name, async (t) => {
        const context = await browser.newContext({ viewport: view.viewport, isMobile: view.isMobile, hasTouch: view.isMobile, deviceScaleFactor: 1 })
        t.teardown(() => context.close())
        const page: Page = await context.newPage()
        const problems: string[] = []
        page.on('console', (message) => {
          if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`)
        })
        page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
        page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`))
        page.on('response', (response) => {
          if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`)
        })

        const home = await page.goto(`${baseUrl}/docs`, { waitUntil: 'load' })
        t.equal(home?.status(), 200, 'the home page loads')
        t.equal(await page.title(), 'Quick start · Leadline docs')
        t.equal(await page.locator('main h1').textContent(), 'Quick start')
        const nav = await page.locator('aside nav a').evaluateAll((links) => links.map((a) => a.getAttribute('href')))
        t.same(nav, expectedNav, 'the sidebar links every page, in order')
        t.equal(await page.locator('aside nav a[aria-current="page"]').getAttribute('href'), '/docs', 'and marks the current one')
        t.equal(await page.locator('.layout').evaluate((el) => getComputedStyle(el).display), 'grid', 'the style sheet applied (the CSP allowed it)')
        t.ok(await page.locator('.code pre').first().isVisible(), 'code blocks show')
        t.equal(await page.locator('.code').first().evaluate((el) => getComputedStyle(el).borderTopStyle), 'solid', 'code blocks are styled')
        t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'nothing is wider than the screen')
        const sidebarBeside = await page.evaluate(() => {
          const aside = document.querySelector('aside')?.getBoundingClientRect()
          const main = document.querySelector('main')?.getBoundingClientRect()
          return Boolean(aside && main && aside.right <= main.left + 1)
        })
        t.equal(sidebarBeside, view.name === 'desktop', view.name === 'desktop' ? 'the sidebar is beside the page' : 'the sidebar is above the page')
        await page.screenshot({ path: `${SCREENSHOTS}docs-index-${view.name}.png` })

        await Promise.all([page.waitForURL(`${baseUrl}/docs/webhook`), page.locator('aside nav a[href="/docs/webhook"]').click()])
        t.equal(await page.locator('main h1').textContent(), 'Lead webhook', 'a sidebar link opens the page')
        t.equal(await page.locator('aside nav a[aria-current="page"]').getAttribute('href'), '/docs/webhook')
        t.ok(await page.locator('table').first().isVisible(), 'tables show')
        t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'wide tables and code scroll inside the page, not the page itself')
        const tested = await page.locator('.code-head .tested').count()
        t.ok(tested > 5, `runnable examples are marked (${tested})`)
        await page.screenshot({ path: `${SCREENSHOTS}docs-webhook-${view.name}.png` })

        await page.goto(`${baseUrl}/docs/webhook#status-codes`, { waitUntil: 'load' })
        const top = await page.locator('#status-codes').evaluate((el) => el.getBoundingClientRect().top)
        t.ok(top >= 0 && top < 200, 'an anchor scrolls its heading into view')

        t.same(problems, [], 'no console errors, failed requests or error responses')
      })
    }
  })
}
