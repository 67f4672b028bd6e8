/**
 * OAuth over plain HTTP on loopback, as on a laptop (issue #41): the server listens on 127.0.0.1 with
 * its public URL there, clients use the real fetch, and the owner's browser keeps its cookies over
 * real requests (no TLS, so no Secure cookies). The clock moves forward to expire tokens.
 */
import type { Test } from 'tap'
import { buildApp, BROWSER_ACCEPT, type TestApp } from '../../helpers/build-app.ts'
import { freePort } from '../../helpers/cli.ts'
import { ownerWithPassword, PASSWORD, TEST_ENV } from '../console/console-helpers.ts'

export interface PageResponse {
  readonly statusCode: number
  readonly headers: Record<string, string | undefined>
  readonly body: string
}

/** A browser over real HTTP: a cookie jar, the last form's CSRF token, redirects left to the caller. */
export class HttpBrowser {
  readonly cookies = new Map<string, string>()
  csrf = ''

  constructor(readonly origin: string) {}

  private async keep(response: Response): Promise<PageResponse> {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';')
      const at = pair.indexOf('=')
      const name = pair.slice(0, at).trim()
      const value = pair.slice(at + 1).trim()
      if (value === '' || /max-age=0/i.test(cookie)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    const body = await response.text()
    const token = /name="_csrf" value="([^"]+)"/.exec(body)?.[1]
    if (token) this.csrf = token
    return { statusCode: response.status, headers: Object.fromEntries(response.headers), body }
  }

  private headers(): Record<string, string> {
    return { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '), accept: BROWSER_ACCEPT }
  }

  async get(url: string): Promise<PageResponse> {
    return this.keep(await fetch(new URL(url, this.origin), { headers: this.headers(), redirect: 'manual' }))
  }

  async post(url: string, fields: Record<string, string | string[]> = {}): Promise<PageResponse> {
    const form = new URLSearchParams()
    if (!('_csrf' in fields)) form.append('_csrf', this.csrf)
    for (const [name, value] of Object.entries(fields)) for (const v of Array.isArray(value) ? value : [value]) form.append(name, v)
    return this.keep(await fetch(new URL(url, this.origin), {
      method: 'POST', body: form, redirect: 'manual', headers: { ...this.headers(), 'content-type': 'application/x-www-form-urlencoded' },
    }))
  }
}

export interface LoopbackFixture {
  readonly app: TestApp
  readonly origin: string
  readonly resource: string
  readonly accountId: string
  readonly browser: HttpBrowser
  /** Moves the server's clock forward. */
  advance(seconds: number): void
}

/** LEADLINE_OAUTH=on with LEADLINE_PUBLIC_URL=http://127.0.0.1:PORT, listening there, an owner signed in. */
export async function loopbackOAuthApp(t: Pick<Test, 'testdir' | 'teardown'>): Promise<LoopbackFixture> {
  let offsetMs = 0
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const app = await buildApp(t, { env: TEST_ENV, publicUrl: origin, oauth: true, clock: () => new Date(Date.now() + offsetMs) })
  await app.app.listen({ port, host: '127.0.0.1' })
  const { account } = await app.createAccount('Acme Insurance')
  const email = `owner-${account.accountId}@example.com`
  await ownerWithPassword(app, account.accountId, email)
  const browser = new HttpBrowser(origin)
  await browser.get('/app/sign-in')
  const signedIn = await browser.post('/app/sign-in', { email, password: PASSWORD })
  if (signedIn.statusCode !== 303) throw new Error(`sign-in failed: ${signedIn.statusCode} ${signedIn.body.slice(0, 300)}`)
  return { app, origin, resource: `${origin}/api/mcp`, accountId: account.accountId, browser, advance: (seconds) => { offsetMs += seconds * 1000 } }
}

/** Where a redirect sends the browser: a path on the server, or the full URL when it leaves it. */
export function redirectOf(response: PageResponse, origin: string): string {
  if (response.statusCode !== 303 && response.statusCode !== 302) throw new Error(`expected a redirect, got ${response.statusCode}: ${response.body.slice(0, 300)}`)
  const to = String(response.headers.location)
  return to.startsWith(origin) ? to.slice(origin.length) : to
}

/** The owner from the authorization URL to the client's callback: the consent page, the answer, the redirect back. */
export async function consentOver(fixture: Pick<LoopbackFixture, 'origin' | 'browser'>, authorizationUrl: URL, scopes: readonly string[], decision: 'allow' | 'deny' = 'allow'): Promise<{ callback: URL; page: string }> {
  const toConsent = redirectOf(await fixture.browser.get(`${authorizationUrl.pathname}${authorizationUrl.search}`), fixture.origin)
  const page = await fixture.browser.get(toConsent)
  if (page.statusCode !== 200) throw new Error(`consent page: ${page.statusCode} ${page.body.slice(0, 300)}`)
  const resume = redirectOf(await fixture.browser.post(toConsent, { scopes: [...scopes], decision }), fixture.origin)
  const back = redirectOf(await fixture.browser.get(resume), fixture.origin)
  return { callback: new URL(back), page: page.body }
}
