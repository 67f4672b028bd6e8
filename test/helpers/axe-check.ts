/**
 * An accessibility check of the page a browser shows: axe-core (npm `axe-core`) evaluated in the page
 * through the DevTools protocol, which the page's Content-Security-Policy does not govern, so the
 * console's CSP stays as strict in the test as in use. Answers the serious and critical violations.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

export interface AxeViolation {
  readonly id: string
  readonly impact: string | null
  readonly help: string
  readonly targets: string[]
}

export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE)
  const violations = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => String(n.target)) })))",
  )) as AxeViolation[]
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
}
