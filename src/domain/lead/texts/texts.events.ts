/** The texts slice's events on the lead's stream: decisions to text the person, their claims and what the carrier did. */
import type { DomainEvent } from '../../shared/decider.ts'
import { plural, printable, quoted, type EventSummaries } from '../../shared/printable.ts'
import { effectOf, type Effect } from '../../shared/effect.ts'

/**
 * Why the text goes out: the send_sms tool, a text step of the follow-up policy, the text-back after a
 * missed inbound call, or an appointment's confirmation or reminder (appointment-texts.ts).
 */
export type TextReason = 'send_sms' | 'follow_up' | 'missed_call' | 'appointment_confirmation' | 'appointment_reminder'

/**
 * The decision to text this person once. Exactly one exists per text id (and per idempotency key).
 * `body` is the final text, opt-out line included; `messagingService`: the account's Twilio Messaging
 * Service (`MG…`) it goes through, or null for the bare caller ID `from`.
 */
export type TextDecided = DomainEvent<
  'TextDecided',
  {
    leadId: string
    textId: string
    reason: TextReason
    from: string
    to: string
    body: string
    messagingService: string | null
    segments: number
    /** The follow-up step this text is (follow_up only). */
    step?: number
    /** The appointment this text is about (appointment_confirmation and appointment_reminder only). */
    appointmentId?: string
    idempotencyKey: string | null
    at: string
  }
>
/** Recorded before the carrier is asked, so a crash leaves "outcome unknown", never a second text. */
export type TextAttemptStarted = DomainEvent<'TextAttemptStarted', { textId: string; node: string; at: string }>
export type TextSent = DomainEvent<'TextSent', { textId: string; messageId: string; carrier: string; at: string }>
/** The carrier refused it, or (no claim before it) the rules refused it as it was to go out. */
export type TextFailed = DomainEvent<'TextFailed', { textId: string; failure: string; message: string; carrierCode: number | null; at: string }>
/**
 * The carrier's delivery receipt for a text it took (Twilio's status callback): its final status,
 * recorded once a text; `errorCode` is the carrier's (Twilio 30003: unreachable handset), null when none.
 */
export type TextDelivered = DomainEvent<'TextDelivered', { textId: string; messageId: string; status: TextDeliveryStatus; errorCode: number | null; at: string }>
/** A receipt's final statuses: anything before them (queued, sent) is not recorded. */
export type TextDeliveryStatus = 'delivered' | 'undelivered' | 'failed'
export const TEXT_DELIVERY_STATUSES: readonly TextDeliveryStatus[] = ['delivered', 'undelivered', 'failed']
export type TextOutcomeUnknown = DomainEvent<'TextOutcomeUnknown', { textId: string; reason: string; at: string }>
/** Never sent: the log was restored from a backup taken before it was known to have gone out (`reason`: `restored_from_backup`). */
export type TextExpired = DomainEvent<'TextExpired', { textId: string; reason: string; at: string }>

/**
 * The decision to text back the caller of missed inbound call `callId` (issue #43): appended with the
 * text's own `TextDecided` (reason `missed_call`, id `textId`), in the same append, once a call. It marks
 * the decision, not the delivery: the texter sends it and records TextSent or TextFailed on `textId`.
 * Nothing the caller said or typed is in it.
 */
export type MissedCallTextSent = DomainEvent<'MissedCallTextSent', { callId: string; textId: string; missedAt: string; at: string }>
/**
 * No text-back for missed call `callId`, and why: `text_back_off`, `already_texted_back` (one in the
 * last 24 hours), `too_late` (the missed call reached the process long after), or the contact policy's
 * refusal (`do_not_call`, `suppressed`, `outside_calling_hours`, `no_caller_id`, …). Decided once a call.
 */
export type MissedCallTextSkipped = DomainEvent<'MissedCallTextSkipped', { callId: string; reason: string; message: string; missedAt: string; at: string }>
/** One text planned about an appointment: its stable id, what it is, and when it is due. */
export interface PlannedAppointmentText {
  readonly textId: string
  readonly kind: 'confirmation' | 'reminder'
  /** The reminder's offset before the start (reminders only). */
  readonly minutesBefore: number | null
  readonly dueAt: string
}
/**
 * The texts planned about appointment `appointmentId` starting at `start` (UTC), as the account's
 * settings said when it was booked or moved: decided once per booking or move (`planFor`: when the
 * appointment was booked, or last moved). A moved appointment gets a new plan; the old one's texts are never sent.
 */
export type AppointmentTextsScheduled = DomainEvent<
  'AppointmentTextsScheduled',
  { leadId: string; appointmentId: string; start: string; planFor: string; texts: PlannedAppointmentText[]; at: string }
>
/** A due appointment text waits for the texting window to open at `until` (before the appointment's start). */
export type AppointmentTextDeferred = DomainEvent<
  'AppointmentTextDeferred',
  { appointmentId: string; textId: string; kind: 'confirmation' | 'reminder'; until: string; reason: string; message: string; at: string }
>
/**
 * An appointment text never sent, and why: the contact policy's rule (`do_not_call`, `suppressed`,
 * `outside_calling_hours` when the window opens too late, …), `appointment_started`, `too_late` (a
 * later reminder says the same), `confirmation_off`/`reminder_off` (the settings changed), `appointment_changed`.
 */
export type AppointmentTextSkipped = DomainEvent<
  'AppointmentTextSkipped',
  { appointmentId: string; textId: string; kind: 'confirmation' | 'reminder'; reason: string; message: string; at: string }
>
/**
 * The owner read the lead's text conversation in the console, through inbound message `throughMessageId`
 * (`unread`: how many of the lead's texts were new to them). What the texts said is not here.
 */
export type ConversationRead = DomainEvent<'ConversationRead', { leadId: string; throughMessageId: string; unread: number; at: string }>

export type TextEvent =
  | TextDecided | TextAttemptStarted | TextSent | TextDelivered | TextFailed | TextOutcomeUnknown | TextExpired | MissedCallTextSent | MissedCallTextSkipped | ConversationRead
  | AppointmentTextsScheduled | AppointmentTextDeferred | AppointmentTextSkipped

export function isTextEvent(event: { readonly type: string }): event is TextEvent {
  return Object.hasOwn(TEXT_SUMMARIES, event.type)
}

const REASON: Readonly<Record<TextReason, string>> = {
  send_sms: 'send_sms tool', follow_up: 'follow-up', missed_call: 'missed-call text-back', appointment_confirmation: 'appointment confirmation', appointment_reminder: 'appointment reminder',
}

function plannedText(text: PlannedAppointmentText): string {
  return `${text.kind === 'confirmation' ? 'confirmation' : `reminder ${text.minutesBefore ?? '?'} min before`} at ${printable(text.dueAt)}`
}

// Every type of the union, once (the compiler refuses a missing or a stray one): also what `is…Event` checks.
// The body is the business's own words (not the lead's), shown clipped; the whole is in the log.
export const TEXT_SUMMARIES: EventSummaries<TextEvent> = {
  TextDecided: (d) =>
    `text decided: ${REASON[d.reason] ?? printable(d.reason)}${d.step !== undefined ? ` step ${d.step}` : ''}, ${plural(d.segments, 'segment')}, ${printable(d.from)} → ${printable(d.to)}${d.messagingService !== null ? ` through Messaging Service ${printable(d.messagingService)}` : ''}: ${quoted(d.body)}${d.idempotencyKey !== null ? ' (idempotency key given)' : ''}`,
  TextAttemptStarted: (d) => `text started on node ${printable(d.node)}`,
  TextSent: (d) => `text sent through ${printable(d.carrier)} (message ${printable(d.messageId)})`,
  TextDelivered: (d) => `text ${d.status === 'delivered' ? 'delivered' : `not delivered (${printable(d.status)})`} by the carrier (message ${printable(d.messageId)})${d.errorCode !== null ? ` (carrier error ${d.errorCode})` : ''}`,
  TextFailed: (d) => `text not sent: ${printable(d.failure)}: ${printable(d.message)}${d.carrierCode !== null ? ` (carrier code ${d.carrierCode})` : ''}`,
  TextOutcomeUnknown: (d) => `text outcome unknown: ${printable(d.reason)} (never resent)`,
  TextExpired: (d) => `text expired, never sent: ${printable(d.reason)}`,
  MissedCallTextSent: (d) => `missed call ${printable(d.callId)} texted back (text ${printable(d.textId)})`,
  MissedCallTextSkipped: (d) => `missed call ${printable(d.callId)} not texted back: ${printable(d.reason)}: ${printable(d.message)}`,
  ConversationRead: (d) => `text conversation read in the console (${plural(d.unread, 'new text')})`,
  AppointmentTextsScheduled: (d) =>
    `appointment ${printable(d.appointmentId)} at ${printable(d.start)}: ${d.texts.length === 0 ? 'no texts planned' : `texts planned: ${d.texts.map(plannedText).join('; ')}`}`,
  AppointmentTextDeferred: (d) => `appointment ${printable(d.appointmentId)}: its ${printable(d.kind)} waits for the texting window until ${printable(d.until)}: ${printable(d.reason)}: ${printable(d.message)}`,
  AppointmentTextSkipped: (d) => `appointment ${printable(d.appointmentId)}: its ${printable(d.kind)} is not sent: ${printable(d.reason)}: ${printable(d.message)}`,
}

/**
 * The texter's effect: a text decision, claimed once before the carrier is asked, ended by what the
 * carrier did, or refused as it went out (TextFailed with no claim: do-not-call, the hours closed).
 */
export const TEXT_EFFECT = effectOf<TextEvent>()({
  name: 'texter',
  decision: 'TextDecided',
  decidedAt: 'at',
  id: 'textId',
  claims: { TextAttemptStarted: 'at' },
  outcomes: ['TextSent', 'TextFailed', 'TextOutcomeUnknown', 'TextExpired'],
})

/** The slice's effects: the claims read model follows each (lead.decider.ts gathers every slice's). */
export const TEXT_EFFECTS: readonly Effect[] = [TEXT_EFFECT]
