/**
 * Signing in and out, and setting a password through a one-time link. Sign-in attempts are limited
 * per email and address (SIGN_IN_LIMIT failures in SIGN_IN_WINDOW) and per address across emails;
 * an attempt is counted before its password is checked, and a limited one is never checked.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { DomainError } from '../../domain/shared/decider.ts'
import { normaliseEmail, SESSION_ABSOLUTE_MS } from '../../domain/user/user.decider.ts'
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, PasswordHasherBusyError } from '../../commands/password-hasher.ts'
import { html, type Html } from './html.ts'
import { CONSOLE_PREFIX, csrfField } from './layout.ts'
import { cookieOptions, formField, requireSession, safeNext, sendFailedPage, sendPage, SESSION_COOKIE, signedIn } from './session.ts'
import { SignInAttempts } from './sign-in-attempts.ts'
import { consoleForm, consolePage } from './console.schema.ts'

/** Failed sign-ins allowed per email and address in SIGN_IN_WINDOW_MS. */
export const SIGN_IN_LIMIT = 5
/** Failed sign-ins allowed per address, whatever the email, in SIGN_IN_WINDOW_MS. */
export const SIGN_IN_ADDRESS_LIMIT = 50
export const SIGN_IN_WINDOW_MS = 15 * 60_000

function signInForm(csrfToken: string, options: { email?: string; next?: string; error?: Html | string | null }): Html {
  return html`<div class="narrow">
<h1>Sign in</h1>
${options.error ? html`<p class="error" role="alert" id="sign-in-error">${options.error}</p>` : ''}
<form method="post" action="${CONSOLE_PREFIX}/sign-in" class="panel">
  ${csrfField(csrfToken)}
  ${options.next ? html`<input type="hidden" name="next" value="${options.next}">` : ''}
  <label for="email">Email</label>
  <input type="email" id="email" name="email" autocomplete="username" required maxlength="254" value="${options.email ?? ''}"${options.error ? html` aria-describedby="sign-in-error"` : ''}>
  <label for="password">Password</label>
  <input type="password" id="password" name="password" autocomplete="current-password" required maxlength="${MAX_PASSWORD_LENGTH}">
  <div class="actions"><button type="submit">Sign in</button></div>
</form>
<p class="muted">No password yet? The operator creates your user with <code>leadline user create</code> and gives you a one-time link to set it.</p>
</div>`
}

function setPasswordForm(csrfToken: string, token: string, email: string, error: string | null): Html {
  return html`<div class="narrow">
<h1>Set your password</h1>
<p>For <strong>${email}</strong>. At least ${MIN_PASSWORD_LENGTH} characters; a passphrase of a few words is best.</p>
${error ? html`<p class="error" role="alert" id="password-error">${error}</p>` : ''}
<form method="post" action="${CONSOLE_PREFIX}/set-password" class="panel">
  ${csrfField(csrfToken)}
  <input type="hidden" name="token" value="${token}">
  <input type="text" name="username" value="${email}" autocomplete="username" readonly hidden>
  <label for="password">New password</label>
  <input type="password" id="password" name="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}"${error ? html` aria-describedby="password-error"` : ''}>
  <label for="confirm">Repeat it</label>
  <input type="password" id="confirm" name="confirm" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}">
  <div class="actions"><button type="submit">Set password</button></div>
</form>
</div>`
}

const LINK_INVALID = html`<div class="narrow"><h1>This link no longer works</h1>
<p>A set-password link works once, for 24 hours. Ask the operator for a new one (<code>leadline user link</code>).</p>
<p><a href="${CONSOLE_PREFIX}/sign-in">Go to sign in</a></p></div>`

function minutes(ms: number): number {
  return Math.max(1, Math.ceil(ms / 60_000))
}

export const signInRoutes: FastifyPluginAsync = async (fastify) => {
  const users = fastify.leadline.users
  const attempts = new SignInAttempts(SIGN_IN_WINDOW_MS, () => fastify.leadline.clock().getTime())

  /** The sign-in form again, refused: 401 for a wrong email or password, 429 after too many. */
  const showSignIn = (reply: FastifyReply, status: 401 | 429, options: Parameters<typeof signInForm>[1] & { error: string }) =>
    sendFailedPage(reply, { title: 'Sign in', frame: null, body: signInForm(reply.generateCsrf(), options) }, status, { error: status === 401 ? 'sign_in_failed' : 'rate_limited', detail: options.error })

  fastify.get('/', { schema: consolePage() }, async (request, reply) => {
    const principal = await users.authenticate(request.cookies[SESSION_COOKIE])
    return reply.redirect(`${CONSOLE_PREFIX}/${principal ? 'home' : 'sign-in'}`, 303)
  })

  fastify.get<{ Querystring: { next?: string; 'signed-out'?: string; 'password-set'?: string } }>('/sign-in', { schema: consolePage('next', 'signed-out', 'password-set') }, async (request, reply) => {
    if (await users.authenticate(request.cookies[SESSION_COOKIE])) return reply.redirect(safeNext(request.query.next), 303)
    const notice = request.query['signed-out'] !== undefined ? 'You are signed out.' : request.query['password-set'] !== undefined ? 'Your password is set: sign in with it.' : null
    const next = typeof request.query.next === 'string' ? safeNext(request.query.next) : undefined
    return sendPage(reply, { title: 'Sign in', frame: null, notice, body: signInForm(reply.generateCsrf(), next ? { next } : {}) })
  })

  fastify.post('/sign-in', { schema: consoleForm(), preHandler: fastify.csrfProtection }, async (request: FastifyRequest, reply) => {
    const email = formField(request.body, 'email').trim()
    const password = formField(request.body, 'password')
    const next = safeNext(formField(request.body, 'next') || undefined)
    // request.ip is the client's behind a proxy only when LEADLINE_TRUST_PROXY names it.
    const keys = [`${request.ip}|${normaliseEmail(email)}`, request.ip] as const
    // Counted now, before any await: guesses that arrive together are each counted before any is checked.
    const waitMs = attempts.take([[keys[0], SIGN_IN_LIMIT], [keys[1], SIGN_IN_ADDRESS_LIMIT]])
    if (waitMs > 0) {
      request.log.warn({ code: 'sign_in_rate_limited' }, 'sign-in refused: too many failed attempts')
      reply.header('retry-after', String(Math.ceil(waitMs / 1000)))
      return showSignIn(reply, 429, {
        email,
        error: `Too many failed sign-ins. Wait ${minutes(waitMs)} minute${minutes(waitMs) === 1 ? '' : 's'} and try again.`,
      })
    }
    let signed: Awaited<ReturnType<typeof users.signIn>>
    try {
      signed = email === '' || password === '' ? null : await users.signIn(email, password, request.id)
    } catch (error) {
      attempts.giveBack(keys)
      if (!(error instanceof PasswordHasherBusyError)) throw error
      // Never checked: the attempt is given back and the client told to come again shortly.
      request.log.warn({ code: 'sign_in_busy' }, 'sign-in refused: too many passwords waiting to be checked')
      reply.header('retry-after', '5')
      return showSignIn(reply, 429, { email, next, error: 'Too many sign-ins at once. Try again in a few seconds.' })
    }
    if (!signed) {
      request.log.info({ code: 'invalid_credentials' }, 'sign-in failed')
      return showSignIn(reply, 401, { email, next, error: 'Wrong email or password.' })
    }
    attempts.giveBack(keys)
    reply.setCookie(SESSION_COOKIE, signed.token, cookieOptions(fastify.publicUrl, SESSION_ABSOLUTE_MS / 1000))
    return reply.redirect(next, 303)
  })

  fastify.post('/sign-out', { schema: consoleForm(), onRequest: requireSession(fastify), preHandler: fastify.csrfProtection }, async (request, reply) => {
    await users.signOut(signedIn(request).principal, request.id)
    reply.clearCookie(SESSION_COOKIE, cookieOptions(fastify.publicUrl))
    return reply.redirect(`${CONSOLE_PREFIX}/sign-in?signed-out`, 303)
  })

  fastify.get<{ Querystring: { token?: string } }>('/set-password', { schema: consolePage('token') }, async (request, reply) => {
    const token = typeof request.query.token === 'string' ? request.query.token : ''
    const user = await users.userOfSetupToken(token)
    if (!user) return sendFailedPage(reply, { title: 'Link expired', frame: null, body: LINK_INVALID }, 410, { error: 'link_expired', detail: 'the set-password link is expired, used or unknown' })
    return sendPage(reply, { title: 'Set your password', frame: null, body: setPasswordForm(reply.generateCsrf(), token, user.email, null) })
  })

  fastify.post('/set-password', { schema: consoleForm(), preHandler: fastify.csrfProtection }, async (request, reply) => {
    const token = formField(request.body, 'token')
    const password = formField(request.body, 'password')
    const user = await users.userOfSetupToken(token)
    if (!user) return sendFailedPage(reply, { title: 'Link expired', frame: null, body: LINK_INVALID }, 410, { error: 'link_expired', detail: 'the set-password link is expired, used or unknown' })
    const again = (error: string) => sendFailedPage(reply, { title: 'Set your password', frame: null, body: setPasswordForm(reply.generateCsrf(), token, user.email, error) }, 400, { error: 'invalid_request', detail: error })
    if (password !== formField(request.body, 'confirm')) return again('The two passwords differ.')
    try {
      await users.setPassword(token, password, request.id)
    } catch (error) {
      if (error instanceof DomainError && error.code !== 'setup_link_invalid') return again(`${error.message}.`)
      throw error
    }
    // Any session in this browser belonged to the old password, which no longer signs anyone in.
    reply.clearCookie(SESSION_COOKIE, cookieOptions(fastify.publicUrl))
    return reply.redirect(`${CONSOLE_PREFIX}/sign-in?password-set`, 303)
  })
}
