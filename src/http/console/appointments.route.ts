/**
 * A lead's appointments on its console page (issue #45): upcoming and past, their times in the
 * account's zone with the zone named (and the lead's own time beside), and for one that has begun the
 * owner's "Attended" and "No-show" buttons: a form each, through MarkAppointmentOutcome as update_lead
 * marks it, so a no-show puts the lead back on follow-up here too.
 */
import type { FastifyPluginAsync } from 'fastify'
import { DateTime } from 'luxon'
import { changeLead } from '../../commands/change-lead.command.ts'
import { leadTimeZone } from '../../domain/dialing/lead-time-zone.ts'
import { appointmentViews, type AppointmentView } from '../../domain/lead/appointments/appointment-times.ts'
import type { AppointmentsState } from '../../domain/lead/appointments/appointments.decider.ts'
import { phoneIdentity } from '../../domain/lead/intake/phone.ts'
import { leadStream } from '../../domain/lead/lead.events.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import { html, type Html } from './html.ts'
import { CONSOLE_PREFIX, csrfField, timeElement } from './layout.ts'
import { actingUser, formField, requireSession, signedIn } from './session.ts'
import { consoleForm } from './console.schema.ts'

const STATUS_WORDS: Readonly<Record<string, string>> = { booked: 'booked', cancelled: 'cancelled', attended: 'attended', no_show: 'no-show' }
const OUTCOMES = ['attended', 'no_show'] as const
type Outcome = (typeof OUTCOMES)[number]

/** The lead's wall clock for a time: `1:00 PM CDT`, the zone named. */
function leadClock(iso: string, zone: string): string {
  const time = DateTime.fromISO(iso, { zone }).setLocale('en-US')
  const abbreviation = time.toFormat('ZZZZ')
  return `${time.toFormat('h:mm a')} ${/^[A-Z]{2,5}$/.test(abbreviation) ? abbreviation : zone}`
}

function row(view: AppointmentView, leadId: string, zone: string, csrf: string): Html {
  const r = view.record
  const ended = !view.upcoming && r.status === 'booked'
  const status = r.status === 'booked' && ended ? html`<span class="badge bad">ended, not marked</span>` : html`<span class="badge${r.status === 'no_show' || r.status === 'cancelled' ? ' bad' : r.status === 'attended' ? ' ok' : ''}">${STATUS_WORDS[r.status] ?? r.status}</span>`
  const forms = view.markable
    ? OUTCOMES.filter((outcome) => outcome !== r.status).map((outcome) => html`<form method="post" action="${CONSOLE_PREFIX}/leads/${leadId}/appointments/${r.appointmentId}/outcome" class="inline">
${csrfField(csrf)}<input type="hidden" name="outcome" value="${outcome}"><button type="submit"${outcome === 'no_show' ? html` class="secondary"` : ''}>${outcome === 'attended' ? 'Attended' : 'No-show'}</button>
</form>`)
    : []
  return html`<tr><td>${r.typeName}</td><td>${timeElement(r.start, zone)} to ${timeElement(r.end, zone)}${view.lead === null || view.lead.zone === zone ? '' : html`<br><span class="muted">their time: ${leadClock(r.start, view.lead.zone)}</span>`}</td>
<td>${status}</td><td>${forms.length === 0 ? (view.upcoming ? html`<span class="muted">mark it once it has begun</span>` : '') : forms}</td></tr>`
}

/** The lead page's Appointments section; nothing when the lead has none. */
export function appointmentsSection(input: { appointments: AppointmentsState; leadId: string; phone: string; state: string | null; zone: string; now: Date; csrf: string; marked?: unknown }): Html | '' {
  if (input.appointments.order.length === 0) return ''
  const leadZone = leadTimeZone({ phone: input.phone, ...(input.state ? { state: input.state } : {}) })?.zone ?? null
  const { upcoming, past } = appointmentViews(input.appointments, input.zone, leadZone, input.now)
  const marked = typeof input.marked === 'string' && (OUTCOMES as readonly string[]).includes(input.marked) ? (input.marked as Outcome) : null
  // Scrollable on a phone: focusable, named, as the Calls page's table is.
  const table = (views: AppointmentView[], caption: string) => html`<div class="table-wrap" role="region" tabindex="0" aria-label="${caption.split(',')[0]} appointments"><table>
<caption class="muted">${caption}</caption>
<thead><tr><th scope="col">Type</th><th scope="col">When (${input.zone})</th><th scope="col">Status</th><th scope="col">Mark</th></tr></thead>
<tbody>${views.map((view) => row(view, input.leadId, input.zone, input.csrf))}</tbody></table></div>`
  return html`<section aria-labelledby="appointments"><h2 id="appointments">Appointments</h2>
${marked === null ? '' : html`<p role="status">Marked ${marked === 'attended' ? 'attended' : html`no-show: follow-up calls them again`}.</p>`}
${upcoming.length === 0 ? html`<p class="muted">Nothing upcoming.</p>` : table(upcoming, 'Upcoming, soonest first')}
${past.length === 0 ? '' : table(past, 'Past, latest first')}
</section>`
}

export const appointmentsRoutes: FastifyPluginAsync = async (fastify) => {
  const leadline = fastify.leadline
  fastify.register(async (routes) => {
    routes.addHook('onRequest', requireSession(fastify))
    routes.post<{ Params: { leadId: string; appointmentId: string } }>(
      '/leads/:leadId/appointments/:appointmentId/outcome',
      { schema: consoleForm('leadId', 'appointmentId'), preHandler: fastify.csrfProtection },
      async (request, reply) => {
        const { account } = signedIn(request)
        const lead = leadline.inboundLeads.get(account.accountId, { leadId: request.params.leadId })
        const last10 = lead ? phoneIdentity(lead.phone) : undefined
        if (!lead || last10 === undefined) throw new DomainError('lead_not_found', 'there is no such lead in this account')
        const outcome = formField(request.body, 'outcome')
        if (!(OUTCOMES as readonly string[]).includes(outcome)) throw new DomainError('invalid_outcome', 'the outcome is attended or no-show')
        const command = { type: 'MarkAppointmentOutcome' as const, appointmentId: request.params.appointmentId, outcome: outcome as Outcome, by: 'owner' as const, settings: account.settings }
        await changeLead(leadline, leadStream(account.accountId, last10), command, false, actingUser(request))
        await leadline.runner.catchUp()
        return reply.redirect(`${CONSOLE_PREFIX}/leads/${encodeURIComponent(lead.leadId)}?marked=${outcome}#appointments`, 303)
      },
    )
  })
}
