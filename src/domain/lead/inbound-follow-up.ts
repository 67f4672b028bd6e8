/**
 * Where a person calling in meets the rest of the lead: a caller not on record becomes a lead (listed
 * in Inbound Leads, never dialed by speed to lead: they are calling), a call someone took reaches the
 * lead (its pending follow-up stops, as after an answer), and a missed call brings the pending
 * follow-up forward to now, or to the first moment the one contact policy allows.
 */
import { mayContact } from '../dialing/may-call.ts'
import { leadCallTarget, ruleOf } from './calls/call-target.ts'
import type { CallEvent } from './calls/calls.events.ts'
import type { DialingState } from './calls/dialing-state.ts'
import { decideIntake, type IntakeState } from './intake/intake.decider.ts'
import type { IntakeEvent } from './intake/intake.events.ts'
import type { InboundCommand } from './inbound/inbound.decider.ts'
import type { InboundEvent } from './inbound/inbound.events.ts'
import type { TextsState } from './texts/texts.decider.ts'

/** The source a lead first met by a call in is received with. */
export const INBOUND_CALL_SOURCE = 'inbound call'

type Lead = IntakeState & { readonly dialing: DialingState; readonly texts: TextsState }

/** The caller as a new lead: received and listed, with why speed to lead did not call (they called). */
export function newInboundLead(command: Extract<InboundCommand, { type: 'ReceiveInboundCall' }>, state: Lead, now: Date): IntakeEvent[] {
  const fields = { ...command.fields, source: command.fields.source ?? INBOUND_CALL_SOURCE }
  const events = decideIntake({ type: 'ReceiveLead', accountId: command.accountId, newLeadId: command.newLeadId, fields, list: true }, state, now)
  return events.map((event) =>
    event.type === 'LeadReceived'
      ? { ...event, data: { ...event.data, speedToLeadSkipped: { reason: 'inbound_call', message: 'the person called in: nobody dials them', nextAllowedAt: null } } }
      : event,
  )
}

/** What an inbound call's events do to the lead's pending follow-up. */
export function followUpForInbound(command: InboundCommand, state: Lead, events: readonly InboundEvent[], now: Date): CallEvent[] {
  const pending = state.dialing.pendingFollowUp
  if (pending === null) return []
  const at = now.toISOString()
  if (events.some((e) => e.type === 'InboundCallConnected')) {
    return [{ type: 'FollowUpStopped', data: { reason: 'answered', message: 'the lead called in and was connected', at } }]
  }
  if (!events.some((e) => e.type === 'InboundCallMissed') || !('settings' in command) || state.dialing.followUpPaused !== null) return []
  // Through the one contact policy: inside the calling hours (and the lead's own), never for a do-not-call lead.
  const check = mayContact(pending.textStep === undefined ? 'call' : 'text', command.settings, leadCallTarget(state, 'follow_up'), now)
  const dueAt = check.allowed ? at : check.nextAllowedAt
  if (dueAt === null || Date.parse(dueAt) >= Date.parse(pending.dueAt)) return []
  const rule = check.allowed ? {} : ruleOf(check)
  return [{ type: 'FollowUpRescheduled', data: { attempt: pending.attempt, dueAt, reason: 'called_in', message: 'the lead called in and nobody took it: follow-up brought forward', ...rule } }]
}
