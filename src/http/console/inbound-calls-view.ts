/** The lead page's calls in: one line each (when, who took it or why nobody did, a call back asked for, a voicemail's length). */
import type { InboundCall, InboundState } from '../../domain/lead/inbound/inbound.decider.ts'
import { html } from './html.ts'
import { timeElement } from './layout.ts'

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
export function inboundSection(inbound: InboundState, zone: string) {
  if (inbound.order.length === 0) return ''
  const calls = inbound.order.toReversed().flatMap((id) => (inbound.calls[id] ? [inbound.calls[id]] : []))
  return html`<section aria-labelledby="calls-in"><h2 id="calls-in">Calls in</h2>
<p class="muted">When this person called the account's number. A voicemail stays with the carrier.</p>
<ul class="calls-in">${calls.map((call) => html`<li>${timeElement(call.receivedAt, zone)}: ${outcome(call)}${call.callbackRequestedAt ? html`; asked for a call back` : ''}${call.voicemail ? html`; left a voicemail${call.voicemail.durationSeconds === null ? '' : ` of ${call.voicemail.durationSeconds} s`}` : ''}</li>`)}</ul>
</section>`
}
