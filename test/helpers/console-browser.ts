/**
 * The console in a real browser (test/e2e): the two widths every page is seen at, a page that records
 * what went wrong on it, signing in through the form, Chromium launched headless, and the page checks
 * (nothing wider than the screen; axe-core's serious and critical violations).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Test } from 'tap'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'

// The browser globals used by callbacks that run inside the page (the project compiles without the DOM lib).
declare const document: { documentElement: { scrollWidth: number } }
declare const window: { innerWidth: number }
interface AxeResult { violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown }> }> }
declare const axe: { run(context: unknown, options: unknown): Promise<AxeResult> }

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** Debian's Chromium, headless, closed when the test ends. */
export async function launchChromium(t: Test): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  t.teardown(() => browser.close())
  return browser
}

export async function fits(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)
}

/** axe-core's serious and critical violations on the page as it stands (WCAG 2.1 A and AA, and best practices). */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  // Evaluated through the debugging protocol, not a <script>: the console's CSP stays as strict as it is.
  await page.evaluate(AXE_SOURCE)
  const result = await page.evaluate(() => axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } }))
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id}: ${v.help} (${JSON.stringify(v.nodes.map((n) => n.target))})`)
}

export const PASSWORD = 'correct horse battery staple'

export const VIEWS = {
  desktop: { viewport: { width: 1280, height: 860 }, isMobile: false, hasTouch: false },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
} as const
export type View = keyof typeof VIEWS

interface Size {
  readonly viewport: { readonly width: number; readonly height: number }
  readonly isMobile: boolean
  readonly hasTouch: boolean
}

/** A page that records every console error and warning (a CSP violation is one), page error and failed request; confirmations are answered yes. */
export async function watchedPage(t: Test, browser: Browser, size: Size): Promise<{ page: Page; context: BrowserContext; problems: string[] }> {
  const context = await browser.newContext({ ...size, deviceScaleFactor: 1 })
  t.teardown(() => context.close())
  const page = await context.newPage()
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`)
  })
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`))
  page.on('dialog', (dialog) => void dialog.accept())
  return { page, context, problems }
}

/** Signs in through the form; the console opens on Home. */
export async function signIn(page: Page, baseUrl: string, email: string, password = PASSWORD): Promise<void> {
  await page.goto(`${baseUrl}/app/sign-in`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await Promise.all([page.waitForURL(`${baseUrl}/app/home`), page.getByRole('button', { name: 'Sign in' }).click()])
}
