/**
 * The owner console at `/app` (issue 10): server-rendered pages, no build step, nothing from a CDN.
 * This plugin holds what every page shares: cookies, form bodies, CSRF protection, the sign-in rate
 * limiter, security headers, and error pages. Each page is its own route module beside it.
 */
import type { FastifyError, FastifyPluginAsync } from 'fastify'
import cookie from '@fastify/cookie'
import csrf from '@fastify/csrf-protection'
import formbody from '@fastify/formbody'
import { DomainError } from '../../domain/shared/decider.ts'
import { StoreUnavailableError } from '../../eventstore/event-store.port.ts'
import { aiAccessRoutes } from './ai-access.route.ts'
import { oauthConsentRoutes } from './oauth-consent.route.ts'
import { assetsRoute } from './assets.route.ts'
import { html } from './html.ts'
import { CONSOLE_PREFIX } from './layout.ts'
import { leadWebhookRoutes } from './lead-webhook.route.ts'
import { facebookLeadAdsRoutes } from './facebook-lead-ads.route.ts'
import { eventsRoutes } from './events.route.ts'
import { leadsRoutes } from './leads.route.ts'
import { appointmentsRoutes } from './appointments.route.ts'
import { phoneNumbersRoutes } from './phone-numbers.route.ts'
import { callsRoutes } from './calls.route.ts'
import { reportsRoutes } from './reports.route.ts'
import { simulateInboundRoutes } from './simulate-inbound.route.ts'
import { homeRoutes } from './home.route.ts'
import { inboxRoutes } from './inbox.route.ts'
import { cookieOptions, CSRF_COOKIE, securityHeaders, sendFailedPage } from './session.ts'
import { settingsRoutes } from './settings.route.ts'
import { signInRoutes } from './sign-in.route.ts'

/** Console forms are small; anything bigger is not one of ours. */
export const CONSOLE_BODY_LIMIT = 16 * 1024

function errorPage(title: string, message: string) {
  return html`<div class="narrow"><h1>${title}</h1><p>${message}</p><p><a href="${CONSOLE_PREFIX}/home">Back to the console</a></p></div>`
}

/** Registered with the prefix `/app`. */
export const consoleRoutes: FastifyPluginAsync = async (fastify) => {
  await fastify.register(cookie)
  await fastify.register(formbody, { bodyLimit: CONSOLE_BODY_LIMIT })
  await fastify.register(csrf, {
    cookieKey: CSRF_COOKIE,
    cookieOpts: { ...cookieOptions(fastify.publicUrl), sameSite: 'strict' },
    // Forms carry the token in a hidden field; nothing else sends one.
    getToken: (request) => {
      const token = (request.body as Record<string, unknown> | undefined)?._csrf
      return typeof token === 'string' ? token : undefined
    },
  })

  fastify.addHook('onRequest', async (_request, reply) => {
    securityHeaders(reply)
  })

  fastify.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.code === 'FST_CSRF_INVALID_TOKEN' || error.code === 'FST_CSRF_MISSING_SECRET') {
      request.log.info({ code: 'csrf_rejected' }, 'console form refused: missing or wrong CSRF token')
      return sendFailedPage(reply, { title: 'Form expired', frame: null, body: errorPage('This form has expired', 'Nothing was changed. Go back, reload the page and try again.') }, 403, { error: 'form_expired', detail: 'the form has no valid CSRF token: nothing was changed' })
    }
    if (error instanceof DomainError) {
      const notFound = error.code.endsWith('_not_found')
      return sendFailedPage(reply, { title: notFound ? 'Not found' : 'Not done', frame: null, body: errorPage(notFound ? 'Not found' : 'That could not be done', `${error.message}.`) }, notFound ? 404 : 400, { error: notFound ? 'not_found' : 'invalid_request', detail: error.message })
    }
    if (error instanceof StoreUnavailableError) {
      request.log.error({ err: error }, 'store unavailable')
      return sendFailedPage(reply.header('retry-after', '5'), { title: 'Unavailable', frame: null, body: errorPage('Leadline cannot save right now', 'Nothing was changed. Try again in a few seconds.') }, 503, { error: 'store_unavailable', detail: 'nothing was changed: try again in a few seconds' })
    }
    if (error.statusCode === 413) return sendFailedPage(reply, { title: 'Too large', frame: null, body: errorPage('That form is too large', 'Nothing was changed.') }, 413, { error: 'payload_too_large', detail: 'the form is too large: nothing was changed' })
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return sendFailedPage(reply, { title: 'Bad request', frame: null, body: errorPage('Bad request', 'Nothing was changed.') }, error.statusCode, { error: 'invalid_request', detail: 'nothing was changed' })
    }
    request.log.error({ err: error }, 'console: unhandled error')
    return sendFailedPage(reply, { title: 'Error', frame: null, body: errorPage('Something went wrong', 'Nothing was shown or changed that should not have been. Try again.') }, 500, { error: 'internal_error', detail: 'internal error' })
  })

  fastify.setNotFoundHandler((_request, reply) =>
    sendFailedPage(securityHeaders(reply), { title: 'Not found', frame: null, body: errorPage('Not found', 'There is no console page at this address.') }, 404, { error: 'not_found', detail: 'there is no console page at this address' }))

  await fastify.register(assetsRoute)
  await fastify.register(signInRoutes)
  await fastify.register(homeRoutes)
  await fastify.register(inboxRoutes)
  await fastify.register(leadsRoutes)
  await fastify.register(appointmentsRoutes)
  await fastify.register(callsRoutes)
  await fastify.register(reportsRoutes)
  await fastify.register(simulateInboundRoutes)
  await fastify.register(leadWebhookRoutes)
  await fastify.register(facebookLeadAdsRoutes)
  await fastify.register(eventsRoutes)
  await fastify.register(aiAccessRoutes)
  await fastify.register(phoneNumbersRoutes)
  await fastify.register(oauthConsentRoutes)
  await fastify.register(settingsRoutes)
}
