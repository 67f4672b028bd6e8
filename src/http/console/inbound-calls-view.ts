/**
 * The lead page's calls in: one line each (when, who took it or why nobody did, a call back asked
 * for, a voicemail's length), and the voicemail's player. The voicemail is fetched from the carrier
 * by call id for the signed-in owner of the lead's account, streamed on, never stored or logged.
 */
import type { FastifyInstance } from 'fastify'
import type { InboundCall, InboundState } from '../../domain/lead/inbound/inbound.decider.ts'
import { leadDecider } from '../../domain/lead/lead.decider.ts'
import { leadStream } from '../../domain/lead/lead.events.ts'
import { phoneIdentity } from '../../domain/lead/intake/phone.ts'
import { sendError } from '../errors.ts'
import { html } from './html.ts'
import { CONSOLE_PREFIX, timeElement } from './layout.ts'
import { signedIn } from './session.ts'

const MISSED: Readonly<Record<string, string>> = {
  outside_business_hours: 'missed: outside business hours',
  no_owner_answered: 'missed: no owner took it',
  no_owner_numbers: 'missed: no owner numbers are set',
  caller_hung_up: 'missed: they hung up before anyone took it',
}

function outcome(call: InboundCall): string {
  if (call.connected?.by === 'assistant') return 'answered by the voice assistant'
  if (call.connected) return `taken by ${call.connected.ownerNumber ?? `owner number ${(call.connected.leg ?? 0) + 1}`}`
  if (call.missed) return MISSED[call.missed.reason] ?? `missed (${call.missed.reason})`
  return call.ended ? 'ended' : 'ringing'
}

/** Newest first; nothing when the person never called. */
/** `playable`: the carrier serves voicemails (the simulated one keeps none). */
export function inboundSection(inbound: InboundState, leadId: string, zone: string, playable: boolean) {
  if (inbound.order.length === 0) return ''
  const calls = inbound.order.toReversed().flatMap((id) => (inbound.calls[id] ? [inbound.calls[id]] : []))
  return html`<section aria-labelledby="calls-in"><h2 id="calls-in">Calls in</h2>
<p class="muted">When this person called the account's number. A voicemail stays with the carrier.</p>
<ul class="calls-in">${calls.map((call) => html`<li>${timeElement(call.receivedAt, zone)}: ${outcome(call)}${call.callbackRequestedAt ? html`; asked for a call back` : ''}${call.voicemail ? html`; left a voicemail${call.voicemail.durationSeconds === null ? '' : ` of ${call.voicemail.durationSeconds} s`}${playable ? html` <audio controls preload="none" src="${CONSOLE_PREFIX}/leads/${leadId}/voicemail/${call.callId}"></audio>` : ''}` : ''}</li>`)}</ul>
</section>`
}

/** `GET /app/leads/:leadId/voicemail/:callId` (signed in): the voicemail of one of the lead's calls in, as the carrier serves it. */
export function voicemailRoute(routes: FastifyInstance, fastify: FastifyInstance): void {
  routes.get<{ Params: { leadId: string; callId: string } }>('/leads/:leadId/voicemail/:callId', async (request, reply) => {
    const leadline = fastify.leadline
    const { account } = signedIn(request)
    // Within this account only: another account's lead or call reads exactly like one that does not exist.
    const lead = leadline.inboundLeads.get(account.accountId, { leadId: request.params.leadId })
    const last10 = lead ? phoneIdentity(lead.phone) : undefined
    const state = last10 ? (await leadline.commands.load(leadStream(account.accountId, last10), leadDecider)).state : null
    if (!state?.inbound.calls[request.params.callId]?.voicemail || !leadline.carrier.fetchVoicemail) {
      return sendError(reply, 'not_found', 'there is no such voicemail')
    }
    const audio = await leadline.carrier.fetchVoicemail(request.params.callId)
    if (audio === null) return sendError(reply, 'not_found', 'the carrier no longer holds this voicemail')
    return reply.header('cache-control', 'no-store, private').type(audio.contentType).send(Buffer.from(audio.body))
  })
}
