/**
 * The simulated provider's payment page (payments without Stripe keys, the embedded default):
 * `GET /pay/{session}` shows the business, what is paid for and the amount under a large "no card
 * will be charged" label, with one button; `POST /pay/{session}` settles the request through the
 * same settlement code as Stripe's webhook (an expired link is recorded as expired instead).
 * `GET /pay/thanks` is where a paid Stripe Checkout sends the customer back.
 */
import { randomUUID } from 'node:crypto'
import type { FastifyInstance, FastifyPluginAsync, FastifyReply } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { recordSettlement } from '../../commands/record-settlement.command.ts'
import { formatAmount } from '../../domain/account/pay-link-text.ts'
import { leadDecider } from '../../domain/lead/lead.decider.ts'
import type { PaymentRequestRecord } from '../../domain/lead/payments/payments.decider.ts'
import { SIMULATED_SESSION_ID } from '../../integrations/payments/simulated/index.ts'
import { htmlPage, sendErrorPage } from '../errors.ts'
import { PAGE_FOR_PEOPLE } from '../route-schemas.ts'

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string)

function pageHtml(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escape(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:30rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
.simulated{border:4px dashed #b45309;background:#fffbeb;color:#92400e;font-size:1.5rem;font-weight:700;text-align:center;padding:1rem;margin-bottom:1.5rem}
.amount{font-size:2.5rem;font-weight:700;margin:.5rem 0}
button{font-size:1.25rem;padding:.75rem 1.5rem;width:100%;border:0;border-radius:.5rem;background:#1d4ed8;color:#fff;cursor:pointer}
.status{font-size:1.25rem;font-weight:600}
</style></head><body>
${body}
</body></html>`
}

/** The pay page's headers: never cached, indexed or referred. */
function privatePage(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').header('x-robots-tag', 'noindex')
}

function page(reply: FastifyReply, title: string, body: string): FastifyReply {
  return privatePage(reply).code(200).type('text/html; charset=utf-8').send(pageHtml(title, body))
}

const BANNER = '<div class="simulated" role="alert">SIMULATED PAYMENT<br>No card will be charged</div>'

function notFound(reply: FastifyReply): FastifyReply {
  const html = pageHtml('Payment link not found', '<h1>Payment link not found</h1><p>This payment link does not exist. Ask the business for a new one.</p>')
  return sendErrorPage(privatePage(reply), 404, htmlPage(html), { error: 'not_found', detail: 'payment link not found' })
}

/** The request behind a simulated session, read from the lead's own stream (fresh after a settlement). */
async function findRequest(fastify: FastifyInstance, sessionId: string) {
  const { leadline } = fastify
  if (leadline.paymentsProvider.name !== 'simulated' || !SIMULATED_SESSION_ID.test(sessionId)) return null
  const row = leadline.payLinks.bySessionId(sessionId) ?? (await leadline.runner.catchUp(), leadline.payLinks.bySessionId(sessionId))
  if (!row) return null
  const account = await leadline.accounts.get(row.accountId)
  const { state } = await leadline.commands.load(row.stream, leadDecider)
  const request = state.payments.requests[row.requestId]
  return account && request ? { account, request, stream: row.stream } : null
}

function expired(request: PaymentRequestRecord, now: Date): boolean {
  return request.expiresAt !== null && Date.parse(request.expiresAt) <= now.getTime()
}

export const payPageRoutes: FastifyPluginAsync = async (fastify) => {
  // The button posts an empty form: the body is never read.
  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 4096 }, (_request, _body, done) => done(null, null))

  fastify.get('/pay/thanks', { schema: PAGE_FOR_PEOPLE }, async (_request, reply) =>
    page(reply, 'Thank you', '<h1>Thank you</h1><p>Your payment was received. You can close this page.</p>'),
  )

  const routes = fastify.withTypeProvider<ZodTypeProvider>()
  // A page for people, not API: out of /docs/openapi.json. Any session id is looked up; an unknown one is the 404 page.
  const schema = { ...PAGE_FOR_PEOPLE, params: z.object({ session: z.string() }) }
  routes.get('/pay/:session', { schema }, async (request, reply) => {
    const found = await findRequest(fastify, request.params.session)
    if (!found) return notFound(reply)
    const { account, request: pay } = found
    const amount = formatAmount(pay.amountCents, pay.currency)
    const head = `${BANNER}<p>${escape(account.name)}</p><h1>${escape(pay.description)}</h1><p class="amount">${escape(amount)}</p>`
    const now = fastify.leadline.clock()
    let action: string
    if (pay.status === 'settled') action = '<p class="status">Paid (simulated). No card was charged.</p>'
    else if (pay.status === 'expired' || expired(pay, now)) action = '<p class="status">This payment link has expired.</p>'
    else if (pay.status === 'failed') action = '<p class="status">This payment failed.</p>'
    else {
      action = `<form method="post" action="/pay/${escape(request.params.session)}"><button type="submit">Pay ${escape(amount)} (simulated)</button></form>
<p>This is Leadline's simulated payment page: the button records the payment as settled, exactly as a real card payment would be recorded. No card details are asked for and no money moves.</p>`
    }
    return page(reply, `${account.name}: ${amount}`, head + action)
  })

  routes.post('/pay/:session', { schema }, async (request, reply) => {
    const found = await findRequest(fastify, request.params.session)
    if (!found) return notFound(reply)
    const { request: pay, stream } = found
    const now = fastify.leadline.clock()
    const result = await recordSettlement(fastify.leadline, {
      provider: 'simulated',
      eventId: `evt_sim_${randomUUID().replaceAll('-', '')}`,
      outcome: expired(pay, now) ? 'expired' : 'settled',
      connectedAccount: null,
      sessionId: request.params.session,
      leadStream: stream,
      requestId: pay.requestId,
      amountCents: pay.amountCents,
      currency: pay.currency,
      paymentIntentId: null,
      at: now.toISOString(),
    })
    if (result.kind === 'ignored') request.log.warn({ reason: result.reason }, 'simulated payment not recorded')
    // Post/redirect/get: a reload shows the page, it does not post again.
    return reply.code(303).header('location', `/pay/${encodeURIComponent(request.params.session)}`).send()
  })
}
