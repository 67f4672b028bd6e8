/**
 * A signed-in browser for app.inject: a cookie jar, the CSRF token of the last page, form posts,
 * and an account with an owner whose password is set. Passwords are hashed with a cheap scrypt
 * (LEADLINE_SCRYPT_LOG_N) so the suite stays fast; the default cost is tested on its own.
 */
import type { LightMyRequestResponse } from 'fastify'
import type { TestTap } from '../../helpers/build-app.ts'
import { BROWSER_ACCEPT, buildApp, operatorContext, type TestApp } from '../../helpers/build-app.ts'

export const PASSWORD = 'correct horse battery staple'
export const TEST_ENV = { LEADLINE_SIMULATED_DELAY_MS: '20', LEADLINE_SCRYPT_LOG_N: '10' }

export class Browser {
  readonly cookies = new Map<string, string>()
  csrf = ''
  last: LightMyRequestResponse | null = null

  constructor(readonly app: TestApp) {}

  private keep(response: LightMyRequestResponse): LightMyRequestResponse {
    for (const cookie of response.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
      const expired = cookie.value === '' || cookie.maxAge === 0 || (cookie.expires !== undefined && cookie.expires.getTime() <= Date.now())
      if (expired) this.cookies.delete(cookie.name)
      else this.cookies.set(cookie.name, cookie.value)
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(response.body)?.[1]
    if (token) this.csrf = token
    this.last = response
    return response
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.keep(await this.app.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader(), accept: BROWSER_ACCEPT } }))
  }

  /** Posts a form; `_csrf` is the last page's token unless given. Arrays become repeated fields. */
  async post(url: string, fields: Record<string, string | string[]> = {}): Promise<LightMyRequestResponse> {
    const form = new URLSearchParams()
    if (!('_csrf' in fields)) form.append('_csrf', this.csrf)
    for (const [name, value] of Object.entries(fields)) for (const v of Array.isArray(value) ? value : [value]) form.append(name, v)
    return this.keep(
      await this.app.app.inject({
        method: 'POST', url, payload: form.toString(), headers: { cookie: this.cookieHeader(), accept: BROWSER_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
      }),
    )
  }

  async signIn(email: string, password = PASSWORD): Promise<LightMyRequestResponse> {
    await this.get('/app/sign-in')
    return this.post('/app/sign-in', { email, password })
  }
}

export interface ConsoleFixture {
  readonly app: TestApp
  readonly accountId: string
  readonly token: string
  readonly email: string
  readonly browser: Browser
}

/** An app, an account, its owner with PASSWORD set, and a browser signed in as them. */
export async function signedInConsole(t: TestTap, options: { email?: string; signIn?: boolean; app?: TestApp; clock?: () => Date } = {}): Promise<ConsoleFixture> {
  const app = options.app ?? (await buildApp(t, { env: TEST_ENV, ...(options.clock ? { clock: options.clock } : {}) }))
  const { account, token } = await app.createAccount('Acme Insurance')
  const email = options.email ?? `owner-${account.accountId}@example.com`
  await ownerWithPassword(app, account.accountId, email)
  const browser = new Browser(app)
  if (options.signIn !== false) {
    const response = await browser.signIn(email)
    if (response.statusCode !== 303) throw new Error(`sign-in failed: ${response.statusCode} ${response.body.slice(0, 500)}`)
  }
  return { app, accountId: account.accountId, token, email, browser }
}

/** Creates the owner through the service, as the CLI does, and sets their password through the link. */
export async function ownerWithPassword(app: TestApp, accountId: string, email: string, password = PASSWORD): Promise<void> {
  const link = await app.leadline.users.create(accountId, email, operatorContext)
  await app.leadline.users.setPassword(link.token, password)
}
