/**
 * Signed-in requests: the session cookie, the hook that turns it into the request's user and
 * account (or sends the browser to sign in), the CSRF check every form post passes, and the
 * response headers every console page carries.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { CookieSerializeOptions } from '@fastify/cookie'
import type { AccountState } from '../../domain/account/account.decider.ts'
import type { SessionPrincipal } from '../../commands/users.ts'
import { CONSOLE_PREFIX, renderPage, type NavKey, type PageInput, type SignedInFrame } from './layout.ts'
import { htmlPage, sendErrorPage, type PageFailure } from '../errors.ts'

export const SESSION_COOKIE = 'leadline_session'
export const CSRF_COOKIE = 'leadline_csrf'

/** Nothing but this origin's own files; no inline script or style; no framing; forms post only here. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ')

export interface ConsoleRequestContext {
  readonly principal: SessionPrincipal
  readonly account: AccountState
}

declare module 'fastify' {
  interface FastifyRequest {
    consoleContext?: ConsoleRequestContext
  }
}

/** Cookie attributes: httpOnly, SameSite=Lax, scoped to /app, Secure whenever the public URL is https. */
export function cookieOptions(publicUrl: string, maxAgeSeconds?: number): CookieSerializeOptions {
  return {
    path: CONSOLE_PREFIX,
    httpOnly: true,
    sameSite: 'lax',
    secure: publicUrl.startsWith('https:'),
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  }
}

export function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply.headers({
    'content-security-policy': CONSOLE_CSP,
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'cross-origin-opener-policy': 'same-origin',
    'cache-control': 'no-store',
  })
}

/** Where an owner starts: who to call now. */
export const HOME = `${CONSOLE_PREFIX}/home`

/** Where to go after signing in: a console path only, never another site. */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith(`${CONSOLE_PREFIX}/`) || next.startsWith('//') || /[\\\s]/.test(next)) return HOME
  if (next.startsWith(`${CONSOLE_PREFIX}/sign-`) || next.startsWith(`${CONSOLE_PREFIX}/set-password`)) return HOME
  return next
}

/** The onRequest hook of every signed-in page: a live session and its account, or off to sign in. */
export function requireSession(fastify: FastifyInstance) {
  return async function (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const principal = await fastify.leadline.users.authenticate(request.cookies[SESSION_COOKIE])
    const account = principal ? await fastify.leadline.accounts.get(principal.accountId) : null
    if (!principal || !account) {
      if (request.cookies[SESSION_COOKIE] !== undefined) reply.clearCookie(SESSION_COOKIE, cookieOptions(fastify.publicUrl))
      const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : ''
      return reply.redirect(`${CONSOLE_PREFIX}/sign-in${next}`, 303)
    }
    request.consoleContext = { principal, account }
    return undefined
  }
}

/** The request's signed-in context (only on routes behind requireSession). */
export function signedIn(request: FastifyRequest): ConsoleRequestContext {
  const context = request.consoleContext
  if (!context) throw new Error('console route without requireSession')
  return context
}

/** The account as it is after this request changed it (a new key, a rotated token), for the page that answers. */
export async function refreshAccount(request: FastifyRequest, accounts: { require(accountId: string): Promise<AccountState> }): Promise<void> {
  const context = signedIn(request)
  request.consoleContext = { ...context, account: await accounts.require(context.account.accountId) }
}

/** A posted form field as text: '' when absent or not a single value. */
export function formField(body: unknown, name: string): string {
  const value = (body as Readonly<Record<string, unknown>> | undefined)?.[name]
  return typeof value === 'string' ? value : ''
}

/** The header and navigation of a signed-in page, with a CSRF token for its forms. */
export function frameOf(request: FastifyRequest, reply: FastifyReply, current: NavKey | null): SignedInFrame {
  const { principal, account } = signedIn(request)
  const unread = request.server.leadline.conversations.countUnread(account.accountId)
  return { email: principal.user.email, accountName: account.name, csrfToken: reply.generateCsrf(), current, unread }
}

/** A console page that did what was asked (200, or 201 when it created something). */
export function sendPage(reply: FastifyReply, input: PageInput, status: 200 | 201 = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(renderPage(input))
}

/** A console page that failed: the page to a browser, the JSON error body to any other client (sendErrorPage). */
export function sendFailedPage(reply: FastifyReply, input: PageInput, status: number, failure: PageFailure): FastifyReply {
  return sendErrorPage(reply, status, htmlPage(renderPage(input)), failure)
}

/** Who acts, for the events a console request causes: the signed-in user, by id. */
export function actingUser(request: FastifyRequest): { actor: { kind: 'user'; id: string }; correlationId: string } {
  return { actor: { kind: 'user', id: signedIn(request).principal.user.userId }, correlationId: request.id }
}
