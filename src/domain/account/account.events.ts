/** Events of the `account-{accountId}` stream: the account, its settings, webhook tokens and API keys (hashes only). */
import type { DomainEvent } from '../shared/decider.ts'
import type { AccountSettings, SettingsChange } from './account-settings.ts'
import { changeList, printable, quoted, type EventSummaries } from '../shared/printable.ts'
import { briefSummary } from './assistant-brief.ts'
import type { FieldMapping } from '../lead/intake/field-map.ts'
import type { OutboundEventType } from '../outbound-events/outbound-events.ts'
import type { AppointmentType } from '../appointments/appointment-type.ts'

export const SCOPES = ['read', 'write', 'dial'] as const
export type Scope = (typeof SCOPES)[number]

export type AccountCreated = DomainEvent<
  'AccountCreated',
  { accountId: string; name: string; settings: AccountSettings; createdAt: string }
>
export type AccountSettingsChanged = DomainEvent<'AccountSettingsChanged', { changes: SettingsChange }>
export type WebhookTokenIssued = DomainEvent<
  'WebhookTokenIssued',
  { tokenId: string; tokenHash: string; hint: string; issuedAt: string }
>
export type WebhookTokenRevoked = DomainEvent<
  'WebhookTokenRevoked',
  { tokenId: string; reason: 'rotated'; revokedAt: string }
>
export type ApiKeyCreated = DomainEvent<
  'ApiKeyCreated',
  { keyId: string; keyHash: string; hint: string; scopes: Scope[]; label: string | null; createdAt: string }
>
export type ApiKeyRevoked = DomainEvent<'ApiKeyRevoked', { keyId: string; revokedAt: string }>
/**
 * The owner consented in the console to an OAuth client acting on this account with these scopes
 * (docs/mcp.md, "Connect"). The tokens themselves live with the authorization server, as hashes;
 * the grant here is what a token's use is checked against, so revoking it stops every token at once.
 */
export type OAuthGrantCreated = DomainEvent<
  'OAuthGrantCreated',
  { grantId: string; clientId: string; clientName: string; userId: string; scopes: Scope[]; createdAt: string }
>
export type OAuthGrantRevoked = DomainEvent<'OAuthGrantRevoked', { grantId: string; reason: 'owner' | 'client' | 'refresh_token_reused'; revokedAt: string }>
/**
 * The key Google Ads lead forms send as `google_key`: kept only as a salted SHA-256 hash, never shown
 * again (it is chosen by the owner and typed into Google's form, so it is no secret of ours to print).
 */
export type GoogleKeySet = DomainEvent<'GoogleKeySet', { keyHash: string; salt: string; setAt: string }>
export type GoogleKeyCleared = DomainEvent<'GoogleKeyCleared', { clearedAt: string }>
/** A lead source's field map (field-map.ts), replacing any it had; applied to leads that arrive after it. */
export type SourceFieldMapSet = DomainEvent<'SourceFieldMapSet', { source: string; mappings: FieldMapping[]; setAt: string }>
export type SourceFieldMapRemoved = DomainEvent<'SourceFieldMapRemoved', { source: string; removedAt: string }>
/**
 * A URL subscribed to the account's outbound events (`types` null: every type). The signing secret
 * is kept sealed (src/domain/sealed-secrets.ts): the delivery needs it again, so a hash will not do.
 */
export type EventsSubscribed = DomainEvent<
  'EventsSubscribed',
  { subscriptionId: string; url: string; types: OutboundEventType[] | null; sealedSecret: string; secretHint: string; subscribedAt: string }
>
export type EventsSecretRotated = DomainEvent<'EventsSecretRotated', { subscriptionId: string; sealedSecret: string; secretHint: string; rotatedAt: string }>
export type EventsUnsubscribed = DomainEvent<'EventsUnsubscribed', { subscriptionId: string; unsubscribedAt: string }>

/** A calendar the account's connection can write to: its id for later calls, its name, its zone when it names one. */
export interface ConnectedCalendar {
  readonly id: string
  readonly name: string
  readonly timeZone: string | null
}
/**
 * The account's one calendar connection (issue #45), replacing any before it. The credentials (an app
 * password, a refresh token, an API key) are kept sealed (src/domain/sealed-secrets.ts): Leadline opens
 * the calendar with them again at each booking, so a hash will not do.
 */
export type CalendarConnected = DomainEvent<
  'CalendarConnected',
  { provider: string; label: string; sealedCredentials: string; calendars: ConnectedCalendar[]; connectedAt: string }
>
export type CalendarDisconnected = DomainEvent<'CalendarDisconnected', { disconnectedAt: string }>
/** An appointment type created or changed (the whole type, checked by appointment-type.ts). */
export type AppointmentTypeSaved = DomainEvent<'AppointmentTypeSaved', { type: AppointmentType; savedAt: string }>
export type AppointmentTypeRemoved = DomainEvent<'AppointmentTypeRemoved', { typeId: string; removedAt: string }>

export type AccountEvent =
  | AccountCreated
  | AccountSettingsChanged
  | WebhookTokenIssued
  | WebhookTokenRevoked
  | ApiKeyCreated
  | ApiKeyRevoked
  | OAuthGrantCreated
  | OAuthGrantRevoked
  | GoogleKeySet
  | GoogleKeyCleared
  | SourceFieldMapSet
  | SourceFieldMapRemoved
  | EventsSubscribed
  | EventsSecretRotated
  | EventsUnsubscribed
  | CalendarConnected
  | CalendarDisconnected
  | AppointmentTypeSaved
  | AppointmentTypeRemoved

export const ACCOUNT_EVENT_TYPES: readonly AccountEvent['type'][] = [
  'AccountCreated',
  'AccountSettingsChanged',
  'WebhookTokenIssued',
  'WebhookTokenRevoked',
  'ApiKeyCreated',
  'ApiKeyRevoked',
  'OAuthGrantCreated',
  'OAuthGrantRevoked',
  'GoogleKeySet',
  'GoogleKeyCleared',
  'SourceFieldMapSet',
  'SourceFieldMapRemoved',
  'EventsSubscribed',
  'EventsSecretRotated',
  'EventsUnsubscribed',
  'CalendarConnected',
  'CalendarDisconnected',
  'AppointmentTypeSaved',
  'AppointmentTypeRemoved',
]

export function accountStream(accountId: string): string {
  return `account-${accountId}`
}

export const ACCOUNT_SUMMARIES: EventSummaries<AccountEvent> = {
  AccountCreated: (d) => `account ${quoted(d.name)} created (time zone ${printable(d.settings.timeZone)}, speed to lead ${d.settings.speedToLead ? 'on' : 'off'})`,
  AccountSettingsChanged: (d) => {
    // The brief is long prose: its line names its shape, not its text.
    const { assistantBrief, ...rest } = d.changes
    const brief = assistantBrief === undefined ? [] : [`assistant brief → ${briefSummary(assistantBrief)}`]
    return `settings changed: ${[...changeList(rest), ...brief].join(', ') || 'nothing'}`
  },
  WebhookTokenIssued: (d) => `webhook token ${d.tokenId} issued (${printable(d.hint)})`,
  WebhookTokenRevoked: (d) => `webhook token ${d.tokenId} revoked (${printable(d.reason)})`,
  ApiKeyCreated: (d) => `API key ${d.keyId} created (${printable(d.hint)}): scopes ${d.scopes.join(', ')}${d.label !== null ? `, label ${quoted(d.label)}` : ''}`,
  ApiKeyRevoked: (d) => `API key ${d.keyId} revoked`,
  OAuthGrantCreated: (d) => `OAuth grant ${d.grantId} to client ${quoted(d.clientName)} (${printable(d.clientId)}) by user ${d.userId}: scopes ${d.scopes.join(', ')}`,
  OAuthGrantRevoked: (d) => `OAuth grant ${d.grantId} revoked (${d.reason === 'owner' ? 'by the owner' : d.reason === 'client' ? 'by its client' : 'a refresh token was used twice: every token of the grant ends'})`,
  GoogleKeySet: () => 'Google lead-form key set (kept as a hash)',
  GoogleKeyCleared: () => 'Google lead-form key removed',
  SourceFieldMapSet: (d) => `field map of source ${quoted(d.source)} set: ${d.mappings.map((m) => `${printable(m.field)} ← ${printable(m.path)}`).join(', ')}`,
  SourceFieldMapRemoved: (d) => `field map of source ${quoted(d.source)} removed`,
  EventsSubscribed: (d) => `events subscription ${d.subscriptionId} to ${quoted(d.url)} (${d.types === null ? 'every type' : d.types.join(', ')}), secret ${printable(d.secretHint)}`,
  EventsSecretRotated: (d) => `events subscription ${d.subscriptionId}: signing secret rotated (${printable(d.secretHint)})`,
  EventsUnsubscribed: (d) => `events subscription ${d.subscriptionId} removed`,
  CalendarConnected: (d) => `calendar connected: ${printable(d.provider)} ${quoted(d.label)} (${d.calendars.length} calendar${d.calendars.length === 1 ? '' : 's'}; credentials kept sealed)`,
  CalendarDisconnected: () => 'calendar disconnected',
  AppointmentTypeSaved: (d) => `appointment type ${printable(d.type.id)} saved: ${quoted(d.type.name)}, ${d.type.durationMinutes} min${d.type.maxPerDay === null ? '' : `, at most ${d.type.maxPerDay} a day`}`,
  AppointmentTypeRemoved: (d) => `appointment type ${printable(d.typeId)} removed`,
}
