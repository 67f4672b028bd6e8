/**
 * Setup → Phone numbers (issue #43): the carrier account's numbers and who uses each, a search of
 * local numbers for sale (by area code, ZIP code, state, or near a number), a purchase behind a
 * confirm step that shows the monthly price, and "Use for this account", which says what it changed.
 * The search is a GET (it changes nothing); buying and using are CSRF-checked posts by the signed-in owner.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { ListedNumber, NumberListing, SearchInput, UseResult } from '../../commands/number-setup.ts'
import type { NumberPurchase } from '../../domain/numbers/number-purchase.decider.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import type { AvailableNumber } from '../../integrations/carrier/carrier.port.ts'
import { html, type Html } from './html.ts'
import { CONSOLE_PREFIX, csrfField, localTimes } from './layout.ts'
import { actingUser, formField, frameOf, refreshAccount, requireSession, sendFailedPage, sendPage, signedIn } from './session.ts'
import { consoleForm, consolePage } from './console.schema.ts'

const PATH = '/setup/phone-numbers'
const HERE = `${CONSOLE_PREFIX}${PATH}`

type SearchQuery = { area_code?: string; zip?: string; state?: string; near?: string; contains?: string }

const price = (p: AvailableNumber['monthlyPrice']): string => (p === null ? 'not given by the carrier' : `${p.amount} ${p.currency} a month`)

function holderText(n: ListedNumber): Html | string {
  if (n.holder.kind === 'another_account') return html`<span class="muted">used by another account</span>`
  if (n.holder.kind === 'none') return html`<span class="muted">not in use</span>`
  return n.holder.use === 'inbound' ? 'in use for this account' : n.holder.use === 'caller_id' ? 'this account\'s caller ID (calls out only)' : 'this account'
}

function useForm(number: string, csrfToken: string, label = 'Use for this account'): Html {
  return html`<form method="post" action="${HERE}/use" class="inline">${csrfField(csrfToken)}<input type="hidden" name="number" value="${number}"><button type="submit" class="secondary" aria-label="${label}: ${number}">${label}</button></form>`
}

function numbersTable(listing: NumberListing, csrfToken: string): Html {
  if (listing.numbers.length === 0) {
    return html`<p class="muted">${listing.simulated ? 'No simulated number bought yet: search below and buy one.' : `The ${listing.carrier} account has no numbers yet: search below and buy one.`}</p>`
  }
  return html`<div class="table-wrap"><table>
<caption class="muted">${listing.simulated ? 'Simulated numbers bought through Leadline (fictional: nothing rings)' : `The ${listing.carrier} account's numbers`}</caption>
<thead><tr><th scope="col">Number</th><th scope="col">Takes</th><th scope="col">Leadline</th><th scope="col">Webhooks</th><th scope="col"></th></tr></thead>
<tbody>${listing.numbers.map((n) => html`<tr data-number="${n.number}">
<td><code>${n.number}</code>${n.friendlyName !== n.number ? html` <span class="muted">${n.friendlyName}</span>` : ''}${n.callerId ? html` <span class="badge">caller ID</span>` : ''}</td>
<td>${[n.voice ? 'calls' : null, n.sms ? 'texts' : null].filter((x) => x !== null).join(', ')}</td>
<td>${holderText(n)}</td>
<td>${n.pointedHere ? 'point at Leadline' : listing.simulated ? html`<span class="muted">none to set (simulated)</span>` : n.voiceUrl === null ? html`<span class="muted">not set</span>` : html`<span class="muted">elsewhere: <code>${n.voiceUrl}</code></span>`}</td>
<td>${n.holder.kind === 'another_account' || (n.holder.kind === 'this_account' && n.holder.use === 'inbound' && (n.pointedHere || listing.simulated)) ? '' : useForm(n.number, csrfToken)}</td>
</tr>`)}</tbody></table></div>`
}

function purchasesNote(listing: NumberListing, zone: string): Html | string {
  if (listing.purchases.length === 0) return ''
  return html`<ul class="notice">${listing.purchases.map((p) => html`<li><code>${p.number}</code>: ${p.stage === 'unknown'
    ? html`<strong>the purchase has no known outcome</strong> (${localTimes(p.message ?? '', zone)}). Leadline will not ask again by itself: if the number shows in the list above, it was bought; use it from there.`
    : 'being bought now.'}</li>`)}</ul>`
}

function searchForm(query: SearchQuery): Html {
  return html`<form method="get" action="${HERE}" class="panel" role="search">
<p class="hint">Where the number should be local: the most precise field given wins (a number's neighbourhood, then a ZIP code, then a state, then an area code).</p>
<label for="area_code">Area code <span class="hint">Three digits, such as 312</span></label>
<input type="text" id="area_code" name="area_code" inputmode="numeric" maxlength="3" value="${query.area_code ?? ''}">
<label for="zip">Near the business: ZIP code <span class="hint">Five digits</span></label>
<input type="text" id="zip" name="zip" inputmode="numeric" maxlength="5" value="${query.zip ?? ''}">
<label for="state">State <span class="hint">Two letters, such as IL</span></label>
<input type="text" id="state" name="state" maxlength="2" value="${query.state ?? ''}">
<label for="near">Near a number <span class="hint">Within 25 miles of it, such as the business's own line: +13125550100</span></label>
<input type="tel" id="near" name="near" maxlength="16" value="${query.near ?? ''}">
<label for="contains">Containing <span class="hint">Digits the number must hold (optional)</span></label>
<input type="text" id="contains" name="contains" maxlength="10" value="${query.contains ?? ''}">
<div class="actions"><button type="submit">Search</button></div>
</form>`
}

function resultsTable(found: readonly AvailableNumber[], simulated: boolean): Html {
  if (found.length === 0) return html`<p class="muted">No number for sale there: try a nearby area code or a ZIP code.</p>`
  return html`<div class="table-wrap"><table>
<caption class="muted">${simulated ? 'Simulated numbers for sale (fictional 555-01xx numbers: nothing rings)' : 'Local numbers for sale'}</caption>
<thead><tr><th scope="col">Number</th><th scope="col">Where</th><th scope="col">Takes</th><th scope="col">Monthly price</th><th scope="col"></th></tr></thead>
<tbody>${found.map((n) => html`<tr data-available="${n.number}">
<td><code>${n.number}</code> <span class="muted">${n.friendlyName}</span></td>
<td>${[n.locality, n.region, n.postalCode].filter((x) => x !== null).join(', ')}</td>
<td>${[n.voice ? 'calls' : null, n.sms ? 'texts' : null].filter((x) => x !== null).join(', ')}</td>
<td>${n.monthlyPrice === null ? html`<span class="muted">—</span>` : `${n.monthlyPrice.amount} ${n.monthlyPrice.currency}`}</td>
<td><a href="${HERE}/buy?number=${encodeURIComponent(n.number)}">Buy…</a></td>
</tr>`)}</tbody></table></div>`
}

function changedBox(used: UseResult): Html {
  const w = used.webhooks
  const was = (value: string | null | undefined) => (value === null || value === undefined ? 'not set' : value)
  return html`<section class="secret-box" aria-labelledby="changed-title">
<h2 id="changed-title">What changed for <code>${used.number}</code></h2>
<ul>
<li>${used.claimed ? 'It is now this account\'s number: calls and texts to it come here, and no other account can use it.' : 'It was this account\'s already.'}</li>
${w.applied
    ? html`<li>Voice URL: <code>${w.voiceUrl}</code> (POST; was ${was(w.before?.voiceUrl)})</li>
<li>Voice status callback: <code>${w.voiceStatusUrl}</code> (POST; was ${was(w.before?.voiceStatusUrl)})</li>
<li>SMS URL: <code>${w.smsUrl}</code> (POST; was ${was(w.before?.smsUrl)})</li>`
    : html`<li>No webhook to set: the simulated carrier plays calls and texts inside Leadline.</li>`}
<li>Caller ID: ${used.callerId.changed ? html`now <code>${used.callerId.after}</code> (${used.callerId.why})` : html`unchanged, <code>${used.callerId.after ?? 'not set'}</code>: ${used.callerId.why}`}</li>
</ul>
${used.warnings.map((warning) => html`<p class="error" role="alert">${warning}</p>`)}
</section>`
}

function purchaseBox(purchase: NumberPurchase, csrfToken: string): Html {
  if (purchase.stage === 'bought') {
    return html`<section class="secret-box" aria-labelledby="bought-title"><h2 id="bought-title">Bought <code>${purchase.number}</code></h2>
<p>It is in the ${purchase.carrier} account${purchase.monthlyPrice === null ? '' : ` for ${price(purchase.monthlyPrice)}`}. Use it for this account to have its calls and texts come here.</p>
${useForm(purchase.number, csrfToken)}</section>`
  }
  return html`<section class="secret-box" aria-labelledby="bought-title"><h2 id="bought-title">The purchase of <code>${purchase.number}</code> has no known outcome</h2>
<p>${purchase.message ?? ''}</p><p>Leadline will not ask again by itself, so it is never bought twice. If the number shows in the list below, it was bought: use it from there.</p></section>`
}

export const phoneNumbersRoutes: FastifyPluginAsync = async (fastify) => {
  const leadline = fastify.leadline
  const setup = leadline.numberSetup

  /** The page: the numbers, a box for what was just done, the search form and its results (or its refusal). */
  const show = async (request: FastifyRequest, reply: FastifyReply, extra: { box?: (csrfToken: string) => Html; error?: string | null; status?: 200 | 201 } = {}) => {
    const frame = frameOf(request, reply, 'phone-numbers')
    const { account } = signedIn(request)
    const query = (request.method === 'GET' ? request.query : {}) as SearchQuery
    const listing = await setup.list(account.accountId, fastify.publicUrl)
    let results: Html | string = ''
    let error = extra.error ?? null
    const input: SearchInput = { areaCode: query.area_code, postalCode: query.zip, region: query.state, nearNumber: query.near, contains: query.contains }
    if (Object.values(input).some((v) => v !== undefined && v.trim() !== '')) {
      try {
        results = html`<h2>For sale</h2>${resultsTable(await setup.search(input), listing.simulated)}`
      } catch (failure) {
        if (!(failure instanceof DomainError)) throw failure
        error = failure.message
      }
    }
    const body = html`<h1>Setup → Phone numbers</h1>
${listing.simulated ? html`<p class="notice">Simulated carrier: these are fictional numbers (555-01xx), bought and used only inside Leadline. With Twilio credentials this page shows the Twilio account's numbers.</p>` : ''}
<p>The number ${account.name} gives out: calls to it ring here, texts to it land here, and calls to leads go out from it. "Use for this account" points the number's voice, voice status and SMS webhooks at Leadline.</p>
${extra.box?.(frame.csrfToken) ?? ''}
${error ? html`<p class="error" role="alert" id="numbers-error">${error}</p>` : ''}
<h2>Numbers</h2>
${purchasesNote(listing, account.settings.timeZone)}
${numbersTable(listing, frame.csrfToken)}
<h2>Buy a number</h2>
${searchForm(query)}
${results}`
    const page = { title: 'Phone numbers', frame, body }
    if (error !== null) return sendFailedPage(reply, page, 400, { error: 'invalid_request', detail: error })
    return sendPage(reply, page, extra.status ?? 200)
  }

  /** A refusal the owner can act on is shown on the page (400, nothing changed); anything else goes to the console's error handler. */
  const refused = (request: FastifyRequest, reply: FastifyReply, error: unknown) => {
    if (!(error instanceof DomainError)) throw error
    return show(request, reply, { error: `${error.message}.` })
  }

  fastify.register(async (routes) => {
    routes.addHook('onRequest', requireSession(fastify))

    routes.get<{ Querystring: SearchQuery }>(PATH, { schema: consolePage('area_code', 'zip', 'state', 'near', 'contains') }, async (request, reply) => show(request, reply))

    // The confirm step: the number and what it costs, and one button that buys it.
    routes.get<{ Querystring: { number?: string } }>(`${PATH}/buy`, { schema: consolePage('number') }, async (request, reply) => {
      const number = String(request.query.number ?? '').trim()
      let monthly: AvailableNumber['monthlyPrice']
      try {
        monthly = await setup.quote(number)
      } catch (error) {
        return refused(request, reply, error)
      }
      const frame = frameOf(request, reply, 'phone-numbers')
      const body = html`<div class="narrow"><h1>Buy <code>${number}</code>?</h1>
<p>It is bought into the ${leadline.carrier.name} account${leadline.carrier.name === 'simulated' ? ' (simulated: nothing is charged, nothing rings)' : ''}. Monthly price: <strong>${price(monthly)}</strong>.</p>
<form method="post" action="${HERE}/buy" class="panel">${csrfField(frame.csrfToken)}<input type="hidden" name="number" value="${number}">
<div class="actions"><button type="submit">Buy ${number}</button> <a href="${HERE}">Cancel</a></div></form></div>`
      return sendPage(reply, { title: 'Buy a number', frame, body })
    })

    routes.post(`${PATH}/buy`, { schema: consoleForm(), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const number = formField(request.body, 'number').trim()
      let purchase: NumberPurchase
      try {
        // The price recorded is the carrier's at the moment of the purchase.
        purchase = await setup.buy(signedIn(request).account.accountId, number, await setup.quote(number), actingUser(request))
      } catch (error) {
        return refused(request, reply, error)
      }
      if (purchase.stage === 'failed') return show(request, reply, { error: `${number} was not bought: ${purchase.message ?? purchase.failure ?? 'the carrier refused it'}.` })
      return show(request, reply, { box: (csrfToken) => purchaseBox(purchase, csrfToken), status: purchase.stage === 'bought' ? 201 : 200 })
    })

    routes.post(`${PATH}/use`, { schema: consoleForm(), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const number = formField(request.body, 'number').trim()
      let used: UseResult
      try {
        used = await setup.use(signedIn(request).account.accountId, number, fastify.publicUrl, actingUser(request))
      } catch (error) {
        return refused(request, reply, error)
      }
      await refreshAccount(request, leadline.accounts)
      return show(request, reply, { box: () => changedBox(used) })
    })
  })
}
