/**
 * Events of the `number-{sender}` stream: which account a sender belongs to. A sender is an E.164
 * phone number (a caller ID) or a Twilio Messaging Service SID (`MG…`). One stream per sender, so
 * two accounts claiming one number race on one append and exactly one wins, on any node.
 */
import type { DomainEvent } from '../shared/decider.ts'
import { printable, type EventSummaries } from '../shared/printable.ts'

export type SenderKind = 'phone_number' | 'messaging_service'

/**
 * What the account holds the sender for. `caller_id` and `messaging_service` follow the account's
 * setting of that name: changing the setting releases the old sender. `inbound`: a number put in use
 * for the account ("Use for this account": its calls and texts in are routed here), which no change
 * of a setting releases.
 */
export type SenderUse = 'caller_id' | 'messaging_service' | 'inbound'

/** Why a claim ended: the account's setting moved to another sender (or none), the change it was claimed for was refused, or an upgrade gave it to the older account. */
export type ReleaseReason = 'replaced' | 'cleared' | 'setting_refused' | 'shared_before_claims'

export type NumberClaimed = DomainEvent<
  'NumberClaimed',
  {
    sender: string
    kind: SenderKind
    accountId: string
    use: SenderUse
    /** How the carrier holds a phone number (`incoming_number`, `verified_caller_id`), `simulated`, or null when it was not asked (a Messaging Service, an upgrade). */
    carrierHolds: string | null
    claimedAt: string
  }
>
export type NumberReleased = DomainEvent<'NumberReleased', { sender: string; accountId: string; reason: ReleaseReason; releasedAt: string }>

export type NumberClaimEvent = NumberClaimed | NumberReleased

export function numberClaimStream(sender: string): string {
  return `number-${sender}`
}

const RELEASE_REASONS: Record<string, string> = {
  replaced: 'replaced by another',
  cleared: 'setting cleared',
  setting_refused: 'the settings change it was claimed for was refused',
  shared_before_claims: 'shared with an older account before claims: the older account keeps it',
}

const USE_WORDS: Record<string, string> = { caller_id: 'its caller ID', messaging_service: 'its Messaging Service', inbound: 'its number in use (calls and texts in)' }

export const NUMBER_CLAIM_SUMMARIES: EventSummaries<NumberClaimEvent> = {
  NumberClaimed: (d) =>
    `${d.kind === 'phone_number' ? 'number' : 'Messaging Service'} ${printable(d.sender)} claimed by account ${printable(d.accountId)} as ${USE_WORDS[d.use] ?? printable(d.use)}${d.carrierHolds !== null ? ` (carrier: ${printable(d.carrierHolds)})` : ''}`,
  NumberReleased: (d) =>
    `${printable(d.sender)} released by account ${printable(d.accountId)} (${RELEASE_REASONS[d.reason] ?? printable(d.reason)})`,
}
