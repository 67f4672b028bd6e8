/**
 * Where appointments meet follow-up. A lead who booked is not cold-called: the pending follow-up
 * stops, and none is scheduled while a booked appointment has not ended (a callback the lead asked
 * for still is). A no-show puts the lead back on follow-up as a missed inbound call does: a call now,
 * or at the first moment the one contact policy allows. A cancellation resumes the policy's cadence
 * at its next step, as after a call nobody answered. Coming to the appointment stops what a no-show
 * had scheduled. Both a no-show and a cancellation count the lead as not reached again (lead.decider.ts
 * evolves `answeredAt` back to null), so the follow-up claims and the policy's later steps go out.
 */
import type { AccountSettings } from '../account/account-settings.ts'
import { mayCall } from '../dialing/may-call.ts'
import { leadCallTarget, ruleOf, type WithTexts } from './calls/call-target.ts'
import type { CallEvent } from './calls/calls.events.ts'
import type { LeadWithCalls } from './calls/dialing-state.ts'
import { nextFollowUp } from './calls/follow-up.ts'
import type { AppointmentsState } from './appointments/appointments.decider.ts'
import type { AppointmentEvent } from './appointments/appointments.events.ts'

type Lead = LeadWithCalls & WithTexts & { readonly appointments: AppointmentsState }

const BOOKED = { reason: 'appointment_booked', message: 'the lead booked an appointment: no follow-up while it stands' } as const

/** A booked appointment that has not ended at `now` (not this one): the lead is expected then, not called before. */
export function standingAppointment(appointments: AppointmentsState, now: Date, except?: string): string | null {
  for (const id of appointments.order) {
    const record = appointments.appointments[id]
    if (record !== undefined && id !== except && record.status === 'booked' && Date.parse(record.end) > now.getTime()) return id
  }
  return null
}

/**
 * What the appointment events just decided do to the lead's follow-up. `before`: the lead as the
 * command found it; `after`: with the appointment events applied. `settings`: the account's, when
 * the command carried them (a no-show or a cancellation without them resumes nothing).
 */
export function followUpForAppointment(before: Lead, after: Lead, events: readonly AppointmentEvent[], settings: AccountSettings | undefined, now: Date): CallEvent[] {
  const at = now.toISOString()
  const pending = before.dialing.pendingFollowUp
  const kinds = new Set(events.map((e) => e.type))
  if (kinds.has('AppointmentBooked')) return pending === null ? [] : [{ type: 'FollowUpStopped', data: { ...BOOKED, at } }]
  if (kinds.has('AppointmentAttended')) {
    return pending === null ? [] : [{ type: 'FollowUpStopped', data: { reason: 'appointment_attended', message: 'the lead came to the appointment', at } }]
  }
  const noShow = kinds.has('AppointmentNoShow')
  if ((!noShow && !kinds.has('AppointmentCancelled')) || settings === undefined || after.doNotCall) return []
  // Another booking still stands: the lead is expected then.
  if (standingAppointment(after.appointments, now) !== null) return []
  if (!noShow) {
    if (pending !== null) return []
    const last = after.dialing.order[after.dialing.order.length - 1] ?? ''
    return nextFollowUp(after, settings, last, now)
  }
  const check = mayCall(settings, leadCallTarget(after, 'follow_up'), now)
  const dueAt = check.allowed ? at : check.nextAllowedAt
  if (dueAt === null) return []
  const rule = check.allowed ? {} : ruleOf(check)
  if (pending !== null) {
    if (Date.parse(dueAt) >= Date.parse(pending.dueAt)) return []
    return [{ type: 'FollowUpRescheduled', data: { attempt: pending.attempt, dueAt, reason: 'appointment_no_show', message: 'the lead missed the appointment: follow-up brought forward', ...rule } }]
  }
  const afterDecisionId = after.dialing.order[after.dialing.order.length - 1] ?? ''
  return [{ type: 'FollowUpScheduled', data: { leadId: after.leadId, attempt: after.dialing.order.length + 1, dueAt, afterDecisionId } }]
}

/**
 * While a booked appointment stands, a follow-up the policy would schedule (after an unanswered call,
 * a voicemail, a text step) is stopped instead; a callback the lead asked for, or a call back after a
 * connect that reached nobody, still goes out.
 */
export function heldForAppointment<E extends { readonly type: string }>(events: readonly E[], appointments: AppointmentsState, now: Date): Array<E | CallEvent> {
  if (!events.some((e) => e.type === 'FollowUpScheduled') || standingAppointment(appointments, now) === null) return [...events]
  if (events.some((e) => e.type === 'CallbackRequested' || e.type === 'CallbackScheduled')) return [...events]
  const at = now.toISOString()
  return events.map((e) => {
    if (e.type !== 'FollowUpScheduled') return e
    const scheduled = e as unknown as Extract<CallEvent, { type: 'FollowUpScheduled' }>
    return scheduled.data.connectMissed === true ? e : { type: 'FollowUpStopped', data: { ...BOOKED, at } }
  })
}
