/**
 * Connections → Facebook Lead Ads: the owner's view of the account's Facebook pages (never their
 * tokens: the operator connects a page with `leadline source facebook connect`) and of its latest
 * Facebook leads, with what stopped a fetch that waits for a person, and a button to fetch it again.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import type { FacebookLeadRow } from '../../../projections/facebook-lead-ads/facebook-lead-ads.queries.ts'
import { html, type Html } from './html.ts'
import { CONSOLE_PREFIX, csrfField, localTimes, timeElement } from './layout.ts'
import { actingUser, frameOf, requireSession, sendPage, signedIn } from './session.ts'
import { consoleForm, consolePage } from './console.schema.ts'

const PATH = '/connections/facebook'

const STAGES: Readonly<Record<FacebookLeadRow['stage'], string>> = {
  due: 'waiting for its fetch',
  fetching: 'fetching',
  received: 'received',
  failed: 'needs you',
}

function leadsTable(leads: readonly FacebookLeadRow[], zone: string, csrfToken: string): Html {
  if (leads.length === 0) return html`<p class="muted">No Facebook leads yet.</p>`
  return html`<div class="table-wrap"><table>
<caption class="muted">The latest Facebook leads, newest first</caption>
<thead><tr><th scope="col">Notified</th><th scope="col">Leadgen id</th><th scope="col">Form</th><th scope="col">Status</th><th scope="col">Lead</th></tr></thead>
<tbody>${leads.map((lead) => html`<tr data-leadgen-id="${lead.leadgenId}">
<td>${timeElement(lead.notifiedAt, zone)}</td>
<td><code>${lead.leadgenId}</code></td>
<td>${lead.formId ?? ''}</td>
<td>${lead.stage === 'failed' ? html`<span class="bad">${STAGES[lead.stage]}</span>` : STAGES[lead.stage]}${lead.failure !== null && lead.stage !== 'received' ? html`<br><span class="muted">${lead.failure}: ${localTimes(lead.message ?? '', zone)}</span>` : ''}</td>
<td>${lead.leadId !== null
    ? html`<a href="${CONSOLE_PREFIX}/leads/${lead.leadId}">Open</a>`
    : lead.stage === 'failed'
      ? html`<form method="post" action="${CONSOLE_PREFIX}${PATH}/${lead.leadgenId}/retry" class="inline">${csrfField(csrfToken)}<button type="submit" class="secondary">Fetch again</button></form>`
      : ''}</td>
</tr>`)}</tbody></table></div>`
}

export const facebookLeadAdsRoutes: FastifyPluginAsync = async (fastify) => {
  const leadline = fastify.leadline

  fastify.register(async (routes) => {
    routes.addHook('onRequest', requireSession(fastify))

    routes.get<{ Querystring: { retried?: string } }>(PATH, { schema: consolePage('retried') }, async (request: FastifyRequest<{ Querystring: { retried?: string } }>, reply) => {
      const frame = frameOf(request, reply, 'facebook')
      const { account } = signedIn(request)
      const pages = await leadline.facebookLeadAds.pages(account.accountId)
      const leads = await leadline.facebookLeadAds.leads(account.accountId, { limit: 50 })
      const zone = account.settings.timeZone
      const body = html`<h1>Connections → Facebook Lead Ads</h1>
<p>Leads from the lead-ads forms of these Facebook pages are fetched from Facebook as they come in and arrive in Leads like any other. Your Leadline operator connects a page, with its page access token (<code>leadline source facebook connect</code>); the token is kept sealed and never shown.</p>
<h2>Pages</h2>
${pages.length === 0
    ? html`<p class="muted">No Facebook page is connected to ${account.name}.</p>`
    : html`<ul>${pages.map((page) => html`<li>Page <code>${page.pageId}</code>, connected ${timeElement(page.connectedAt, zone)}</li>`)}</ul>`}
<h2>Facebook leads</h2>
<p class="hint">A lead that needs you could not be fetched: an expired page token or a missing permission (ask for a new token to be connected, then fetch it again), or a form without a phone number.</p>
${leadsTable(leads, zone, frame.csrfToken)}`
      return sendPage(reply, { title: 'Facebook Lead Ads', frame, body, notice: request.query.retried !== undefined ? 'Fetching it again: it shows here as received once Facebook answers.' : null })
    })

    routes.post<{ Params: { leadgenId: string } }>(`${PATH}/:leadgenId/retry`, { schema: consoleForm('leadgenId'), preHandler: fastify.csrfProtection }, async (request, reply) => {
      await leadline.facebookLeadAds.retry(signedIn(request).account.accountId, request.params.leadgenId, actingUser(request))
      return reply.redirect(`${CONSOLE_PREFIX}${PATH}?retried`, 303)
    })
  })
}
