/**
 * Signed outbound events (issue #28): which domain events an account's subscribers hear about, under
 * which name, and what each carries. One table, from the domain's event type to the outbound type
 * and its payload. A payload holds ids, times and outcomes: never a recording, a transcript, what a
 * lead texted, or a secret (the delivery also passes the tools' egress filters on its way out).
 */
import type { RecordedEvent } from '../event.ts'
import type { LeadEvent } from '../lead/lead.events.ts'
import { parseLeadStream } from '../lead/lead.events.ts'
import { DomainError } from '../shared/decider.ts'

/** Every outbound event type, in the order the docs list them. */
export const OUTBOUND_EVENT_TYPES = [
  'lead.received',
  'lead.updated',
  'call.decided',
  'call.placed',
  'call.answered',
  'call.not_answered',
  'voicemail.left',
  'callback.requested',
  'lead.replied',
  'lead.do_not_call',
  'follow_up.stopped',
  'payment.requested',
  'payment.settled',
  'assistant.call_ended',
  'call.inbound.connected',
  'call.inbound.missed',
  'appointment.booked',
  'appointment.rescheduled',
  'appointment.cancelled',
  'appointment.no_show',
] as const
export type OutboundEventType = (typeof OUTBOUND_EVENT_TYPES)[number]

type Of<T extends LeadEvent['type']> = Extract<LeadEvent, { type: T }>['data']

/** domain event type → its outbound type and the members of its payload beyond the lead's own. */
const TABLE = {
  LeadReceived: ['lead.received', (d: Of<'LeadReceived'>) => ({ phone: d.fields.phone, source: d.fields.source ?? null, list: d.list?.listName ?? null, speed_to_lead_skipped: d.speedToLeadSkipped?.reason ?? null, at: d.receivedAt })],
  LeadUpdated: ['lead.updated', (d: Of<'LeadUpdated'>) => ({ changed: Object.keys(d.changes).sort(), at: d.updatedAt })],
  CallDecided: ['call.decided', (d: Of<'CallDecided'>) => ({ decision_id: d.decisionId, purpose: d.purpose, attempt: d.attempt, at: d.decidedAt })],
  CallPlaced: ['call.placed', (d: Of<'CallPlaced'>) => ({ decision_id: d.decisionId, call_id: d.callId, carrier: d.carrier, at: d.placedAt })],
  CallAnswered: ['call.answered', (d: Of<'CallAnswered'>) => ({ decision_id: d.decisionId, call_id: d.callId, answered_by: d.answeredBy, at: d.at })],
  CallNotAnswered: ['call.not_answered', (d: Of<'CallNotAnswered'>) => ({ decision_id: d.decisionId, call_id: d.callId, status: d.status, at: d.at })],
  VoicemailLeft: ['voicemail.left', (d: Of<'VoicemailLeft'>) => ({ decision_id: d.decisionId, call_id: d.callId, at: d.at })],
  CallbackRequested: ['callback.requested', (d: Of<'CallbackRequested'>) => ({ decision_id: d.decisionId, callback_at: d.callbackAt, at: d.at })],
  // The reply's id and time only: what the lead wrote is kept like a transcript (recordings-policy.ts).
  LeadReplied: ['lead.replied', (d: Of<'LeadReplied'>) => ({ message_id: d.messageId, at: d.repliedAt })],
  LeadMarkedDoNotCall: ['lead.do_not_call', (d: Of<'LeadMarkedDoNotCall'>) => ({ source: d.source ?? null, at: d.markedAt })],
  FollowUpStopped: ['follow_up.stopped', (d: Of<'FollowUpStopped'>) => ({ reason: d.reason, at: d.at })],
  PaymentRequested: ['payment.requested', (d: Of<'PaymentRequested'>) => ({ request_id: d.requestId, amount_cents: d.amountCents, currency: d.currency, provider: d.provider, at: d.requestedAt })],
  PaymentSettled: ['payment.settled', (d: Of<'PaymentSettled'>) => ({ request_id: d.requestId, amount_cents: d.amountCents, currency: d.currency, provider: d.provider, at: d.at })],
  // The outcome and the answers record_answer stored: never the transcript (AssistantTranscriptRecorded is not here).
  AssistantCallEnded: ['assistant.call_ended', (d: Of<'AssistantCallEnded'>) => ({
    decision_id: d.decisionId, call_id: d.callId, disposition: d.disposition, answers: d.answers.map((a) => ({ question: a.question, answer: a.answer })), callback_at: d.callbackAt, why: d.why,
    provider: d.provider, at: d.endedAt,
  })],
  // A person who called the account's number: who took it, or why nobody did. Never a voicemail or its URL.
  InboundCallConnected: ['call.inbound.connected', (d: Of<'InboundCallConnected'>) => ({ call_id: d.callId, taken_by: d.by, owner_number: d.ownerNumber, at: d.at })],
  InboundCallMissed: ['call.inbound.missed', (d: Of<'InboundCallMissed'>) => ({ call_id: d.callId, reason: d.reason, at: d.at })],
  // Appointments: ids, times and the type's name; never what the calendar event says beyond them.
  AppointmentBooked: ['appointment.booked', (d: Of<'AppointmentBooked'>) => ({
    appointment_id: d.appointmentId, type_id: d.appointmentTypeId, type_name: d.typeName, start: d.start, end: d.end, lead_zone: d.leadZone, provider: d.provider, by: d.by, at: d.at,
  })],
  AppointmentRescheduled: ['appointment.rescheduled', (d: Of<'AppointmentRescheduled'>) => ({ appointment_id: d.appointmentId, previous_start: d.previousStart, start: d.start, end: d.end, by: d.by, at: d.at })],
  AppointmentCancelled: ['appointment.cancelled', (d: Of<'AppointmentCancelled'>) => ({ appointment_id: d.appointmentId, by: d.by, reason: d.reason, at: d.at })],
  AppointmentNoShow: ['appointment.no_show', (d: Of<'AppointmentNoShow'>) => ({ appointment_id: d.appointmentId, by: d.by, at: d.at })],
} as const satisfies { readonly [T in LeadEvent['type']]?: readonly [OutboundEventType, (data: Of<T>) => Record<string, unknown>] }

/** The domain event types that become outbound events (what the delivery process is fed). */
export const OUTBOUND_SOURCE_TYPES: readonly string[] = Object.keys(TABLE)

/** An outbound event as subscribers receive it: Standard Webhooks' `{type, timestamp, data}`. */
export interface OutboundEvent {
  readonly type: OutboundEventType
  /** When the domain event was recorded (ISO 8601, UTC). */
  readonly timestamp: string
  readonly data: Record<string, unknown>
}

/** The outbound event for a lead's domain event, or null when subscribers do not hear of it. */
export function outboundEventOf(event: RecordedEvent): { accountId: string; phoneLast10: string; event: OutboundEvent } | null {
  const row = (TABLE as Readonly<Record<string, readonly [OutboundEventType, (data: never) => Record<string, unknown>] | undefined>>)[event.type]
  if (row === undefined) return null
  const lead = parseLeadStream(event.stream)
  if (lead === null) return null
  const leadId = (event.data as { leadId?: unknown }).leadId
  const [type, payload] = row
  return {
    accountId: lead.accountId,
    phoneLast10: lead.phoneLast10,
    event: {
      type,
      timestamp: event.recordedAt,
      data: { event_id: event.id, account_id: lead.accountId, lead_id: typeof leadId === 'string' ? leadId : null, ...payload(event.data as never) },
    },
  }
}

/** The subscription's types: known types (each once, in the table's order), or null for every type (none named, `*` or `all`). */
export function parseOutboundTypes(types: readonly string[] | null): OutboundEventType[] | null {
  if (types === null) return null
  const wanted = [...new Set(types.map((t) => t.trim().toLowerCase()).filter((t) => t !== ''))]
  if (wanted.length === 0 || wanted.includes('*') || wanted.includes('all')) return null
  const unknown = wanted.filter((t) => !(OUTBOUND_EVENT_TYPES as readonly string[]).includes(t))
  if (unknown.length > 0) throw new DomainError('invalid_event_types', `unknown event type ${unknown.join(', ')} (known: ${OUTBOUND_EVENT_TYPES.join(', ')})`)
  return OUTBOUND_EVENT_TYPES.filter((t) => wanted.includes(t))
}
