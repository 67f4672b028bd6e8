/**
 * A web form on another site posts a lead with fetch(), as landing-page builders do: JSON and the
 * token in a header, so Chromium sends a CORS preflight first. Without the webhook's answer to it
 * the lead never leaves the page. Run with `npm run test:e2e`.
 */
import { createServer } from 'node:http'
import { existsSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { chromium } from 'playwright-core'
import { buildApp } from '../helpers/build-app.ts'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

declare function fetch(url: string, init: { method: string; headers: Record<string, string>; body: string }): Promise<{ status: number; json(): Promise<unknown> }>

if (!existsSync(CHROMIUM)) {
  t.fail(`no Chromium at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`)
} else {
  t.test("a form's fetch() from another origin reaches the webhook and reads its answer", async (t) => {
    const built = await buildApp(t)
    const { account, token } = await built.createAccount('Landing Pages Inc')
    const base = await built.listen()
    // The landing page: another origin (localhost, another port) than the webhook's 127.0.0.1.
    const site = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Get a quote</title><form></form>'))
    await new Promise<void>((resolve) => site.listen(0, 'localhost', resolve))
    t.teardown(() => new Promise<void>((resolve) => site.close(() => resolve())))
    const siteUrl = `http://localhost:${(site.address() as AddressInfo).port}/`

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] })
    t.teardown(() => browser.close())
    const page = await browser.newPage()
    await page.goto(siteUrl)

    const post = (headers: Record<string, string>, body: Record<string, string>) =>
      page.evaluate(
        async ({ url, headers, body }) => {
          try {
            const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) })
            return { status: response.status, body: await response.json() }
          } catch (error) {
            return { status: 0, body: String(error) }
          }
        },
        { url: `${base}/api/ingest/lead`, headers, body },
      )

    const sent = await post({ 'content-type': 'application/json', 'x-service-token': token }, { name: 'Ana Ruiz', phone: '(312) 555-0193', source: 'Landing page' })
    t.equal(sent.status, 201, `the preflight passed and the lead was taken (${JSON.stringify(sent.body)})`)
    t.match(sent.body, { created: true, phone: '+13125550193', lists: ['Inbound Leads'] }, "and the page's script reads the answer")
    await built.leadline.runner.catchUp()
    t.match(built.leadline.inboundLeads.get(account.accountId, { phoneLast10: '3125550193' }), { fullName: 'Ana Ruiz', source: 'Landing page' })

    const refused = await post({ 'content-type': 'application/json', 'x-service-token': 'llwh_wrong' }, { phone: '(312) 555-0194' })
    t.same(refused, { status: 401, body: { error: 'invalid token' } }, 'an error is readable too')
  })
}
