/**
 * Connections → Lead webhook (spec §2.3): the webhook URL, its token, rotation, a curl example, a
 * test lead, and the last deliveries. Leadline keeps only a hash of the token, so the token itself
 * can be shown only on the page that answers a rotation, behind a "Reveal" control; before that the
 * page shows its first characters.
 */
import { randomInt } from 'node:crypto'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { receiveLead } from '../../commands/receive-lead.command.ts'
import { leadStream } from '../../domain/lead/lead.events.ts'
import type { Leadline } from '../../leadline.ts'
import { DELIVERIES_SHOWN } from '../../read-models/webhook-deliveries.ts'
import { html, type Html } from './html.ts'
import { CONSOLE_PREFIX, copyButton, csrfField, timeElement } from './layout.ts'
import { actingUser, frameOf, refreshAccount, requireSession, sendFailedPage, sendPage, signedIn } from './session.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import type { AccountState } from '../../domain/account/account.decider.ts'
import { parseFieldMapping } from '../../domain/lead/intake/field-map.ts'
import { consoleForm, consolePage } from './console.schema.ts'

const PATH = '/connections/lead-webhook'
/** How the console's test leads are marked: never dialed (do-not-call), and easy to find. */
export const TEST_LEAD_SOURCE = 'Leadline test'

/** Area codes of the test leads' numbers: 555-0100 to 555-0199 are reserved for fiction in every NANP area code. */
export const TEST_AREAS = ['212', '312', '415', '512', '617', '702', '808', '907'] as const
const TEST_NUMBERS = TEST_AREAS.length * 100

/** The last ten digits of fictional number `n` of TEST_NUMBERS. */
const testNumber = (n: number): string => `${TEST_AREAS[Math.floor(n / 100)] as string}55501${String(n % 100).padStart(2, '0')}`

/**
 * A number for a test lead that is no lead of the account's but a test lead: a repeat of a number
 * updates its lead, and a test lead (do-not-call, named Test Lead) must never overwrite a person's,
 * such as the Jane Doe of the curl example at (312) 555-0142, which many try first. The numbers are
 * tried from a random one on; the log says which are free. Only once all of them are taken does a
 * test lead update an earlier test lead. Null when every one is a real lead's.
 */
async function testPhone(leadline: Leadline, accountId: string): Promise<string | null> {
  const start = randomInt(TEST_NUMBERS)
  let earlierTest: string | null = null
  for (let i = 0; i < TEST_NUMBERS; i++) {
    const last10 = testNumber((start + i) % TEST_NUMBERS)
    if ((await leadline.store.streamRevision(leadStream(accountId, last10))) === -1) return last10
    earlierTest ??= leadline.inboundLeads.get(accountId, { phoneLast10: last10 })?.source === TEST_LEAD_SOURCE ? last10 : null
  }
  return earlierTest
}

function curlExample(url: string, token: string): string {
  return [
    `curl -X POST "${url}" \\`,
    `  -H "x-service-token: ${token}" \\`,
    `  -H "content-type: application/json" \\`,
    `  -d '{"name": "Jane Doe", "phone": "(312) 555-0142", "email": "jane@example.com", "source": "Spring promo"}'`,
  ].join('\n')
}

/**
 * Lead sources: the Google lead-form key (set or not; never shown) and each source's field map, with
 * the forms that change them (docs/lead-sources.md). Each change is an account event.
 */
function leadSourcesSection(account: AccountState, webhookUrl: string, csrfToken: string, draft: { source: string; mappings: string } | null): Html {
  const zone = account.settings.timeZone
  const google = account.googleKey
  return html`<h2 id="lead-sources">Lead sources</h2>
<h3>Google Ads lead forms</h3>
<p>In the lead form's webhook settings, the URL is <code>${webhookUrl}?token=</code> and the webhook token, and the key is the one set here. ${google === null ? html`<strong>No key is set: Google's leads are refused (401).</strong>` : html`A key is set (since ${timeElement(google.setAt, zone)}); Leadline keeps only a hash of it and never shows it.`}</p>
<form method="post" action="${CONSOLE_PREFIX}${PATH}/google-key" class="actions">
${csrfField(csrfToken)}
<label for="google-key">New Google key <span class="hint">12 to 128 characters without spaces; a random one is best.</span></label>
<input type="password" id="google-key" name="googleKey" autocomplete="off" minlength="12" maxlength="128">
<button type="submit">Set Google key</button>
${google === null ? '' : html`<button type="submit" name="remove" value="1" class="danger">Remove the key</button>`}
</form>
<h3>Field maps</h3>
<p>For a source whose field names Leadline does not recognise: add <code>?source=NAME</code> to its webhook URL, and map each field to the path it arrives at (names joined by dots for nested objects and XML). A map reads the leads that arrive after it is saved; earlier leads stay as they came.</p>
${account.fieldMaps.size === 0
    ? html`<p class="muted">No field maps.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Source</th><th scope="col">Field ← path</th><th scope="col">Set</th><th scope="col"></th></tr></thead>
<tbody>${[...account.fieldMaps].map(([source, map]) => html`<tr>
<td><code>${source}</code></td>
<td>${map.mappings.map((m) => html`<code>${m.field}</code> ← <code>${m.path}</code><br>`)}</td>
<td>${timeElement(map.setAt, zone)}</td>
<td><form method="post" action="${CONSOLE_PREFIX}${PATH}/field-map" class="inline">${csrfField(csrfToken)}<input type="hidden" name="source" value="${source}"><button type="submit" name="remove" value="1" class="danger">Remove</button></form></td>
</tr>`)}</tbody></table></div>`}
<form method="post" action="${CONSOLE_PREFIX}${PATH}/field-map">
${csrfField(csrfToken)}
<label for="map-source">Source <span class="hint">Lower-case letters, digits, - and _: vendor-x.</span></label>
<input type="text" id="map-source" name="source" value="${draft?.source ?? ''}" required>
<label for="map-mappings">Mappings <span class="hint">One FIELD=PATH a line, such as phone=contact.primary.number. Saving replaces the source's map.</span></label>
<textarea id="map-mappings" name="mappings" rows="4" required>${draft?.mappings ?? ''}</textarea>
<div class="actions"><button type="submit">Save field map</button></div>
</form>`
}

export const leadWebhookRoutes: FastifyPluginAsync = async (fastify) => {
  const leadline = fastify.leadline
  const webhookUrl = `${fastify.publicUrl}/api/ingest/lead`

  const show = (request: FastifyRequest, reply: FastifyReply, extra: { newToken?: string; notice?: string | null; sentLeadId?: string | null; error?: string; draft?: { source: string; mappings: string } }) => {
    const frame = frameOf(request, reply, 'lead-webhook')
    const { account } = signedIn(request)
    const zone = account.settings.timeZone
    const hint = account.webhookToken?.hint ?? '(none)'
    const token = extra.newToken
    const tokenBlock: Html = token
      ? html`<section class="secret-box" aria-labelledby="token-title">
<h2 id="token-title">New webhook token</h2>
<p><strong>Store it now: it is shown only on this page.</strong> The old token already fails with <code>401 invalid token</code>; update your lead sources.</p>
<details class="reveal"><summary>Reveal the token</summary>
<p><input type="text" id="webhook-token" value="${token}" readonly aria-label="Webhook token" class="mono"></p>
<p>Full URL with the token: <code id="webhook-url-with-token">${webhookUrl}?token=${token}</code></p>
</details>
${copyButton('webhook-token', 'Copy token')}
</section>`
      : html`<p>Token: <code>${hint}</code> <span class="muted">(only its first characters: Leadline keeps a hash of the token, never the token. If you no longer have it, rotate it.)</span></p>`
    const deliveries = leadline.webhookDeliveries.last(account.accountId)
    const body = html`<h1>Connections → Lead webhook</h1>
<p>Point web forms, lead-ads tools and automations at this URL. The token is the only credential: anyone holding it can add leads to ${account.name}, so treat it like a password.</p>
${extra.sentLeadId ? html`<p class="notice" role="status">Test lead sent. <a href="${CONSOLE_PREFIX}/leads/${extra.sentLeadId}">See it and its timeline</a>.</p>` : ''}
<h2>Webhook URL</h2>
<p><input type="text" id="webhook-url" value="${webhookUrl}" readonly aria-label="Webhook URL" class="mono"></p>
${copyButton('webhook-url', 'Copy URL')}
${tokenBlock}
<p class="muted">Send the token in the <code>x-service-token</code> header (kept out of server logs), or as <code>?token=</code> when a tool only takes a URL.</p>
<form method="post" action="${CONSOLE_PREFIX}${PATH}/rotate" class="actions" data-confirm="Rotate the webhook token? The current token stops working at once.">
${csrfField(frame.csrfToken)}
<button type="submit" class="danger">Rotate token</button>
<span class="muted">Issues a new token; the current one fails from the next request on.</span>
</form>
<h2>Try it</h2>
<pre><code id="curl-example">${curlExample(webhookUrl, token ?? '<WEBHOOK_TOKEN>')}</code></pre>
${copyButton('curl-example', 'Copy example')}
<form method="post" action="${CONSOLE_PREFIX}${PATH}/test" class="actions">
${csrfField(frame.csrfToken)}
<button type="submit">Send a test lead</button>
<span class="muted">A made-up person with a fictional 555-01xx number, source "${TEST_LEAD_SOURCE}", marked do-not-call so it is never dialed.</span>
</form>
<h2>Last ${DELIVERIES_SHOWN} deliveries</h2>
${deliveries.length === 0
    ? html`<p class="muted">No deliveries yet.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">When</th><th scope="col">Status</th><th scope="col">Result</th><th scope="col">Sent by</th></tr></thead>
<tbody>${deliveries.map((d) => html`<tr>
<td>${timeElement(d.at, zone)}</td>
<td><span class="${d.status < 300 ? 'ok' : 'bad'}">${d.status}</span></td>
<td>${d.leadId ? html`${d.status === 201 ? 'new lead' : 'updated'} <a href="${CONSOLE_PREFIX}/leads/${d.leadId}">${d.leadId}</a>` : (d.error ?? '')}</td>
<td>${d.via === 'console' ? 'test button' : html`token in ${d.via}${d.userAgent ? html` <span class="muted">(${d.userAgent})</span>` : ''}`}</td>
</tr>`)}</tbody></table></div>`}
<p class="muted">Requests with a wrong token are not listed: they cannot be told apart from anyone's.</p>
${leadSourcesSection(account, webhookUrl, frame.csrfToken, extra.draft ?? null)}`
    const page = { title: 'Lead webhook', frame, body, notice: extra.error ?? extra.notice ?? null }
    return extra.error ? sendFailedPage(reply, page, 400, { error: 'invalid_request', detail: extra.error }) : sendPage(reply, page)
  }

  fastify.register(async (routes) => {
    routes.addHook('onRequest', requireSession(fastify))

    routes.get<{ Querystring: { sent?: string } }>(PATH, { schema: consolePage('sent') }, async (request, reply) => {
      const sent = request.query.sent
      return show(request, reply, { sentLeadId: typeof sent === 'string' && /^ld_[0-9a-z]{1,40}$/.test(sent) ? sent : null })
    })

    routes.post(`${PATH}/rotate`, { schema: consoleForm(), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const accountId = signedIn(request).account.accountId
      const token = await leadline.accounts.rotateWebhookToken(accountId, actingUser(request))
      await refreshAccount(request, leadline.accounts)
      return show(request, reply, { newToken: token.secret, notice: 'Webhook token rotated.' })
    })

    // A refusal (a short key, an unknown field) changes nothing and says why, with what was typed kept.
    const refused = (request: FastifyRequest, reply: FastifyReply, error: unknown, draft?: { source: string; mappings: string }) => {
      if (!(error instanceof DomainError) || error.code === 'account_not_found') throw error
      return show(request, reply, { error: `Nothing was saved: ${error.message}.`, ...(draft ? { draft } : {}) })
    }

    routes.post(`${PATH}/google-key`, { schema: consoleForm(), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const form = (request.body ?? {}) as Record<string, unknown>
      const accountId = signedIn(request).account.accountId
      try {
        await leadline.accounts.setGoogleKey(accountId, form.remove === '1' ? null : String(form.googleKey ?? ''), actingUser(request))
      } catch (error) {
        return refused(request, reply, error)
      }
      await refreshAccount(request, leadline.accounts)
      return show(request, reply, { notice: form.remove === '1' ? 'Google key removed: Google lead forms are refused until one is set.' : 'Google key set. It is not shown again.' })
    })

    routes.post(`${PATH}/field-map`, { schema: consoleForm(), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const form = (request.body ?? {}) as Record<string, unknown>
      const accountId = signedIn(request).account.accountId
      const source = String(form.source ?? '')
      const text = String(form.mappings ?? '')
      try {
        if (form.remove === '1') await leadline.accounts.removeFieldMap(accountId, source, actingUser(request))
        else await leadline.accounts.setFieldMap(accountId, source, text.split(/\r?\n/).filter((line) => line.trim() !== '').map(parseFieldMapping), actingUser(request))
      } catch (error) {
        return refused(request, reply, error, { source, mappings: text })
      }
      await refreshAccount(request, leadline.accounts)
      return show(request, reply, { notice: form.remove === '1' ? `Field map of ${source} removed.` : `Field map of ${source.trim().toLowerCase()} saved: it reads the leads that arrive from now on.` })
    })

    routes.post(`${PATH}/test`, { schema: consoleForm(), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const { account } = signedIn(request)
      const phone = await testPhone(leadline, account.accountId)
      if (phone === null) return show(request, reply, { notice: `No test lead sent: every fictional number Leadline uses for them (555-0100 to 555-0199 in ${TEST_AREAS.length} area codes) is a lead of this account's already.` })
      const result = await receiveLead(
        leadline,
        account,
        { name: 'Test Lead', phone, email: 'test.lead@example.com', source: TEST_LEAD_SOURCE, dnc: 'yes' },
        actingUser(request),
      )
      leadline.webhookDeliveries.record(account.accountId, leadline.clock(), result.created ? 201 : 200, result.leadId, null, 'console', undefined)
      // The owner goes to look for it next: have Inbound Leads show it first.
      if (result.position !== null) await leadline.runner.waitFor(result.position)
      return reply.redirect(`${CONSOLE_PREFIX}${PATH}?sent=${encodeURIComponent(result.leadId)}`, 303)
    })
  })
}
