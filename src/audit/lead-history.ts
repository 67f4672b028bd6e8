/**
 * A lead's history for auditors: its events in log order, each with its time, a readable summary and
 * who caused it, then the lead's state as of a chosen instant, rebuilt from those events alone with
 * the lead decider's own `evolve` (no read model is consulted). Recordings and transcripts are not
 * shown, in the summaries or in the data (spec §1.7: the same filter as the tool endpoint).
 */
import { accountDecider, type AccountState } from '../domain/account/account.decider.ts'
import { accountStream } from '../domain/account/account.events.ts'
import { leadDecider, type LeadState } from '../domain/lead/lead.decider.ts'
import { LEAD_SUMMARIES, leadStream, type LeadEvent } from '../domain/lead/lead.events.ts'
import { upcast } from '../domain/upcasters.ts'
import type { RecordedEvent } from '../domain/event.ts'
import type { EventStore } from '../eventstore/event-store.port.ts'
import { withoutRecordings } from '../domain/recordings-policy.ts'
import { withoutSealedSecrets } from '../domain/sealed-secrets.ts'
import type { AccountEvent } from '../domain/account/account.events.ts'
import { leadName } from '../domain/lead/intake/intake.events.ts'
import { money, printable } from '../domain/shared/printable.ts'
import { describeActor, summarise } from './event-summary.ts'
import { verifyStream, type ChainFinding } from './hash-chain-verifier.ts'

export interface HistoryEntry {
  readonly position: number
  readonly revision: number
  readonly id: string
  readonly recordedAt: string
  readonly type: string
  readonly schemaVersion: number
  readonly summary: string
  readonly actor: { readonly kind: string; readonly id: string }
  /** `webhook token wht_…`, `operator alice`, … */
  readonly actorText: string
  /** The data as recorded, with recordings and transcripts removed. */
  readonly data: unknown
}

export interface LeadHistory {
  readonly stream: string
  /** The instant asked for, or null for "now" (every event). */
  readonly asOf: string | null
  readonly entries: readonly HistoryEntry[]
  /** Events recorded after `asOf` (not shown, not folded). */
  readonly later: number
  /** The lead as of `asOf`, from the events above alone. */
  readonly state: LeadState
}

export function historyEntry(event: RecordedEvent): HistoryEntry {
  const actor = event.metadata?.actor ?? { kind: 'unknown', id: '' }
  return {
    position: event.position,
    revision: event.revision,
    id: event.id,
    recordedAt: event.recordedAt,
    type: event.type,
    schemaVersion: event.metadata?.schemaVersion ?? 1,
    summary: summarise(event),
    actor: { kind: actor.kind, id: actor.id },
    actorText: describeActor(actor),
    data: withoutSealedSecrets(withoutRecordings(event.data)) ?? null,
  }
}


function isLeadEvent(event: RecordedEvent): boolean {
  // The lead decider's own event types only: a later build's types are listed, not folded.
  return Object.hasOwn(LEAD_SUMMARIES, event.type)
}

/** The lead's state after these events, by the lead decider's `evolve` (through the upcasters). */
export function foldLead(events: readonly RecordedEvent[]): LeadState {
  return events
    .filter(isLeadEvent)
    .map(upcast)
    .reduce((s, event) => leadDecider.evolve(s, event as unknown as LeadEvent), leadDecider.initialState())
}

/** The history of one lead stream up to `asOf` (inclusive; null: everything). Events are in log order, so the state is a prefix fold. */
export function buildLeadHistory(stream: string, events: readonly RecordedEvent[], asOf: Date | null): LeadHistory {
  const limit = asOf?.getTime() ?? Number.POSITIVE_INFINITY
  let shown = events.findIndex((event) => Date.parse(event.recordedAt) > limit)
  if (shown === -1) shown = events.length
  const included = events.slice(0, shown)
  const state = foldLead(included)
  return { stream, asOf: asOf?.toISOString() ?? null, entries: included.map(historyEntry), later: events.length - shown, state }
}

/** The account as its own stream tells it (no read model), or null when it does not exist. */
export async function loadAccount(store: EventStore, accountId: string): Promise<AccountState | null> {
  const events = await store.readStream(accountStream(accountId))
  const state = events.map(upcast).reduce((s, event) => accountDecider.evolve(s, event as unknown as AccountEvent), accountDecider.initialState())
  return state.exists ? state : null
}

/**
 * The lead's history, how many events its stream holds in all, and whether its hash chain is intact
 * (the first bad event, as `leadline audit verify` would name it), so a reader knows what they read.
 */
export async function readLeadHistory(
  store: EventStore,
  accountId: string,
  phoneLast10: string,
  asOf: Date | null,
): Promise<{ history: LeadHistory; total: number; chain: ChainFinding | null } | null> {
  const stream = leadStream(accountId, phoneLast10)
  const events = await store.readStream(stream)
  if (events.length === 0) return null
  return { history: buildLeadHistory(stream, events, asOf), total: events.length, chain: verifyStream(events) }
}

/** The lead's state as label/value lines, for reading. */
export function describeLeadState(state: LeadState): Array<[string, string]> {
  if (!state.exists || !state.fields) return [['lead', 'not received yet']]
  const f = state.fields
  const d = state.dialing
  const lines: Array<[string, string]> = [
    ['lead', state.leadId],
    ['phone', printable(f.phone)],
    ['name', printable(leadName(f) ?? '')],
    ['email', printable(f.email ?? '')],
    ['state', printable(f.state ?? '')],
    ['source', printable(f.source ?? '')],
    ['vendor', printable(f.vendor ?? '')],
    ['do not call', state.doNotCall ? 'yes' : 'no'],
    ['lists', state.lists.map((l) => printable(l)).join(', ')],
    ['submissions', String(state.submissions)],
    ['received', state.receivedAt],
    ['updated', state.updatedAt],
    ['speed to lead', d.speedToLead],
  ]
  const last = d.order.length > 0 ? d.calls[d.order[d.order.length - 1] as string] : undefined
  lines.push(['calls', last === undefined ? '0' : `${d.order.length} (last: ${last.purpose.replace(/_/g, ' ')} attempt ${last.attempt}, ${last.status ?? last.stage}${last.answered ? ', answered' : ''})`])
  if (d.pendingFollowUp) lines.push(['next follow-up', `attempt ${d.pendingFollowUp.attempt} due ${d.pendingFollowUp.dueAt}`])
  if (d.followUpStopped) lines.push(['follow-ups', `stopped (${printable(d.followUpStopped)})`])
  if (d.lastContactAt) lines.push(['last contact', d.lastContactAt])
  if (d.answeredAt) lines.push(['answered', d.answeredAt])
  if (state.lastReplyAt) lines.push(['replied by text', `${state.replies} (last ${state.lastReplyAt})`])
  const p = state.payments
  const lastRequest = p && p.order.length > 0 ? p.requests[p.order[p.order.length - 1] as string] : undefined
  if (lastRequest) {
    lines.push(['payments', `${p.order.length} requested (last: ${money(lastRequest.amountCents, lastRequest.currency)}, ${lastRequest.status}, pay-link ${lastRequest.stage.replace(/_/g, ' ')})`])
  }
  return lines.filter(([, value]) => value !== '')
}
