/**
 * OAuth sign-in for tests: an app with LEADLINE_OAUTH=on behind its https public URL, reached through
 * app.inject (a fetch for the MCP SDK that plays the TLS terminator), an owner signed in to the
 * console, and the SDK's OAuthClientProvider kept in memory. `signIn` runs the whole authorization
 * code flow the way an MCP client does: discovery, registration, the browser's consent, the token.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Test } from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { buildApp, type TestApp } from '../../helpers/build-app.ts'
import { Browser, signedInConsole, TEST_ENV } from '../console/console-helpers.ts'

export const PUBLIC = 'https://leadline.test'
export const RESOURCE = `${PUBLIC}/api/mcp`
export const CALLBACK = 'http://127.0.0.1:33418/callback'

/** A fetch that answers from the app in memory: what a client reaching the public URL would get. */
export function injectFetch(app: TestApp): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init)
    const url = new URL(request.url)
    if (url.origin !== PUBLIC) throw new Error(`the test fetch reaches only ${PUBLIC}, not ${url.origin}`)
    const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer())
    const response = await app.app.inject({
      method: request.method as 'GET',
      url: `${url.pathname}${url.search}`,
      headers: Object.fromEntries(request.headers),
      ...(body === undefined ? {} : { payload: body }),
    })
    const headers = new Headers()
    for (const [name, value] of Object.entries(response.headers)) {
      for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) headers.append(name, String(v))
    }
    const nullBody = response.statusCode === 204 || response.statusCode === 202 || response.statusCode === 304
    return new Response(nullBody ? null : response.rawPayload, { status: response.statusCode, headers })
  }) as typeof fetch
}

/** The SDK's client-side OAuth state, in memory. */
export class MemoryOAuthProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined
  saved: OAuthTokens | undefined
  verifier = ''
  authorizationUrl: URL | null = null

  constructor(readonly name = 'Test Agent', readonly scope = 'read write dial') {}

  get redirectUrl(): string {
    return CALLBACK
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: this.scope,
    }
  }

  clientInformation() {
    return this.client
  }

  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info
  }

  tokens() {
    return this.saved
  }

  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens
  }

  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }

  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }

  codeVerifier() {
    return this.verifier
  }
}

export interface OAuthFixture {
  readonly app: TestApp
  readonly accountId: string
  readonly browser: Browser
  readonly fetch: typeof fetch
}

export async function oauthApp(t: Test, options: { store?: 'sqlite' } = {}): Promise<OAuthFixture> {
  const app = await buildApp(t, { env: TEST_ENV, publicUrl: PUBLIC, oauth: true, ...options })
  const { accountId, browser } = await signedInConsole(t, { app })
  return { app, accountId, browser, fetch: injectFetch(app) }
}

/** Where a 303 sends the browser, as a path on the app (or the full URL when it leaves it). */
export function location(response: { statusCode: number; headers: Record<string, unknown> }): string {
  if (response.statusCode !== 303 && response.statusCode !== 302) throw new Error(`expected a redirect, got ${response.statusCode}`)
  const to = String(response.headers.location)
  return to.startsWith(PUBLIC) ? to.slice(PUBLIC.length) : to
}

/**
 * The owner's browser from the authorization URL to the client's callback: the consent page, the
 * form with `scopes` ticked (or denied), the redirect back. Returns the callback URL.
 */
export async function consent(browser: Browser, authorizationUrl: URL, scopes: readonly string[], decision: 'allow' | 'deny' = 'allow'): Promise<{ callback: URL; page: string }> {
  const toConsent = location(await browser.get(`${authorizationUrl.pathname}${authorizationUrl.search}`))
  const page = await browser.get(toConsent)
  if (page.statusCode !== 200) throw new Error(`consent page: ${page.statusCode} ${page.body.slice(0, 300)}`)
  const posted = await browser.post(toConsent, { scopes: [...scopes], decision })
  const resume = location(posted)
  const back = location(await browser.get(resume))
  return { callback: new URL(back), page: page.body }
}

/** The SDK's whole flow: connect (401 → discovery, registration, authorization URL), consent, finishAuth, connect again. */
export async function signIn(t: Pick<Test, 'teardown'>, fixture: OAuthFixture, provider: MemoryOAuthProvider, scopes: readonly string[]): Promise<Client> {
  const first = new StreamableHTTPClientTransport(new URL(RESOURCE), { authProvider: provider, fetch: fixture.fetch })
  const client = new Client({ name: 'oauth-test', version: '1.0.0' })
  try {
    await client.connect(first)
    throw new Error('connected without signing in')
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error
  }
  if (!provider.authorizationUrl) throw new Error('the SDK did not ask for authorization')
  const { callback } = await consent(fixture.browser, provider.authorizationUrl, scopes)
  const code = callback.searchParams.get('code')
  if (!code) throw new Error(`no code: ${callback.href}`)
  await first.finishAuth(code)
  return connected(t, fixture, provider)
}

export async function connected(t: Pick<Test, 'teardown'>, fixture: OAuthFixture, provider: MemoryOAuthProvider): Promise<Client> {
  const client = new Client({ name: 'oauth-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(RESOURCE), { authProvider: provider, fetch: fixture.fetch }))
  t.teardown(() => client.close())
  return client
}

/** A client registered by hand (RFC 7591), as a client without the SDK would. */
export async function register(fixture: OAuthFixture, name = 'Raw Client'): Promise<string> {
  const response = await fixture.fetch(`${PUBLIC}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: [CALLBACK], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
  })
  if (response.status !== 201) throw new Error(`registration: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { client_id: string }).client_id
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

export function authorizationUrl(clientId: string, params: Record<string, string>): URL {
  const url = new URL(`${PUBLIC}/oauth/authorize`)
  url.search = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: CALLBACK, scope: 'read write dial', resource: RESOURCE, state: 'st', ...params }).toString()
  return url
}

export async function tokenRequest(fixture: OAuthFixture, params: Record<string, string>): Promise<{ status: number; body: Record<string, string> }> {
  const response = await fixture.fetch(`${PUBLIC}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  })
  return { status: response.status, body: (await response.json()) as Record<string, string> }
}

/** The authorization code flow by hand: a code for `scopes`, and what the client needs to exchange it. */
export async function codeFor(fixture: OAuthFixture, scopes: readonly string[]): Promise<{ clientId: string; code: string; verifier: string }> {
  const clientId = await register(fixture)
  const { verifier, challenge } = pkce()
  const { callback } = await consent(fixture.browser, authorizationUrl(clientId, { code_challenge: challenge, code_challenge_method: 'S256' }), scopes)
  const code = callback.searchParams.get('code')
  if (!code) throw new Error(`no code: ${callback.href}`)
  return { clientId, code, verifier }
}

/** An access token for the signed-in owner's account with `scopes`. */
export async function accessToken(fixture: OAuthFixture, scopes: readonly string[]): Promise<string> {
  const { clientId, code, verifier } = await codeFor(fixture, scopes)
  const { status, body } = await tokenRequest(fixture, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: CALLBACK, resource: RESOURCE })
  if (status !== 200 || !body.access_token) throw new Error(`token: ${status} ${JSON.stringify(body)}`)
  return body.access_token
}
