/**
 * One readable line per event, for auditors reading a history: what happened, in the domain's words,
 * and who caused it. Every event type of the domain has its own summary (a missing one is a type
 * error); types this build does not know get a generic one. Recordings and transcripts are never
 * shown: their events say that one was stored, nothing more (spec §1.7).
 *
 * Values that came from outside (names, sources, messages) are made printable and clipped, so a
 * lead's data cannot move the cursor, rewrite a terminal line or smuggle a line break into a row.
 */
import type { AccountEvent } from '../domain/account/account.events.ts'
import type { LeadEvent } from '../domain/lead/lead.events.ts'
import type { LeadFields } from '../domain/lead/intake/normalize-lead-input.ts'
import { upcast } from '../domain/upcasters.ts'
import type { Actor, RecordedEvent } from '../domain/event.ts'
import type { IdempotencyEvent } from '../domain/idempotency/idempotency.events.ts'
import type { UserEvent } from '../domain/user/user.events.ts'

export type KnownEvent = AccountEvent | LeadEvent | IdempotencyEvent | UserEvent
type DataOf<T extends KnownEvent['type']> = Extract<KnownEvent, { type: T }>['data']
type Summaries = { readonly [T in KnownEvent['type']]: (data: DataOf<T>) => string }

// C0 and C1 controls, and the bidirectional overrides that can make text read differently from what it is.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g
const MAX_TEXT = 60

/** Outside text made safe to print on one line: controls become U+FFFD, long text is clipped with "…". */
export function printable(value: unknown, max = MAX_TEXT): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))
  const clean = text.replace(UNPRINTABLE, '\uFFFD')
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean
}

const quoted = (value: unknown) => `"${printable(value)}"`
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
/** An amount in a currency's smallest unit, as people write it: `50.00 USD`, `5000 JPY`. */
export function money(amountCents: number, currency: string): string {
  const code = printable(currency, 8).toUpperCase()
  try {
    const digits = new Intl.NumberFormat('en-US', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2
    return `${(amountCents / 10 ** digits).toFixed(digits)} ${code}`
  } catch {
    return `${amountCents} ${code} (smallest unit)`
  }
}

const PURPOSE: Readonly<Record<string, string>> = { speed_to_lead: 'speed to lead', follow_up: 'follow-up', place_call: 'place_call tool' }

/** The person's name as the lead carries it. */
export function leadName(fields: Partial<LeadFields> | null | undefined): string | null {
  if (!fields) return null
  const name = fields.fullName ?? [fields.firstName, fields.lastName].filter((p) => p !== undefined && p !== '').join(' ')
  return name === '' ? null : name
}

function receivedSummary(fields: LeadFields): string {
  const parts: string[] = []
  const name = leadName(fields)
  if (name !== null) parts.push(printable(name))
  parts.push(printable(fields.phone))
  if (fields.email !== undefined) parts.push(printable(fields.email))
  if (fields.state !== undefined) parts.push(printable(fields.state))
  if (fields.source !== undefined) parts.push(`source ${quoted(fields.source)}`)
  if (fields.vendor !== undefined) parts.push(`vendor ${quoted(fields.vendor)}`)
  if (fields.doNotCall === true) parts.push('do-not-call')
  const industry = Object.keys(fields.industryFields ?? {}).length
  if (industry > 0) parts.push(plural(industry, 'industry field'))
  const extra = (fields.extraFields ?? []).length
  if (extra > 0) parts.push(plural(extra, 'extra field'))
  return `lead received: ${parts.join(', ')}`
}

/** A submission's warnings, by code and the field as sent: `; warnings: phone_not_valid (phone)`. */
function warningList(warnings: readonly { code: string; field: string }[] | undefined): string {
  if (warnings === undefined || warnings.length === 0) return ''
  return `; warnings: ${warnings.map((w) => `${printable(w.code)} (${printable(w.field)})`).join(', ')}`
}

function changeList(changes: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(changes)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => (key === 'doNotCall' ? `do-not-call → ${value === true ? 'yes' : 'no'}` : `${key} → ${typeof value === 'string' ? quoted(value) : printable(value)}`))
}

const SUMMARIES: Summaries = {
  AccountCreated: (d) => `account ${quoted(d.name)} created (time zone ${printable(d.settings.timeZone)}, speed to lead ${d.settings.speedToLead ? 'on' : 'off'})`,
  AccountSettingsChanged: (d) => `settings changed: ${changeList(d.changes).join(', ') || 'nothing'}`,
  WebhookTokenIssued: (d) => `webhook token ${d.tokenId} issued (${printable(d.hint)})`,
  WebhookTokenRevoked: (d) => `webhook token ${d.tokenId} revoked (${printable(d.reason)})`,
  ApiKeyCreated: (d) => `API key ${d.keyId} created (${printable(d.hint)}): scopes ${d.scopes.join(', ')}${d.label !== null ? `, label ${quoted(d.label)}` : ''}`,
  ApiKeyRevoked: (d) => `API key ${d.keyId} revoked`,

  LeadReceived: (d) =>
    receivedSummary(d.fields) +
    warningList(d.warnings) +
    (d.list ? `; ${SUMMARIES.LeadAddedToList({ leadId: d.leadId, ...d.list })}` : '') +
    (d.speedToLeadSkipped ? `; ${SUMMARIES.SpeedToLeadSkipped({ leadId: d.leadId, ...d.speedToLeadSkipped, skippedAt: d.receivedAt })}` : ''),
  LeadUpdated: (d) => {
    const changed = changeList(d.changes)
    const more = [
      ...(Object.keys(d.industryFields).length > 0 ? [`${plural(Object.keys(d.industryFields).length, 'industry field')} set`] : []),
      ...(d.extraFields.length > 0 ? [`${plural(d.extraFields.length, 'extra field')} added`] : []),
    ]
    const all = [...changed, ...more]
    return `submitted again: ${all.length === 0 ? 'nothing changed' : all.join(', ')}${warningList(d.warnings)}`
  },
  LeadAddedToList: (d) => `added to list ${quoted(d.listName)}`,
  LeadDoNotCallCleared: () => 'do-not-call cleared',
  LeadMarkedDoNotCall: () => 'marked do-not-call',
  LeadPhoneConflict: (d) => `phone conflict (${printable(d.source)}): ${printable(d.message)}`,

  SpeedToLeadSkipped: (d) =>
    `speed to lead did not call: ${printable(d.message)} (${printable(d.reason)})${d.nextAllowedAt ? `; next allowed ${printable(d.nextAllowedAt)}` : ''}`,
  CallDecided: (d) =>
    `call decided: ${PURPOSE[d.purpose] ?? printable(d.purpose)}, attempt ${d.attempt}, ${printable(d.from)} → ${printable(d.to)}${d.idempotencyKey !== null ? ' (idempotency key given)' : ''}`,
  CallAttemptStarted: (d) => `call attempt started on node ${printable(d.node)}`,
  CallPlaced: (d) => `call placed through ${printable(d.carrier)} (call ${printable(d.callId)})`,
  CallFailed: (d) => `call failed: ${printable(d.failure)}: ${printable(d.message)}${d.carrierCode !== null ? ` (carrier code ${d.carrierCode})` : ''}`,
  CallOutcomeUnknown: (d) => `call outcome unknown: ${printable(d.reason)} (never retried)`,
  CallAnswered: (d) => `call answered${d.answeredBy ? ` (by ${printable(d.answeredBy)})` : ''}`,
  CallNotAnswered: (d) => `call not answered: ${printable(d.status)}`,
  CallCompleted: (d) => `call completed${d.durationSeconds !== null ? ` after ${d.durationSeconds} s` : ''}`,
  CallRecordingAvailable: () => 'recording stored (not shown)',
  CallTranscriptAvailable: () => 'transcript stored (not shown)',
  FollowUpScheduled: (d) => `follow-up scheduled: attempt ${d.attempt} due ${printable(d.dueAt)}`,
  FollowUpRescheduled: (d) => `follow-up moved: attempt ${d.attempt} due ${printable(d.dueAt)}: ${printable(d.message)} (${printable(d.reason)})`,
  FollowUpStopped: (d) => `follow-ups stopped: ${printable(d.message)} (${printable(d.reason)})`,

  PaymentRequested: (d) =>
    `payment requested: ${money(d.amountCents, d.currency)} for ${quoted(d.description)} through ${printable(d.provider)}${d.connectedAccount !== null ? ` on ${printable(d.connectedAccount)}` : ''}, pay-link to be texted ${printable(d.from)} → ${printable(d.to)}`,
  PayLinkCreated: (d) => `pay-link created by ${printable(d.provider)} (session ${printable(d.sessionId)}), expires ${printable(d.expiresAt)}`,
  PayLinkFailed: (d) => `pay-link not created: ${printable(d.failure)}: ${printable(d.message)}${d.providerCode !== null ? ` (provider code ${printable(d.providerCode)})` : ''}`,
  PayLinkTextAttempted: (d) => `pay-link text started on node ${printable(d.node)}, ${printable(d.from)} → ${printable(d.to)}`,
  PayLinkTexted: (d) => `pay-link texted through ${printable(d.carrier)} (message ${printable(d.messageId)})`,
  PayLinkTextFailed: (d) => `pay-link text failed: ${printable(d.failure)}: ${printable(d.message)}${d.carrierCode !== null ? ` (carrier code ${d.carrierCode})` : ''}`,
  PayLinkTextOutcomeUnknown: (d) => `pay-link text outcome unknown: ${printable(d.reason)} (never resent)`,
  PaymentSettled: (d) => `payment settled: ${money(d.amountCents, d.currency)} through ${printable(d.provider)}${d.paymentIntentId !== null ? ` (payment ${printable(d.paymentIntentId)})` : ''}`,
  PaymentFailed: (d) => `payment failed (${printable(d.provider)} session ${printable(d.sessionId)})`,
  PaymentLinkExpired: (d) => `pay-link expired unpaid (${printable(d.provider)} session ${printable(d.sessionId)})`,

  UserCreated: (d) => `console user ${printable(d.email)} created (${printable(d.role)})`,
  PasswordSetupIssued: (d) => `set-password link ${d.setupId} issued, valid until ${printable(d.expiresAt)}`,
  PasswordSet: (d) => `password set through link ${d.setupId}`,
  SignedIn: (d) => `signed in: session ${d.sessionId}, ends by ${printable(d.expiresAt)}`,
  SessionRenewed: (d) => `session ${d.sessionId} active`,
  SignedOut: (d) => `signed out: session ${d.sessionId}`,
  SessionRevoked: (d) => `session ${d.sessionId} ended (${printable(d.reason).replace(/_/g, ' ')})`,

  IdempotencyKeyClaimed: (d) => `idempotency key claimed for ${printable(d.tool)} by API key ${printable(d.keyId)}, honoured until ${printable(d.expiresAt)}`,
  IdempotencyResultRecorded: (d) => `idempotency result recorded: ${'error' in d ? `failed with ${printable(d.error.code)}` : 'succeeded'}`,
}

/** Every event type with its own summary. */
export const SUMMARISED_TYPES: readonly string[] = Object.keys(SUMMARIES)

// Member names whose values a generic summary never prints, whatever the event.
const UNSHOWN_MEMBER = /recording|transcript|url|body|text|secret|token|hash|key/i

/** A type this build does not know: its name and its short scalar members, nothing that might be private. */
function genericSummary(type: string, data: unknown): string {
  const words = printable(type.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase())
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return words
  const shown = Object.entries(data as Record<string, unknown>)
    .filter(([name, value]) => !UNSHOWN_MEMBER.test(name) && (typeof value === 'number' || typeof value === 'boolean' || (typeof value === 'string' && value.length <= MAX_TEXT)))
    .slice(0, 4)
    .map(([name, value]) => `${printable(name)} ${typeof value === 'string' ? quoted(value) : String(value)}`)
  return shown.length === 0 ? words : `${words}: ${shown.join(', ')}`
}

/** The event's one-line summary (read through the upcasters, so old versions read like today's). */
export function summarise(event: RecordedEvent): string {
  const current = upcast(event)
  const summary = (SUMMARIES as Readonly<Record<string, ((data: never) => string) | undefined>>)[current.type]
  if (summary === undefined) return genericSummary(current.type, current.data)
  try {
    return summary(current.data as never)
  } catch {
    // A malformed event of a known type still gets a line: the auditor sees it, and verify says whether it was tampered with.
    return `${genericSummary(current.type, current.data)} (unreadable ${printable(current.type)} data)`
  }
}

const ACTOR_KINDS: Readonly<Record<Actor['kind'], string>> = {
  webhook_token: 'webhook token',
  api_key: 'API key',
  operator: 'operator',
  user: 'user',
  process: 'process',
  carrier: 'carrier',
  payments: 'payments',
}

/** Who caused it: `webhook token wht_…`, `API key key_…`, `operator alice`, `process speed-to-lead`. */
export function describeActor(actor: { readonly kind: string; readonly id: string } | undefined): string {
  if (actor === undefined || typeof actor !== 'object') return 'unknown'
  const kind = ACTOR_KINDS[actor.kind as Actor['kind']] ?? printable(actor.kind)
  return `${kind} ${printable(actor.id)}`
}
