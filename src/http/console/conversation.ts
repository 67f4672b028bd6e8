/**
 * A lead's text conversation, read from its stream for the signed-in owner's lead page (issue #44):
 * both directions, oldest first, each with its time and how it went. This is the one place what a lead
 * texted is shown (TextReceived's `transcript`, kept like a transcript everywhere else: tool answers,
 * alerts, event summaries and `leadline history` never carry it). Nothing here is logged or stored.
 */
import type { RecordedEvent } from '../../domain/event.ts'
import type { LeadEvent } from '../../domain/lead/lead.events.ts'
import { html, type Html } from './html.ts'
import { CONSOLE_PREFIX, csrfField, timeElement } from './layout.ts'

export interface ThreadMessage {
  readonly direction: 'in' | 'out'
  readonly at: string
  readonly body: string
  /** Who or what sent it, in words: the lead, another number, you, an AI agent, the follow-up, Leadline's automatic reply. */
  readonly who: string
  /** How it went: received, sending, sent, delivered, not delivered (the carrier's error), not sent (why), may not have been sent. */
  readonly status: string
  readonly failed: boolean
}

const KEYWORD: Readonly<Record<string, string>> = { opt_out: 'an opt-out: no more calls or texts', help: 'asks for help', opt_in: 'a carrier keyword (START), not acted on' }
const AUTOMATIC: Readonly<Record<string, string>> = { opt_out_confirmation: "Leadline's opt-out confirmation", help: "Leadline's answer to HELP" }

function sender(event: RecordedEvent, reason: string, userId: string): string {
  if (reason === 'follow_up') return 'the follow-up'
  const actor = event.metadata?.actor
  if (actor?.kind === 'user') return actor.id === userId ? 'you' : 'a team member'
  if (actor?.kind === 'api_key' || actor?.kind === 'oauth_grant') return 'an AI agent'
  return 'Leadline'
}

/** The messages of a lead's stream, oldest first; `userId`: the signed-in owner, who reads their own as "you". */
export function conversationThread(events: readonly RecordedEvent[], userId: string): ThreadMessage[] {
  const messages: Array<{ -readonly [K in keyof ThreadMessage]: ThreadMessage[K] }> = []
  const byText = new Map<string, (typeof messages)[number]>()
  const delivered = new Set<string>()
  for (const recorded of events) {
    const event = recorded as unknown as LeadEvent
    switch (event.type) {
      case 'TextReceived': {
        const d = event.data
        const keyword = d.keyword === null ? '' : `; ${KEYWORD[d.keyword] ?? d.keyword}`
        messages.push({ direction: 'in', at: d.receivedAt, body: d.transcript, who: d.otherNumber === true ? `${d.from}, not the lead's number` : 'the lead', status: `received${keyword}`, failed: false })
        break
      }
      case 'TextDecided': {
        const message = { direction: 'out' as const, at: event.data.at, body: event.data.body, who: sender(recorded, event.data.reason, userId), status: 'sending', failed: false }
        messages.push(message)
        byText.set(event.data.textId, message)
        break
      }
      case 'TextSent':
        // A quick receipt can be on the log before TextSent: the receipt says more.
        if (!delivered.has(event.data.textId)) setStatus(byText.get(event.data.textId), 'sent (the carrier took it)', false)
        break
      case 'TextDelivered': {
        const d = event.data
        delivered.add(d.textId)
        const code = d.errorCode === null ? '' : ` (carrier error ${d.errorCode})`
        setStatus(byText.get(d.textId), d.status === 'delivered' ? 'delivered' : `not delivered${code}`, d.status !== 'delivered')
        break
      }
      case 'TextFailed':
        setStatus(byText.get(event.data.textId), `not sent: ${event.data.message}`, true)
        break
      case 'TextOutcomeUnknown':
        setStatus(byText.get(event.data.textId), 'may not have been sent (the carrier did not confirm it; never resent)', true)
        break
      case 'TextExpired':
        setStatus(byText.get(event.data.textId), 'never sent', true)
        break
      case 'TextReplyClaimed': {
        const message = { direction: 'out' as const, at: event.data.at, body: event.data.body, who: AUTOMATIC[event.data.kind] ?? 'Leadline', status: 'sending', failed: false }
        messages.push(message)
        byText.set(`reply:${event.data.replyTo}`, message)
        break
      }
      case 'TextReplySent':
        setStatus(byText.get(`reply:${event.data.replyTo}`), 'sent (the carrier took it)', false)
        break
      case 'TextReplyFailed':
        setStatus(byText.get(`reply:${event.data.replyTo}`), `not sent: ${event.data.message}`, true)
        break
    }
  }
  return messages
}

function setStatus(message: { status: string; failed: boolean } | undefined, status: string, failed: boolean): void {
  if (message === undefined) return
  message.status = status
  message.failed = failed
}

/** The conversation section of a lead's page: the thread and the reply box. */
export function conversationSection(input: { leadId: string; messages: readonly ThreadMessage[]; zone: string; csrf: string; idempotencyKey: string; draft?: string; error?: string | null }): Html {
  const { messages, zone } = input
  return html`<section aria-labelledby="conversation"><h2 id="conversation">Texts</h2>
<p class="muted">Your text conversation with this lead, oldest first; times in ${zone}. What the lead texted is shown here only, to you.</p>
${messages.length === 0 ? html`<p class="muted">No texts yet.</p>` : html`<ol class="thread">${messages.map((m) => html`<li class="${m.direction}">
<span class="meta">${m.direction === 'in' ? 'From' : 'To the lead, by'} ${m.who} · ${timeElement(m.at, zone)}</span>
<p class="body">${m.body}</p>
<span class="meta${m.failed ? ' bad' : ''}">${m.status}</span>
</li>`)}</ol>`}
${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ''}
<form method="post" action="${CONSOLE_PREFIX}/leads/${input.leadId}/reply">
${csrfField(input.csrf)}<input type="hidden" name="idempotency_key" value="${input.idempotencyKey}">
<label for="reply-body">Reply <span class="hint">Sent from your business number under the texting rules (do-not-call, opt-outs, the hours); the opt-out line is added when your text has none.</span></label>
<textarea id="reply-body" name="body" rows="3" maxlength="1500" required>${input.draft ?? ''}</textarea>
<div class="actions"><button type="submit">Send text</button></div>
</form>
</section>`
}
