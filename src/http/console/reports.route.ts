/**
 * Reports (issue #44): for the last 7, 30 or 90 days in the account's zone, every figure as a chart
 * beside the table of its numbers, and each table as a CSV download. Read from the reports read
 * model's buckets (projections/reports/), never by scanning leads; docs/reports.md defines the figures.
 */
import type { FastifyPluginAsync } from 'fastify'
import { REPORT_PERIODS, reportPeriod, type ReportDays } from '../../../projections/reports/reports.queries.ts'
import { csvLines } from '../../domain/shared/csv.ts'
import { money } from '../../domain/shared/printable.ts'
import { html } from './html.ts'
import { CONSOLE_PREFIX } from './layout.ts'
import { percent, reportTables, type ReportTable } from './reports/report-tables.ts'
import { frameOf, requireSession, sendFailedPage, sendPage, signedIn } from './session.ts'
import { consoleItem, consolePage } from './console.schema.ts'

const DEFAULT_DAYS: ReportDays = 30

/** The period asked for: 7, 30 or 90 days; anything else is the default. */
export function reportDays(value: unknown): ReportDays {
  const days = Number(value)
  return (REPORT_PERIODS as readonly number[]).includes(days) ? (days as ReportDays) : DEFAULT_DAYS
}

function tableHtml(table: ReportTable) {
  return html`<table>
<caption class="visually-hidden">${table.title}</caption>
<thead><tr>${table.columns.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
<tbody>${table.rows.length === 0
    ? html`<tr><td colspan="${table.columns.length}" class="muted">None in this period.</td></tr>`
    : table.rows.map((row) => html`<tr>${row.map((cell, i) => (i === 0 ? html`<th scope="row">${cell}</th>` : html`<td class="num">${cell}</td>`))}</tr>`)}</tbody>
</table>`
}

export const reportsRoutes: FastifyPluginAsync = async (fastify) => {
  const leadline = fastify.leadline

  fastify.register(async (routes) => {
    routes.addHook('onRequest', requireSession(fastify))

    routes.get<{ Querystring: { days?: string } }>('/reports', { schema: consolePage('days') }, async (request, reply) => {
      const frame = frameOf(request, reply, 'reports')
      const { account } = signedIn(request)
      const zone = account.settings.timeZone
      const days = reportDays(request.query.days)
      const period = reportPeriod(days, zone, leadline.clock())
      const figures = leadline.reports.figures(account.accountId, period)
      const t = figures.totals
      const paid = figures.payments.totals.map((p) => money(p.amountCents, p.currency)).join(', ') || 'none'
      const body = html`<h1>Reports</h1>
<nav class="periods" aria-label="Period">${REPORT_PERIODS.map((d) => html`<a href="${CONSOLE_PREFIX}/reports?days=${d}"${d === days ? html` aria-current="page"` : ''}>Last ${d} days</a>`)}</nav>
<p class="muted">${period.from} to ${period.to}, days in ${zone}. Each lead counts on the day it arrived. <a href="/docs/reports">What each figure counts</a>.</p>
<dl class="fields summary">
<dt>Leads</dt><dd>${t.leads}</dd>
<dt>Contact rate</dt><dd>${t.contactRate === null ? '—' : `${percent(t.contactRate)} %`} <span class="muted">(${t.reached} reached)</span></dd>
<dt>Speed to lead</dt><dd>${t.speedMedianSeconds === null ? '—' : `median ${t.speedMedianSeconds} s, p90 ${t.speedP90Seconds} s`}</dd>
<dt>Payments collected</dt><dd>${paid}</dd>
</dl>
${reportTables(figures).map((table) => html`<section class="report" aria-labelledby="${table.id}-title" id="${table.id}">
<h2 id="${table.id}-title">${table.title}</h2>
<p class="muted">${table.about}</p>
<div class="figure">
<div class="chart-box">${table.chart()}</div>
<div class="table-wrap" role="region" tabindex="0" aria-label="${table.title}: the numbers">${tableHtml(table)}</div>
</div>
<p><a href="${CONSOLE_PREFIX}/reports/${table.id}.csv?days=${days}" download>Download CSV<span class="visually-hidden">: ${table.title}</span></a></p>
</section>`)}`
      return sendPage(reply, { title: 'Reports', frame, body })
    })

    routes.get<{ Params: { file: string }; Querystring: { days?: string } }>('/reports/:file', { schema: { ...consolePage('days'), ...consoleItem('file') } }, async (request, reply) => {
      const { account } = signedIn(request)
      const id = request.params.file.endsWith('.csv') ? request.params.file.slice(0, -4) : null
      const days = reportDays(request.query.days)
      const period = reportPeriod(days, account.settings.timeZone, leadline.clock())
      const table = id === null ? undefined : reportTables(leadline.reports.figures(account.accountId, period)).find((t) => t.id === id)
      if (table === undefined) {
        const frame = frameOf(request, reply, 'reports')
        return sendFailedPage(reply, { title: 'Not found', frame, body: html`<h1>Not found</h1><p>There is no such report. <a href="${CONSOLE_PREFIX}/reports">Back to Reports</a></p>` }, 404, { error: 'not_found', detail: 'there is no such report' })
      }
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="leadline-${table.id}-${period.from}-to-${period.to}.csv"`)
        .send(csvLines([table.columns, ...table.rows]))
    })
  })
}
