/**
 * The console in a real browser (test/e2e): the two widths every page is seen at, a page that records
 * what went wrong on it, and signing in through the form.
 */
import type { Test } from 'tap'
import type { Browser, BrowserContext, Page } from 'playwright-core'

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
