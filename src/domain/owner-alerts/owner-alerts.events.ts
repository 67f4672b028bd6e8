/**
 * Owner alerts (issue #28): a text to the owner's own number when something happens that they asked
 * to hear of. Each alert has a stream of its own, `alert-{accountId}-{eventId}`, named for the event
 * it reports: its claim is the stream's first event, appended with `no_stream`, so one event is
 * alerted at most once on any number of nodes and across crashes (a crash between the claim and the
 * carrier's answer leaves the alert unsent, never sent twice).
 */
import type { DomainEvent } from '../shared/decider.ts'
import { printable, type EventSummaries } from '../shared/printable.ts'

/** What an owner may be alerted of, as `--alerts` names it. */
export const ALERT_KINDS = ['new_lead', 'callback', 'replied', 'payment', 'missed_call'] as const
export type AlertKind = (typeof ALERT_KINDS)[number]

/** The domain event each kind reports. */
export const ALERT_SOURCES: { readonly [K in AlertKind]: string } = {
  new_lead: 'LeadReceived',
  callback: 'CallbackRequested',
  replied: 'LeadReplied',
  payment: 'PaymentSettled',
  missed_call: 'InboundCallMissed',
}

export function alertKindOf(eventType: string): AlertKind | null {
  return ALERT_KINDS.find((kind) => ALERT_SOURCES[kind] === eventType) ?? null
}

/** The claim, before the carrier is asked; `eventId` is the reported event's, `body` what is texted. */
export type OwnerAlertClaimed = DomainEvent<
  'OwnerAlertClaimed',
  { eventId: string; kind: AlertKind; leadStream: string; from: string; to: string; body: string; node: string; at: string }
>
export type OwnerAlertSent = DomainEvent<'OwnerAlertSent', { eventId: string; messageId: string; carrier: string; at: string }>
/** Not sent (`failure`: the carrier's), or perhaps sent (`unknown_outcome`): never sent again either way. */
export type OwnerAlertFailed = DomainEvent<'OwnerAlertFailed', { eventId: string; failure: string; message: string; at: string }>

export type OwnerAlertEvent = OwnerAlertClaimed | OwnerAlertSent | OwnerAlertFailed

export function ownerAlertStream(accountId: string, eventId: string): string {
  return `alert-${accountId}-${eventId}`
}

export const OWNER_ALERT_SUMMARIES: EventSummaries<OwnerAlertEvent> = {
  OwnerAlertClaimed: (d) => `owner alert (${d.kind}) for event ${printable(d.eventId)} claimed, to ${printable(d.to)}`,
  OwnerAlertSent: (d) => `owner alert sent (${printable(d.carrier)} ${printable(d.messageId)})`,
  OwnerAlertFailed: (d) => `owner alert not sent: ${printable(d.failure)}`,
}
