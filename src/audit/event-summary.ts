/**
 * One readable line per event, for auditors reading a history: what happened, in the domain's words,
 * and who caused it. Every event type of the domain has its own summary, declared by its slice
 * (`*.events.ts`); types this build does not know get a generic one. Recordings and transcripts are never
 * shown: their events say that one was stored, nothing more (spec §1.7).
 *
 * Values that came from outside (names, sources, messages) are made printable and clipped, so a
 * lead's data cannot move the cursor, rewrite a terminal line or smuggle a line break into a row.
 */
import { ACCOUNT_SUMMARIES } from '../domain/account/account.events.ts'
import { LEAD_SUMMARIES } from '../domain/lead/lead.events.ts'
import { upcast } from '../domain/upcasters.ts'
import type { Actor, RecordedEvent } from '../domain/event.ts'
import { IDEMPOTENCY_SUMMARIES } from '../domain/idempotency/idempotency.events.ts'
import { USER_SUMMARIES } from '../domain/user/user.events.ts'
import { FACEBOOK_LEAD_SUMMARIES } from '../domain/facebook-lead-ads/facebook-lead.events.ts'
import { FACEBOOK_PAGE_SUMMARIES } from '../domain/facebook-lead-ads/facebook-page.events.ts'
import { NUMBER_CLAIM_SUMMARIES } from '../domain/numbers/number-claim.events.ts'
import { NUMBER_PURCHASE_SUMMARIES } from '../domain/numbers/number-purchase.events.ts'
import { OWNER_ALERT_SUMMARIES } from '../domain/owner-alerts/owner-alerts.events.ts'
import { OAUTH_RECORD_SUMMARIES } from '../domain/oauth/oauth-records.events.ts'
import { LOG_RESTORE_SUMMARIES } from '../domain/restore/log-restore.ts'
import { SLOT_CLAIM_SUMMARIES } from '../domain/appointments/slot-claim.events.ts'
import { DAY_CLAIM_SUMMARIES } from '../domain/appointments/day-claim.events.ts'
import { CALENDAR_SYNC_SUMMARIES } from '../domain/calendar-sync/calendar-sync.events.ts'
import { MAX_TEXT, printable, quoted } from '../domain/shared/printable.ts'

// Each slice declares its events' lines beside them (a missing one is a type error there).
const SUMMARIES = { ...ACCOUNT_SUMMARIES, ...LEAD_SUMMARIES, ...USER_SUMMARIES, ...IDEMPOTENCY_SUMMARIES, ...FACEBOOK_LEAD_SUMMARIES, ...FACEBOOK_PAGE_SUMMARIES, ...NUMBER_CLAIM_SUMMARIES, ...NUMBER_PURCHASE_SUMMARIES, ...OWNER_ALERT_SUMMARIES, ...OAUTH_RECORD_SUMMARIES, ...LOG_RESTORE_SUMMARIES, ...SLOT_CLAIM_SUMMARIES, ...DAY_CLAIM_SUMMARIES, ...CALENDAR_SYNC_SUMMARIES }

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
  oauth_grant: 'OAuth grant',
  operator: 'operator',
  user: 'user',
  process: 'process',
  carrier: 'carrier',
  payments: 'payments',
  lead_source: 'lead source',
}

/** Who caused it: `webhook token wht_…`, `API key key_…`, `operator alice`, `process speed-to-lead`. */
export function describeActor(actor: { readonly kind: string; readonly id: string } | undefined): string {
  if (actor === undefined || typeof actor !== 'object') return 'unknown'
  const kind = ACTOR_KINDS[actor.kind as Actor['kind']] ?? printable(actor.kind)
  return `${kind} ${printable(actor.id)}`
}
