/**
 * Calls (issue #44): the account's calls of both directions, newest first, with how each went, who
 * answered, how long it lasted, whether a voicemail was left and the lead's source; filtered by
 * outcome, source and the days in the account's zone. Never a recording or a transcript: the call log
 * read model holds neither.
 */
import type { FastifyPluginAsync } from 'fastify'
import { DateTime } from 'luxon'
import { CALL_LOG_OUTCOMES, type CallLogFilter, type CallLogOutcome, type CallLogPage } from '../../../projections/reports/call-log.queries.ts'
import type { AnsweredBy } from '../../../projections/reports/call-log.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import { html } from './html.ts'
import { CONSOLE_PREFIX, timeElement } from './layout.ts'
import { frameOf, requireSession, sendPage, signedIn } from './session.ts'
import { consolePage } from './console.schema.ts'

export const CALLS_PAGE_SIZE = 25

export const OUTCOME_WORDS: Readonly<Record<CallLogOutcome, string>> = {
  answered: 'answered', machine: 'a machine answered', no_answer: 'no answer', busy: 'busy', failed: 'failed', unknown: 'outcome unknown',
  agent_unavailable: 'no owner took it', missed: 'missed', in_progress: 'in progress',
}
const ANSWERED_BY: Readonly<Record<AnsweredBy, string>> = { person: 'the lead', machine: 'a machine', owner: 'the owner', assistant: 'the voice assistant' }
const PURPOSE: Readonly<Record<string, string>> = { speed_to_lead: 'speed to lead', follow_up: 'follow-up', place_call: 'placed by an agent' }

interface CallsQuery {
  outcome?: string
  source?: string
  from?: string
  to?: string
  cursor?: string
}

const str = (value: unknown) => (typeof value === 'string' ? value.trim().slice(0, 200) : '')

/** A local day (`YYYY-MM-DD`) in `zone` as the instant it starts, `plusDays` later; null when it is not a date. */
function dayStart(day: string, zone: string, plusDays = 0): string | null {
  const start = DateTime.fromISO(day, { zone })
  return start.isValid && /^\d{4}-\d{2}-\d{2}$/.test(day) ? (start.startOf('day').plus({ days: plusDays }).toUTC().toISO() as string) : null
}

function minutes(seconds: number | null): string {
  if (seconds === null) return ''
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`
}

export const callsRoutes: FastifyPluginAsync = async (fastify) => {
  const leadline = fastify.leadline

  fastify.register(async (routes) => {
    routes.addHook('onRequest', requireSession(fastify))

    routes.get<{ Querystring: CallsQuery }>('/calls', { schema: consolePage('outcome', 'source', 'from', 'to', 'cursor') }, async (request, reply) => {
      const frame = frameOf(request, reply, 'calls')
      const { account } = signedIn(request)
      const zone = account.settings.timeZone
      const q = { outcome: str(request.query.outcome), source: str(request.query.source), from: str(request.query.from), to: str(request.query.to), cursor: str(request.query.cursor) }
      const filter: { -readonly [K in keyof CallLogFilter]: CallLogFilter[K] } = { limit: CALLS_PAGE_SIZE }
      const problems: string[] = []
      if (q.outcome) {
        if ((CALL_LOG_OUTCOMES as readonly string[]).includes(q.outcome)) filter.outcome = q.outcome as CallLogOutcome
        else problems.push(`"${q.outcome}" is not an outcome.`)
      }
      if (q.source) filter.source = q.source
      if (q.from) {
        const since = dayStart(q.from, zone)
        if (since === null) problems.push(`"${q.from}" is not a date.`)
        else filter.since = since
      }
      if (q.to) {
        const until = dayStart(q.to, zone, 1)
        if (until === null) problems.push(`"${q.to}" is not a date.`)
        else filter.until = until
      }
      if (q.cursor) filter.cursor = q.cursor
      let page: CallLogPage = { calls: [], nextCursor: null }
      if (problems.length === 0) {
        try {
          page = leadline.callLog.page(account.accountId, filter)
        } catch (error) {
          if (!(error instanceof DomainError)) throw error
          problems.push('That page link no longer works: start from the first page.')
        }
      }
      const keep = new URLSearchParams(Object.entries(q).filter(([k, v]) => k !== 'cursor' && v !== ''))
      const filtered = keep.size > 0
      const sources = leadline.reports.sources(account.accountId)
      if (q.source && !sources.includes(q.source)) sources.unshift(q.source)
      const names = new Map(page.calls.map((c) => {
        const lead = leadline.inboundLeads.get(account.accountId, { leadId: c.leadId })
        const name = lead ? (lead.fullName ?? ([lead.firstName, lead.lastName].filter(Boolean).join(' ') || lead.phone)) : c.leadId
        return [c.leadId, name] as const
      }))
      const nextHref = page.nextCursor ? `${CONSOLE_PREFIX}/calls?${new URLSearchParams([...keep, ['cursor', page.nextCursor]])}` : null
      const body = html`<h1>Calls</h1>
<p class="muted">Calls Leadline placed and calls that came in, newest first. Times are in ${zone}. No recording and no transcript is shown here.</p>
<form method="get" action="${CONSOLE_PREFIX}/calls" role="search" aria-label="Filter calls">
<div class="filters">
<div><label for="outcome">Outcome</label><select id="outcome" name="outcome">
<option value="">Any</option>${CALL_LOG_OUTCOMES.map((o) => html`<option value="${o}"${q.outcome === o ? html` selected` : ''}>${OUTCOME_WORDS[o]}</option>`)}
</select></div>
<div><label for="source">Source</label><select id="source" name="source">
<option value="">Any</option>${sources.map((s) => html`<option value="${s}"${q.source === s ? html` selected` : ''}>${s}</option>`)}
</select></div>
<div><label for="from">From</label><input type="date" id="from" name="from" value="${q.from}"></div>
<div><label for="to">To</label><input type="date" id="to" name="to" value="${q.to}"></div>
</div>
<div class="actions"><button type="submit">Filter</button>${filtered ? html`<a class="button secondary" href="${CONSOLE_PREFIX}/calls">Clear</a>` : ''}</div>
</form>
${problems.length > 0 ? html`<p class="error" role="alert">${problems.join(' ')}</p>` : ''}
${page.calls.length === 0
    ? html`<p>${filtered ? 'No call matches.' : 'No calls yet.'}</p>`
    : html`<div class="table-wrap" role="region" tabindex="0" aria-label="Calls"><table class="calls">
<caption class="muted">${filtered ? 'Matching calls' : 'Calls'}${q.cursor ? ', a later page' : ''}</caption>
<thead><tr><th scope="col">When</th><th scope="col">Direction</th><th scope="col">Lead</th><th scope="col">Source</th><th scope="col">Outcome</th><th scope="col">Answered by</th><th scope="col">Duration</th><th scope="col">Voicemail</th></tr></thead>
<tbody>${page.calls.map((c) => html`<tr data-outcome="${c.outcome}">
<td>${timeElement(c.at, zone)}</td>
<td>${c.direction === 'inbound' ? 'inbound' : html`outbound <span class="muted">(${PURPOSE[c.purpose ?? ''] ?? c.purpose ?? ''})</span>`}</td>
<td><a href="${CONSOLE_PREFIX}/leads/${c.leadId}">${names.get(c.leadId) ?? c.leadId}</a></td>
<td>${c.source}</td>
<td class="${c.outcome === 'answered' ? 'ok' : c.outcome === 'failed' || c.outcome === 'missed' ? 'bad' : ''}">${OUTCOME_WORDS[c.outcome] ?? c.outcome}</td>
<td>${c.answeredBy === null ? '' : ANSWERED_BY[c.answeredBy]}</td>
<td class="num">${minutes(c.durationSeconds)}</td>
<td>${c.voicemail ? (c.direction === 'inbound' ? 'the caller left one' : 'left') : ''}</td>
</tr>`)}</tbody></table></div>`}
<nav class="actions" aria-label="Pages">${q.cursor ? html`<a href="${CONSOLE_PREFIX}/calls${keep.size > 0 ? `?${keep}` : ''}">First page</a>` : ''}${nextHref ? html`<a href="${nextHref}" rel="next">Next page</a>` : ''}</nav>`
      return sendPage(reply, { title: 'Calls', frame, body })
    })
  })
}
