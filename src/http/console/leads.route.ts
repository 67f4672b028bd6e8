/**
 * Leads: the Inbound Leads list (search, filters by where each lead stands, pages) and one lead's page:
 * its fields, its text conversation (the one place what the lead texted is shown, to its owner), its
 * calls, follow-ups and payments, and its timeline replayed from the log in the owner's words (the audit
 * view, `leadline history`, keeps the internal ids). Recordings and call transcripts are never shown:
 * the timeline says only that one was stored, and every field passes the tool endpoint's filter first.
 */
import { CONSENT_FIELD_NAMES, CONSENT_FIELDS } from '../../domain/lead/intake/consent.ts'
import type { FastifyPluginAsync } from 'fastify'
import { DateTime } from 'luxon'
import { randomBytes } from 'node:crypto'
import { buildLeadHistory } from '../../audit/lead-history.ts'
import { verifyStream } from '../../audit/hash-chain-verifier.ts'
import { leadDecider } from '../../domain/lead/lead.decider.ts'
import { leadStream } from '../../domain/lead/lead.events.ts'
import { LEAD_STATUSES, type LeadStatus } from '../../../projections/lead-status/lead-status.projection.ts'
import type { LeadStatusRow } from '../../../projections/lead-status/lead-status.queries.ts'
import { conversationSection, conversationThread } from './conversation.ts'
import { ownerActor, ownerEntries, ownerSummary } from './owner-timeline.ts'
import { describeActor } from '../../audit/event-summary.ts'
import { money } from '../../domain/shared/printable.ts'
import { phoneIdentity } from '../../domain/lead/intake/phone.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import { withoutRecordings } from '../../domain/recordings-policy.ts'
import { callSummary, type CallResult, type LastCallOutcome } from '../../domain/lead/calls/call-summary.ts'
import type { MenuChoice } from '../../domain/lead/calls/calls.events.ts'
import { callResult, connectedToOwner, recordOutcomeFacts } from '../../domain/lead/calls/call-outcome.ts'
import type { CallRecord } from '../../domain/lead/calls/calls.decider.ts'
import type { AssistantState } from '../../domain/lead/assistant/assistant.decider.ts'
import type { AssistantDisposition } from '../../domain/lead/assistant/assistant.events.ts'
import type { InboundLeadsFilter } from '../../../projections/inbound-leads/inbound-leads.queries.ts'
import { html, type Html, type HtmlValue } from './html.ts'
import { inboundSection, voicemailRoute } from './inbound-calls-view.ts'
import { CONSOLE_PREFIX, localTimes, timeElement } from './layout.ts'
import { actingUser, frameOf, requireSession, sendFailedPage, sendPage, signedIn } from './session.ts'
import { consoleItem, consolePage } from './console.schema.ts'
import { simulateInboundSection } from './simulate-inbound.route.ts'
import { appointmentsSection } from './appointments.route.ts'

export const LEADS_PAGE_SIZE = 25
const PURPOSE: Readonly<Record<string, string>> = { speed_to_lead: 'Speed to lead', follow_up: 'Follow-up', place_call: 'Placed by an agent' }

const RESULT: Readonly<Record<Exclude<CallResult, 'answered' | 'machine'>, string>> = {
  no_answer: 'no answer', busy: 'busy', failed: 'the call failed', unknown: 'outcome unknown', agent_unavailable: 'no owner took the call', missed: 'missed', in_progress: 'in progress',
}
const MENU: Readonly<Record<MenuChoice, string>> = {
  connect: 'pressed 1 to talk to someone', callback: 'pressed 2 to be called back', opt_out: 'pressed 9: opted out, no more calls', none: 'made no choice in the menu',
}

/** How a call went, in words: who answered, the voicemail, the key and the owner's leg. */
function outcomeWords(outcome: LastCallOutcome): string {
  const who = outcome.result === 'answered'
    ? (outcome.answeredBy === null ? 'answered' : `answered by ${outcome.answeredBy === 'human' ? 'a person' : outcome.answeredBy}`)
    : outcome.result === 'machine' ? `a machine answered (${outcome.answeredBy ?? 'unknown'}), not the lead` : RESULT[outcome.result]
  const owner = outcome.connectedToOwner === null ? (outcome.menuChoice === 'connect' ? "the owner's phone rang" : null) : ownerWords(outcome.connectedToOwner)
  return [who, outcome.voicemailLeft ? 'voicemail left' : null, outcome.menuChoice ? MENU[outcome.menuChoice] : null, owner].filter((part) => part !== null).join('; ')
}

function ownerWords(connected: boolean | null): string | null {
  return connected === null ? null : connected ? 'connected to the owner' : 'not connected to the owner'
}

/** One call's outcome in the calls table, read as get_lead and list_calls read it (call-outcome.ts). */
function callRowWords(call: CallRecord): Html {
  const facts = recordOutcomeFacts(call)
  const result = callResult(facts)
  const words = result === 'answered' ? html`<span class="ok">answered</span>` : result === 'failed' ? html`<span class="bad">failed: ${call.failure ?? 'unknown'}</span>` : result === 'machine' ? 'a machine answered' : RESULT[result]
  const owner = ownerWords(connectedToOwner(facts))
  return owner === null ? html`${words}` : html`${words}; ${owner}`
}

const STATUS_WORDS: Readonly<Record<LeadStatus, string>> = {
  new: 'new', calling: 'calling', voicemail_left: 'voicemail left', callback: 'callback', replied: 'replied', connected: 'connected', qualified: 'qualified',
  appointment: 'appointment booked', paid: 'paid', do_not_call: 'do not call',
}

/** Where the lead stands, as a badge: "callback at" names the time in the account's zone. */
function statusBadge(row: LeadStatusRow | null | undefined, zone: string): Html | string {
  if (!row) return ''
  const bad = row.status === 'do_not_call' ? ' bad' : row.status === 'paid' || row.status === 'connected' || row.status === 'qualified' || row.status === 'appointment' ? ' ok' : ''
  return html`<span class="badge${bad}">${row.status === 'callback' && row.callbackAt ? html`callback at ${timeElement(row.callbackAt, zone)}` : STATUS_WORDS[row.status]}</span>`
}

interface ListQuery {
  status?: string
  q?: string
  source?: string
  vendor?: string
  dnc?: string
  since?: string
  cursor?: string
}

/** The person's name as the lead carries it, or null. */
function nameOf(lead: { fullName: string | null; firstName: string | null; lastName: string | null }): string | null {
  const name = lead.fullName ?? [lead.firstName, lead.lastName].filter((p) => p !== null && p !== '').join(' ')
  return name === '' ? null : name
}

function str(value: unknown): string {
  return typeof value === 'string' ? value.trim().slice(0, 200) : ''
}

function fieldRows(rows: ReadonlyArray<readonly [string, unknown]>): Html {
  return html`<dl class="fields">${rows
    .filter(([, value]) => value !== null && value !== undefined && value !== '')
    .map(([label, value]) => html`<dt>${label}</dt><dd>${value as HtmlValue}</dd>`)}</dl>`
}

export const leadsRoutes: FastifyPluginAsync = async (fastify) => {
  const leadline = fastify.leadline

  fastify.register(async (routes) => {
    routes.addHook('onRequest', requireSession(fastify))
    voicemailRoute(routes, fastify)

    routes.get<{ Querystring: ListQuery }>('/leads', { schema: consolePage('q', 'source', 'vendor', 'dnc', 'since', 'cursor') }, async (request, reply) => {
      const frame = frameOf(request, reply, 'leads')
      const { account } = signedIn(request)
      const zone = account.settings.timeZone
      const q = { status: str(request.query.status), q: str(request.query.q), source: str(request.query.source), vendor: str(request.query.vendor), dnc: str(request.query.dnc), since: str(request.query.since), cursor: str(request.query.cursor) }
      const filter: { -readonly [K in keyof InboundLeadsFilter]: InboundLeadsFilter[K] } = { limit: LEADS_PAGE_SIZE }
      if (q.q) filter.search = q.q
      if (q.source) filter.source = q.source
      if (q.vendor) filter.vendor = q.vendor
      if (q.dnc === 'yes' || q.dnc === 'no') filter.doNotCall = q.dnc === 'yes'
      let problem: string | null = null
      if (q.status) {
        if ((LEAD_STATUSES as readonly string[]).includes(q.status)) filter.status = q.status
        else problem = `"${q.status}" is not a status.`
      }
      if (q.since) {
        const since = DateTime.fromISO(q.since, { zone })
        if (since.isValid) filter.since = since.startOf('day').toUTC().toISO() as string
        else problem = `"${q.since}" is not a date.`
      }
      if (q.cursor) filter.cursor = q.cursor
      let page: ReturnType<typeof leadline.inboundLeads.list> = { leads: [], nextCursor: null }
      try {
        if (problem === null) page = leadline.inboundLeads.list(account.accountId, filter)
      } catch (error) {
        if (!(error instanceof DomainError)) throw error
        problem = error.code === 'invalid_cursor' ? 'That page link no longer works: start from the first page.' : `${error.message}.`
      }
      const keep = new URLSearchParams(Object.entries(q).filter(([k, v]) => k !== 'cursor' && v !== ''))
      const nextHref = page.nextCursor ? `${CONSOLE_PREFIX}/leads?${new URLSearchParams([...keep, ['cursor', page.nextCursor]])}` : null
      const filtered = keep.size > 0
      const statuses = leadline.leadStatus.ofLeads(account.accountId, page.leads.map((lead) => lead.leadId))
      const body = html`<h1>Inbound Leads</h1>
<p class="muted">${leadline.inboundLeads.count(account.accountId)} leads in all, newest first. Times are in ${zone}.</p>
<form method="get" action="${CONSOLE_PREFIX}/leads" role="search" aria-label="Search and filter leads">
<div class="filters">
<div><label for="status">Status</label><select id="status" name="status">
<option value="">Any</option>${LEAD_STATUSES.map((status) => html`<option value="${status}"${q.status === status ? html` selected` : ''}>${STATUS_WORDS[status]}</option>`)}
</select></div>
<div><label for="q">Search <span class="hint">Name, email or phone digits</span></label><input type="search" id="q" name="q" value="${q.q}"></div>
<div><label for="source">Source</label><input type="text" id="source" name="source" value="${q.source}"></div>
<div><label for="vendor">Vendor</label><input type="text" id="vendor" name="vendor" value="${q.vendor}"></div>
<div><label for="dnc">Do not call</label><select id="dnc" name="dnc">
${[['', 'Any'], ['no', 'Callable only'], ['yes', 'Do-not-call only']].map(([value, label]) => html`<option value="${value}"${q.dnc === value ? html` selected` : ''}>${label}</option>`)}
</select></div>
<div><label for="since">Received since</label><input type="date" id="since" name="since" value="${q.since}"></div>
</div>
<div class="actions"><button type="submit">Search</button>${filtered ? html`<a class="button secondary" href="${CONSOLE_PREFIX}/leads">Clear</a>` : ''}</div>
</form>
${problem ? html`<p class="error" role="alert">${problem}</p>` : ''}
${page.leads.length === 0
    ? html`<p>${filtered ? 'No lead matches.' : html`No leads yet. <a href="${CONSOLE_PREFIX}/connections/lead-webhook">Connect a lead source or send a test lead</a>.`}</p>`
    : html`<div class="table-wrap"><table>
<caption class="muted">${filtered ? 'Matching leads' : 'Leads'}${q.cursor ? ', a later page' : ''}</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Phone</th><th scope="col">Source</th><th scope="col">Received</th><th scope="col">Status</th></tr></thead>
<tbody>${page.leads.map((lead) => html`<tr>
<td><a href="${CONSOLE_PREFIX}/leads/${lead.leadId}">${nameOf(lead) ?? lead.email ?? '(no name)'}</a></td>
<td>${lead.phone}</td>
<td>${lead.source ?? ''}</td>
<td>${timeElement(lead.receivedAt, zone)}</td>
<td>${statusBadge(statuses.get(lead.leadId), zone)}${lead.submissions > 1 ? html`<span class="badge">${lead.submissions} submissions</span>` : ''}</td>
</tr>`)}</tbody></table></div>`}
<nav class="actions" aria-label="Pages">${q.cursor ? html`<a href="${CONSOLE_PREFIX}/leads${keep.size > 0 ? `?${keep}` : ''}">First page</a>` : ''}${nextHref ? html`<a href="${nextHref}" rel="next">Next page</a>` : ''}</nav>`
      return sendPage(reply, { title: 'Inbound Leads', frame, body })
    })

    routes.get<{ Params: { leadId: string }; Querystring: { marked?: string } }>('/leads/:leadId', { schema: consoleItem('leadId') }, async (request, reply) => {
      const { account, principal } = signedIn(request)
      const zone = account.settings.timeZone
      // Within this account only: another account's lead id reads exactly like one that does not exist.
      let lead = leadline.inboundLeads.get(account.accountId, { leadId: request.params.leadId })
      if (!lead) {
        // Perhaps it arrived a moment ago: bring Inbound Leads up to date once.
        await leadline.runner.catchUp()
        lead = leadline.inboundLeads.get(account.accountId, { leadId: request.params.leadId })
      }
      const last10 = lead ? phoneIdentity(lead.phone) : undefined
      const stream = last10 ? leadStream(account.accountId, last10) : null
      let events = stream ? await leadline.store.readStream(stream) : []
      let history = stream && events.length > 0 ? buildLeadHistory(stream, events, null) : null
      if (lead && stream && history && history.state.textsReceived.at(-1) !== undefined && history.state.textsReceived.at(-1) !== history.state.texts.readThrough) {
        // Opening the lead's page reads its texts: recorded, so the Inbox and its count know.
        await leadline.commands.handle(stream, leadDecider, { type: 'MarkConversationRead' }, actingUser(request))
        events = await leadline.store.readStream(stream)
        history = buildLeadHistory(stream, events, null)
        await leadline.runner.catchUp()
      }
      const found = history ? { history, chain: verifyStream(events) } : null
      const frame = frameOf(request, reply, 'leads')
      if (!lead || !found || !stream) {
        return sendFailedPage(reply, { title: 'Lead not found', frame, body: html`<h1>Lead not found</h1><p>There is no such lead in ${account.name}. <a href="${CONSOLE_PREFIX}/leads">Back to Inbound Leads</a></p>` }, 404, { error: 'not_found', detail: 'there is no such lead in this account' })
      }
      const state = found.history.state
      const d = state.dialing
      const industry = withoutRecordings(lead.industryFields) as Record<string, string> | undefined
      const extra = (withoutRecordings(lead.extraFields) ?? []) as Array<{ name: string; value: unknown }>
      const calls = d.order.flatMap((id) => (d.calls[id] ? [d.calls[id]] : []))
      const payments = state.payments.order.flatMap((id) => (state.payments.requests[id] ? [state.payments.requests[id]] : []))
      const name = nameOf(lead) ?? lead.phone
      const summary = callSummary(d, zone, leadline.clock())
      const last = summary.lastOutcome
      const body = html`<p><a href="${CONSOLE_PREFIX}/leads">← Inbound Leads</a></p>
<h1>${name}</h1>
<p>${statusBadge(leadline.leadStatus.ofStream(account.accountId, stream), zone)}</p>
${Object.keys(state.suppressed).length === 0 ? '' : html`<p><span class="badge bad">do not call by number</span> ${Object.keys(state.suppressed).join(', ')} <span class="muted">opted out by number: never called or texted until the operator clears it (leadline leads clear-dnc --phone).</span></p>`}
${state.test ? html`<p><span class="badge">test lead</span> <span class="muted">A lead form's test submission: never called or texted.</span></p>` : ''}
<section aria-labelledby="details"><h2 id="details">Details</h2>
${fieldRows([
  ['Lead id', html`<code>${lead.leadId}</code>`], ['Phone', lead.phone], ['Name', nameOf(lead)], ['Email', lead.email], ['State', lead.state], ['Age', lead.age],
  ['Date of birth', lead.dob], ['Source', lead.source], ['Vendor', lead.vendor], ['Lead date', lead.leadDate], ['City', lead.city], ['ZIP', lead.zip], ['Address', lead.address],
  ['Lists', state.lists.join(', ')], ['Submissions', lead.submissions], ['Received', timeElement(lead.receivedAt, zone)], ['Updated', timeElement(lead.updatedAt, zone)],
  ...Object.entries(industry ?? {}).map(([k, v]) => [k.replace(/_/g, ' '), v] as const),
  ...extra.map((f) => [f.name, typeof f.value === 'string' ? f.value : JSON.stringify(f.value)] as const),
])}
</section>
${state.sourceFacts === null ? '' : html`<section aria-labelledby="source-facts"><h2 id="source-facts">From a ${state.sourceFacts.form === 'google_lead_form' ? 'Google Ads lead form' : state.sourceFacts.form === 'facebook_lead_ads' ? 'Facebook lead ad' : state.sourceFacts.form}</h2>
${fieldRows(Object.entries(state.sourceFacts.facts).map(([k, v]) => [k, v] as const))}
</section>`}
${conversationSection({ leadId: lead.leadId, messages: conversationThread(events, principal.user.userId), zone, csrf: frame.csrfToken, idempotencyKey: randomBytes(18).toString('base64url') })}
<section aria-labelledby="consent"><h2 id="consent">Consent evidence</h2>
<p class="muted">As the lead source sent it, one record per submission that carried any, never overwritten. Leadline keeps the evidence; whether it amounts to consent is the account's to judge.</p>
${state.consent.length === 0 ? html`<p class="muted">None sent.</p>` : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Received</th>${CONSENT_FIELDS.map((f) => html`<th scope="col">${CONSENT_FIELD_NAMES[f]}</th>`)}</tr></thead>
<tbody>${state.consent.map((record) => html`<tr><td>${timeElement(record.receivedAt, zone)}</td>${CONSENT_FIELDS.map((f) => html`<td>${record[f] ?? ''}</td>`)}</tr>`)}</tbody></table></div>
${state.consentTotal > state.consent.length ? html`<p class="muted">The newest ${state.consent.length} of ${state.consentTotal}; <code>leadline audit export</code> has every one.</p>` : ''}`}
</section>
${appointmentsSection({ appointments: state.appointments, leadId: lead.leadId, phone: lead.phone, state: lead.state, zone, now: leadline.clock(), csrf: frame.csrfToken, marked: request.query.marked })}
<section aria-labelledby="calls"><h2 id="calls">Calls and follow-ups</h2>
<p>Speed to lead: ${d.speedToLead === 'pending' ? 'not decided yet' : d.speedToLead === 'decided' ? 'called' : d.speedToLeadSkip ? html`did not call: ${localTimes(d.speedToLeadSkip.message, zone)} (<code>${d.speedToLeadSkip.reason}</code>${d.speedToLeadSkip.rule === undefined ? '' : html`, rule <code>${d.speedToLeadSkip.rule}</code>`})` : 'did not call (see the timeline for why)'}.
${d.followUpStopped ? html` Follow-ups stopped: ${d.followUpStopped}.` : ''}</p>
${fieldRows([
  ['Attempts', `${summary.attemptsToday} today, ${summary.attemptsTotal} in all`],
  ['Last outcome', last === null ? 'none yet' : html`${outcomeWords(last)}, ${timeElement(last.at, zone)}`],
  ['Callback asked for', last?.callbackAt ? timeElement(last.callbackAt, zone) : null],
  // That the lead texted back and when; what they wrote is in the Texts section above, for the owner only.
  ['Replied by text', state.lastReplyAt === null ? null : html`${state.replies === 1 ? 'once' : `${state.replies} times`}, last ${timeElement(state.lastReplyAt, zone)}: call them`],
  ['Follow-up paused', d.followUpPaused === null ? null : html`since ${timeElement(d.followUpPaused, zone)}: nothing goes out until it is resumed (<code>resume_follow_up</code>)`],
  ['Next follow-up', d.pendingFollowUp ? html`${d.pendingFollowUp.textStep === undefined ? `attempt ${d.pendingFollowUp.attempt}` : `a text (step ${d.pendingFollowUp.textStep})`}, due ${timeElement(d.pendingFollowUp.dueAt, zone)}` : 'none scheduled'],
])}
${calls.length === 0 ? html`<p class="muted">No calls.</p>` : html`<div class="table-wrap" role="region" tabindex="0" aria-label="Calls"><table>
<thead><tr><th scope="col">Decided</th><th scope="col">Why</th><th scope="col">Attempt</th><th scope="col">From → to</th><th scope="col">Outcome</th></tr></thead>
<tbody>${calls.map((c) => html`<tr><td>${timeElement(c.decidedAt, zone)}</td><td>${c.ownerNumbers ? 'Click-to-call (you first)' : (PURPOSE[c.purpose] ?? c.purpose)}</td><td class="num">${c.attempt}</td><td>${c.from} → ${c.to}</td>
<td>${callRowWords(c)}</td></tr>`)}</tbody></table></div>`}
</section>
<section aria-labelledby="notes"><h2 id="notes">Notes</h2>
${state.notes.length === 0 ? html`<p class="muted">No notes. An assistant adds them with <code>add_note</code>; the timeline keeps every one.</p>` : html`<ul class="notes">${state.notes.toReversed().map((note) => html`<li><span class="when">${timeElement(note.at, zone)} · ${describeActor(note.author)}</span><p>${note.text}</p></li>`)}</ul>
${state.notesTotal > state.notes.length ? html`<p class="muted">The newest ${state.notes.length} of ${state.notesTotal}; the timeline has every one.</p>` : ''}`}
</section>
${inboundSection(state.inbound, lead.leadId, zone, leadline.carrier.fetchVoicemail !== undefined)}
${assistantSection(state.assistant, zone)}
<section aria-labelledby="payments"><h2 id="payments">Payments</h2>
${payments.length === 0 ? html`<p class="muted">No pay-links.</p>` : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Requested</th><th scope="col">Amount</th><th scope="col">For</th><th scope="col">Pay-link</th><th scope="col">Status</th></tr></thead>
<tbody>${payments.map((p) => html`<tr><td>${timeElement(p.requestedAt, zone)}</td><td class="num">${money(p.amountCents, p.currency)}</td><td>${p.description}</td><td>${p.stage.replace(/_/g, ' ')}</td>
<td class="${p.status === 'settled' ? 'ok' : p.status === 'open' ? '' : 'bad'}">${p.status}${p.settledAt ? html` ${timeElement(p.settledAt, zone)}` : ''}</td></tr>`)}</tbody></table></div>`}
</section>
${simulateInboundSection(leadline.carrier.name, lead.leadId, frame.csrfToken, request.query)}
<section aria-labelledby="timeline"><h2 id="timeline">Timeline</h2>
<p class="muted">Everything that happened to this lead, oldest first, replayed from the log${found.chain ? '' : '; its hash chain is intact'}. Times are in ${zone}. The audit view (<code>leadline history</code>, the export) has every event with its internal ids.</p>
${found.chain ? html`<p class="error" role="alert">This lead's history fails verification at revision ${found.chain.revision} (${found.chain.problem}): tell the operator (<code>leadline audit verify</code>).</p>` : ''}
<ol class="timeline">${ownerEntries(found.history.entries).map((entry) => html`<li><span class="when">${timeElement(entry.recordedAt, zone)} · ${ownerActor(entry.actor, principal.user.userId)}</span>${ownerSummary(entry.summary, zone)}</li>`)}</ol>
</section>`
      return sendPage(reply, { title: name, frame, body })
    })
  })
}

const DISPOSITION_WORDS: Readonly<Record<AssistantDisposition, string>> = {
  qualified: 'qualified: call them', not_interested: 'not interested', callback_booked: 'callback booked', transferred: 'handed to a person',
  opted_out: 'opted out: no more calls', wrong_number: 'wrong number', no_conversation: 'no conversation',
}

/** The voice assistant's calls with the lead: outcomes and answers, never the transcript. */
function assistantSection(assistant: AssistantState, zone: string) {
  const ended = Object.values(assistant.calls).filter((c) => c.ended && c.endedAt !== null).sort((a, b) => (b.endedAt as string).localeCompare(a.endedAt as string))
  if (ended.length === 0) return ''
  return html`<section aria-labelledby="assistant"><h2 id="assistant">Voice assistant</h2>
<p class="muted">What the assistant recorded in its calls. The transcript stays in the log.</p>
${ended.map((c) => html`<h3>${timeElement(c.endedAt as string, zone)}: ${DISPOSITION_WORDS[c.disposition as AssistantDisposition] ?? c.disposition}</h3>
${fieldRows([
  ...c.answers.map((a) => [a.question, a.answer] as const),
  ['Callback', c.callbackAt === null ? null : timeElement(c.callbackAt, zone)],
  ['Why', c.why === null ? null : localTimes(c.why, zone)],
])}`)}
</section>`
}
