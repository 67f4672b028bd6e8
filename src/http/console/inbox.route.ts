/**
 * The Inbox (issue #44): the leads whose texts the owner has not read, the latest first (the
 * conversations read model), and the reply a lead's page sends: send_sms's own command, so its checks
 * all apply (do-not-call, the suppression list, the texting window, the opt-out line), under an
 * idempotency key from the rendered form so a double click sends one text.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyPluginAsync } from 'fastify'
import { sendSms } from '../../commands/send-sms.command.ts'
import { phoneIdentity } from '../../domain/lead/intake/phone.ts'
import { leadStream } from '../../domain/lead/lead.events.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import { conversationSection, conversationThread } from './conversation.ts'
import { html } from './html.ts'
import { CONSOLE_PREFIX, localTimes, timeElement } from './layout.ts'
import { actingUser, formField, frameOf, requireSession, sendFailedPage, sendPage, signedIn } from './session.ts'
import { consoleForm, consolePage } from './console.schema.ts'

const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{16,64}$/

export const inboxRoutes: FastifyPluginAsync = async (fastify) => {
  const leadline = fastify.leadline

  fastify.register(async (routes) => {
    routes.addHook('onRequest', requireSession(fastify))

    routes.get('/inbox', { schema: consolePage() }, async (request, reply) => {
      const frame = frameOf(request, reply, 'inbox')
      const { account } = signedIn(request)
      const zone = account.settings.timeZone
      const unread = leadline.conversations.unread(account.accountId)
      const body = html`<h1>Inbox</h1>
<p class="muted">Leads who texted you and whose texts you have not read yet, the latest first. Times are in ${zone}. Opening a lead reads its texts.</p>
${unread.length === 0 ? html`<p>Nothing unread.</p>` : html`<div class="table-wrap"><table>
<caption class="muted">Unread texts</caption>
<thead><tr><th scope="col">Lead</th><th scope="col">Phone</th><th scope="col">Unread</th><th scope="col">Last text</th></tr></thead>
<tbody>${unread.map((row) => html`<tr><td><a href="${CONSOLE_PREFIX}/leads/${row.leadId}#conversation">${row.name || row.phone || '(no name)'}</a></td><td>${row.phone ?? ''}</td>
<td class="num">${row.unread}</td><td>${timeElement(row.lastReceivedAt, zone)}</td></tr>`)}</tbody></table></div>`}`
      return sendPage(reply, { title: 'Inbox', frame, body })
    })

    routes.post<{ Params: { leadId: string } }>('/leads/:leadId/reply', { schema: consoleForm('leadId'), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const { account, principal } = signedIn(request)
      const zone = account.settings.timeZone
      const key = formField(request.body, 'idempotency_key')
      const text = formField(request.body, 'body')
      if (!IDEMPOTENCY_KEY.test(key)) throw new DomainError('invalid_request', 'the form has no valid send key: reload the page and try again')
      const lead = leadline.inboundLeads.get(account.accountId, { leadId: request.params.leadId })
      const last10 = lead ? phoneIdentity(lead.phone) : undefined
      if (!lead || !last10) throw new DomainError('lead_not_found', 'there is no such lead in this account')
      const stream = leadStream(account.accountId, last10)
      try {
        // One key a rendered form: the same send twice (a double click, a resent form) is one text.
        await sendSms(leadline, account, stream, { body: text, idempotencyKey: `console:${key}`, dryRun: false }, actingUser(request))
        return reply.redirect(`${CONSOLE_PREFIX}/leads/${lead.leadId}#conversation`, 303)
      } catch (error) {
        if (!(error instanceof DomainError) || error.code === 'lead_not_found') throw error
        const rule = typeof error.details?.rule === 'string' ? ` (rule ${error.details.rule})` : ''
        const next = typeof error.details?.next_allowed_at === 'string' ? html` It may be sent from ${timeElement(error.details.next_allowed_at, zone)}.` : ''
        const frame = frameOf(request, reply, 'leads')
        const messages = conversationThread(await leadline.store.readStream(stream), principal.user.userId)
        const problem = `Not sent: ${localTimes(error.message, zone)}${rule}. Nothing went out.`
        const body = html`<p><a href="${CONSOLE_PREFIX}/leads/${lead.leadId}">← ${lead.fullName ?? lead.phone}</a></p>
<h1>Text not sent</h1>
<p>${problem}${next}</p>
${conversationSection({ leadId: lead.leadId, messages, zone, csrf: frame.csrfToken, idempotencyKey: randomBytes(18).toString('base64url'), draft: text, error: problem })}`
        return sendFailedPage(reply, { title: 'Text not sent', frame, body }, 409, { error: 'invalid_request', detail: problem })
      }
    })
  })
}
