/**
 * Home (issue #44): who to call now. The queue is get_next_actions' own page (the same query,
 * next-actions.queries.ts), each lead with its reason in plain words, its local time, and whether a
 * call is allowed now and if not when, with the rule that holds it back (may-call.ts). "Call" is a
 * click-to-call: the owner's phone rings first, the lead once they press 1 (click-to-call.command.ts);
 * the form's idempotency key makes a double click one call.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { DateTime } from 'luxon'
import { clickToCall } from '../../commands/click-to-call.command.ts'
import type { CallCheck } from '../../domain/dialing/may-call.ts'
import { ownerPhones } from '../../domain/dialing/on-answer.ts'
import { phoneIdentity } from '../../domain/lead/intake/phone.ts'
import { leadStream } from '../../domain/lead/lead.events.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import type { CallQueue, StaleLead } from '../../../projections/stale-leads/next-actions.queries.ts'
import type { LeadActivityRow } from '../../../projections/stale-leads/stale-leads.queries.ts'
import { html, type Html } from './html.ts'
import { CONSOLE_PREFIX, csrfField, formatTime, localTimes, timeElement } from './layout.ts'
import { actingUser, formField, frameOf, requireSession, sendFailedPage, sendPage, signedIn } from './session.ts'
import { consoleForm, consolePage } from './console.schema.ts'

/** The queue shows this many leads: get_next_actions' largest page. */
export const HOME_QUEUE_SIZE = 100
const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{16,64}$/

/** Why the lead is in the queue, for the owner: get_next_actions' `why`, in words, with its time in the account's zone. */
function reasonWords(lead: StaleLead, row: LeadActivityRow | undefined, zone: string): Html | string {
  const at = (iso: string | null | undefined) => timeElement(iso ?? lead.last_touch, zone)
  switch (lead.why as string) {
    case 'replied':
      return html`Texted you back ${at(row?.repliedAt)}: <a href="${CONSOLE_PREFIX}/leads/${lead.lead_id}#conversation">read the texts</a> and call`
    case 'callback_due':
      return row?.callbackBy === 'account' ? html`The callback you scheduled for ${at(row.callbackAt)} is due` : html`Asked to be called back at ${at(row?.callbackAt)}`
    case 'assistant_qualified':
      return html`The voice assistant qualified them ${at(row?.qualifiedAt)}`
    case 'connect_missed':
      return html`Pressed 1 to talk to you ${at(row?.connectMissedAt)} and nobody picked up`
    case 'call_back':
      // Inbound calls (issue #43): get_next_actions lists a missed call from the lead as `call_back`.
      return html`Called you and nobody answered: call them back`
    case 'appointment_no_show':
      return lead.appointment?.marked === false
        ? html`Their ${lead.appointment.type} appointment ended ${at(lead.appointment.end)}: <a href="${CONSOLE_PREFIX}/leads/${lead.lead_id}#appointments">mark attended or no-show</a>`
        : html`Did not come to their ${lead.appointment?.type ?? ''} appointment ${at(lead.appointment?.start)}: call to book again`
    case 'appointment_today':
      return html`${lead.appointment?.type ?? 'Appointment'} today at ${at(lead.appointment?.start)}`
    case 'never_contacted':
      return html`New lead, received ${at(row?.receivedAt)}: nobody has reached them yet`
    case 'contacted_untouched':
      return html`Contacted ${at(row?.lastContactAt)}, no answer or reply since`
    default:
      return localTimes(lead.suggested_action, zone)
  }
}

/** The time where the lead is now, each zone they may be in named. */
function leadClock(now: Date, zones: readonly string[]): string {
  if (zones.length === 0) return 'unknown (no state or area code places them)'
  return zones.map((zone) => {
    const time = DateTime.fromJSDate(now, { zone }).setLocale('en-US')
    const abbreviation = time.toFormat('ZZZZ')
    return `${time.toFormat('h:mm a')} ${/^[A-Z]{2,5}$/.test(abbreviation) ? abbreviation : zone}`
  }).join(' or ')
}

/** May they be called now, in the policy's words; when not, when next and the rule. */
function allowedWords(check: CallCheck | undefined, zone: string): Html {
  if (check === undefined || check.allowed) return html`<span class="ok">You may call now</span>`
  const next = check.nextAllowedAt === null ? 'not allowed until this changes' : html`allowed from ${timeElement(check.nextAllowedAt, zone)}`
  return html`<span class="bad">Not now</span>: ${localTimes(check.message, zone)}${check.rule === undefined ? '' : html` (rule ${check.rule})`}; ${next}`
}

function queueItem(lead: StaleLead, queue: CallQueue, zone: string, now: Date, csrf: string, canCall: boolean): Html {
  const check = queue.checks.get(lead.lead_id)
  const allowed = check === undefined || check.allowed
  const name = lead.name ?? lead.phone
  return html`<li>
<div>
<h2><a href="${CONSOLE_PREFIX}/leads/${lead.lead_id}">${name}</a></h2>
<p>${reasonWords(lead, queue.rows.get(lead.lead_id), zone)}.</p>
<p class="muted">${lead.phone}${lead.source ? ` · ${lead.source}` : ''} · their time: ${leadClock(now, lead.lead_zones)}</p>
<p>${allowedWords(check, zone)}</p>
</div>
${allowed && canCall ? html`<form method="post" action="${CONSOLE_PREFIX}/leads/${lead.lead_id}/call">
${csrfField(csrf)}<input type="hidden" name="idempotency_key" value="${randomBytes(18).toString('base64url')}">
<button type="submit" aria-label="Call ${name}">Call</button>
</form>` : ''}
</li>`
}

export const homeRoutes: FastifyPluginAsync = async (fastify) => {
  const leadline = fastify.leadline

  /** The queue page, with a confirmation or a refusal above it. */
  async function home(request: FastifyRequest, reply: FastifyReply, message: { notice?: string; error?: string } = {}, status: 200 | 409 = 200): Promise<FastifyReply> {
    const frame = frameOf(request, reply, 'home')
    const { account } = signedIn(request)
    const zone = account.settings.timeZone
    const now = leadline.clock()
    const queue = await leadline.nextActions.getCallQueue(account, { limit: HOME_QUEUE_SIZE })
    let owners: readonly string[] = []
    try {
      owners = ownerPhones(account.settings.onAnswer)
    } catch {
      owners = []
    }
    const leads = queue.stale_leads
    const body = html`<h1>Call now</h1>
${message.error ? html`<p class="error" role="alert">${message.error}</p>` : ''}
<p class="muted">${leads.length === 0 ? 'Nobody is waiting for a call.' : `${leads.length === 1 ? '1 lead' : `${leads.length} leads`} to call, the most urgent first.`} Times are in ${zone}; it is ${formatTime(now.toISOString(), zone)}.</p>
${owners.length === 0
    ? html`<p class="panel">To call from here, name your phone in <a href="${CONSOLE_PREFIX}/settings">Settings</a> (on answer: <code>bridge:+1…</code> or <code>agent-first:+1…</code>): Leadline rings it first and connects the lead when you press 1.</p>`
    : html`<p class="muted">"Call" rings your phone (${owners.join(', ')}) first; press 1 when you answer and Leadline dials the lead.</p>`}
${leads.length === 0 ? '' : html`<ol class="queue">${leads.map((lead) => queueItem(lead, queue, zone, now, frame.csrfToken, owners.length > 0))}</ol>`}`
    if (status === 200) return sendPage(reply, { title: 'Call now', frame, body, notice: message.notice ?? null })
    return sendFailedPage(reply, { title: 'Call now', frame, body }, status, { error: 'invalid_request', detail: message.error ?? 'not called' })
  }

  fastify.register(async (routes) => {
    routes.addHook('onRequest', requireSession(fastify))

    routes.get('/home', { schema: consolePage() }, async (request, reply) => home(request, reply))

    routes.post<{ Params: { leadId: string } }>('/leads/:leadId/call', { schema: consoleForm('leadId'), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const { account } = signedIn(request)
      const key = formField(request.body, 'idempotency_key')
      if (!IDEMPOTENCY_KEY.test(key)) throw new DomainError('invalid_request', 'the form has no valid call key: reload the page and try again')
      const lead = leadline.inboundLeads.get(account.accountId, { leadId: request.params.leadId })
      const last10 = lead ? phoneIdentity(lead.phone) : undefined
      if (!lead || !last10) throw new DomainError('lead_not_found', 'there is no such lead in this account')
      try {
        // One key a rendered button: the same click twice (or two tabs posting it) is one call.
        const placed = await clickToCall(leadline, account, leadStream(account.accountId, last10), `console:${key}`, actingUser(request))
        const name = lead.fullName ?? lead.firstName ?? lead.phone
        return home(request, reply, { notice: `Calling your phone (${placed.ownerNumbers.join(', then ')}) now. Press 1 when you answer and Leadline dials ${name}.` })
      } catch (error) {
        if (!(error instanceof DomainError) || error.code === 'lead_not_found') throw error
        const rule = typeof error.details?.rule === 'string' ? ` (rule ${error.details.rule})` : ''
        return home(request, reply, { error: `Not called: ${localTimes(error.message, account.settings.timeZone)}${rule}. Nobody was rung.` }, 409)
      }
    })
  })
}
