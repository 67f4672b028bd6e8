/**
 * Connections → Events (issue #28): the account's outbound events subscriptions (subscribe a URL,
 * rotate its signing secret, remove it) and the last deliveries with their answers, failed ones
 * retryable. A signing secret is shown only on the page that answers its subscription or rotation,
 * behind "Reveal"; afterwards only its first characters. Nothing here ever holds a sealed secret.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { DomainError } from '../../domain/shared/decider.ts'
import { OUTBOUND_EVENT_TYPES } from '../../domain/outbound-events/outbound-events.ts'
import { html, type Html } from './html.ts'
import { CONSOLE_PREFIX, copyButton, csrfField, timeElement } from './layout.ts'
import { actingUser, frameOf, requireSession, sendPage, signedIn } from './session.ts'
import { consoleForm, consolePage } from './console.schema.ts'

const PATH = '/connections/events'
const SHOWN = 20
const ID = /^sub_[0-9a-z]{1,40}$/

export const eventsRoutes: FastifyPluginAsync = async (fastify) => {
  const leadline = fastify.leadline
  const subscriptions = leadline.eventSubscriptions

  const show = async (request: FastifyRequest, reply: FastifyReply, extra: { secret?: { subscriptionId: string; secret: string }; notice?: string | null }) => {
    const frame = frameOf(request, reply, 'events')
    const { account } = signedIn(request)
    const zone = account.settings.timeZone
    const list = await subscriptions.list(account.accountId)
    const deliveries = subscriptions.deliveries(account.accountId, { limit: SHOWN })
    const secretBlock: Html | string = extra.secret
      ? html`<section class="secret-box" aria-labelledby="secret-title">
<h2 id="secret-title">Signing secret of ${extra.secret.subscriptionId}</h2>
<p><strong>Store it now: it is shown only on this page.</strong> Your receiver verifies every request with it (<a href="/docs/events#verify-the-signature">how</a>).</p>
<details class="reveal"><summary>Reveal the secret</summary>
<p><input type="text" id="signing-secret" value="${extra.secret.secret}" readonly aria-label="Signing secret" class="mono"></p>
</details>
${copyButton('signing-secret', 'Copy secret')}
</section>`
      : ''
    const body = html`<h1>Connections → Events</h1>
<p>Leadline posts what happens to your leads (a lead received, a call answered, a payment settled) to the URLs you subscribe, signed per the Standard Webhooks spec. A receiver that is down is retried for 24 hours; it never holds up your leads or calls.</p>
${secretBlock}
<h2>Subscriptions</h2>
${list.length === 0
    ? html`<p class="muted">No subscriptions yet.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Secret</th><th scope="col">Since</th><th scope="col">Actions</th></tr></thead>
<tbody>${list.map((s) => html`<tr>
<td class="mono">${s.url}</td>
<td>${s.types === null ? 'all' : s.types.join(', ')}</td>
<td><code>${s.secretHint}</code></td>
<td>${timeElement(s.subscribedAt, zone)}</td>
<td><form method="post" action="${CONSOLE_PREFIX}${PATH}/${s.subscriptionId}/rotate" class="inline" data-confirm="Rotate the signing secret? Deliveries from now on are signed with the new one only.">${csrfField(frame.csrfToken)}<button type="submit" class="secondary">Rotate secret</button></form>
<form method="post" action="${CONSOLE_PREFIX}${PATH}/${s.subscriptionId}/remove" class="inline" data-confirm="Remove this subscription? Its pending deliveries are cancelled.">${csrfField(frame.csrfToken)}<button type="submit" class="danger">Remove</button></form></td>
</tr>`)}</tbody></table></div>`}
<h2>Subscribe a URL</h2>
<p class="muted">An <code>https</code> URL on a public address: loopback, private and other internal addresses are refused, and redirects are not followed (<a href="/docs/events#receivers">receivers</a>).</p>
<form method="post" action="${CONSOLE_PREFIX}${PATH}">
${csrfField(frame.csrfToken)}
<p><label for="url">URL</label> <input type="url" id="url" name="url" required placeholder="https://crm.example.com/hooks/leadline" class="mono"></p>
<fieldset><legend>Events (none ticked: all of them)</legend>
${OUTBOUND_EVENT_TYPES.map((type) => html`<label><input type="checkbox" name="types" value="${type}"> <code>${type}</code></label> `)}
</fieldset>
<button type="submit">Subscribe</button>
</form>
<h2>Last ${SHOWN} deliveries</h2>
${deliveries.length === 0
    ? html`<p class="muted">No deliveries yet.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last attempt</th><th scope="col">Answer</th><th scope="col">Next attempt</th></tr></thead>
<tbody>${deliveries.map((d) => html`<tr>
<td><code>${d.type}</code> <span class="muted mono">${d.webhookId}</span></td>
<td><span class="${d.status === 'delivered' ? 'ok' : d.status === 'pending' ? '' : 'bad'}">${d.status}</span>${d.status === 'failed' ? html` <form method="post" action="${CONSOLE_PREFIX}${PATH}/deliveries/${String(d.deliveryId)}/retry" class="inline">${csrfField(frame.csrfToken)}<button type="submit" class="secondary">Retry</button></form>` : ''}</td>
<td>${String(d.attempts)}</td>
<td>${timeElement(d.lastAttemptAt, zone)}</td>
<td>${d.lastError ?? (d.lastStatus === null ? '' : String(d.lastStatus))}</td>
<td>${timeElement(d.nextAttemptAt, zone)}</td>
</tr>`)}</tbody></table></div>`}`
    return sendPage(reply, { title: 'Events', frame, body, notice: extra.notice ?? null })
  }

  fastify.register(async (routes) => {
    routes.addHook('onRequest', requireSession(fastify))

    routes.get(PATH, { schema: consolePage() }, async (request, reply) => show(request, reply, {}))

    routes.post<{ Body: { url?: unknown; types?: unknown } }>(PATH, { schema: consoleForm(), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const { account } = signedIn(request)
      const url = typeof request.body?.url === 'string' ? request.body.url : ''
      const raw = request.body?.types
      const types = Array.isArray(raw) ? raw.filter((t): t is string => typeof t === 'string') : typeof raw === 'string' ? [raw] : []
      try {
        const { subscription, secret } = await subscriptions.subscribe(account.accountId, url, types.length === 0 ? null : types, actingUser(request))
        return show(request, reply, { secret: { subscriptionId: subscription.subscriptionId, secret }, notice: `Subscribed ${subscription.url}.` })
      } catch (error) {
        if (!(error instanceof DomainError) || error.code === 'account_not_found') throw error
        return show(request, reply, { notice: `Not subscribed: ${error.message}` })
      }
    })

    routes.post<{ Params: { id: string; action: string } }>(`${PATH}/:id/:action`, { schema: consoleForm('id', 'action'), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const { account } = signedIn(request)
      const { id, action } = request.params
      if (!ID.test(id) || (action !== 'rotate' && action !== 'remove')) return reply.callNotFound()
      try {
        if (action === 'remove') {
          await subscriptions.unsubscribe(account.accountId, id, actingUser(request))
          return show(request, reply, { notice: `Subscription ${id} removed.` })
        }
        const { secret } = await subscriptions.rotateSecret(account.accountId, id, actingUser(request))
        return show(request, reply, { secret: { subscriptionId: id, secret }, notice: 'Signing secret rotated: deliveries from now on are signed with the new one.' })
      } catch (error) {
        if (!(error instanceof DomainError) || error.code === 'account_not_found') throw error
        return show(request, reply, { notice: error.message })
      }
    })

    routes.post<{ Params: { deliveryId: string } }>(`${PATH}/deliveries/:deliveryId/retry`, { schema: consoleForm('deliveryId'), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const { account } = signedIn(request)
      const deliveryId = Number(request.params.deliveryId)
      if (!Number.isInteger(deliveryId)) return reply.callNotFound()
      const count = subscriptions.retry(account.accountId, { deliveryId })
      return show(request, reply, { notice: count === 1 ? 'Delivery sent again.' : 'Nothing to retry: that delivery is not failed.' })
    })
  })
}
