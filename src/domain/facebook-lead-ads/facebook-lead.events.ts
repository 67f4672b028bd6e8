/**
 * Events of the `fblead-{accountId}-{leadgenId}` stream: one Facebook lead-ads notification and how
 * Leadline fetched its lead. The notification is recorded first (once per leadgen id: a redelivery
 * finds the stream and records nothing), with the decision to fetch it; the fetcher claims each
 * decision before it asks the Graph API and records what came of it: the lead received through the
 * webhook's intake, or a failure, with the next decision in the same append when it is retried.
 */
import type { DomainEvent } from '../shared/decider.ts'
import { effectOf, type Effect } from '../shared/effect.ts'
import { printable, type EventSummaries } from '../shared/printable.ts'

export type FacebookLeadNotified = DomainEvent<
  'FacebookLeadNotified',
  {
    accountId: string
    leadgenId: string
    pageId: string
    formId: string | null
    adId: string | null
    /** When the person submitted the form, as Facebook says (ISO UTC); null when it did not. */
    createdTime: string | null
    notifiedAt: string
  }
>

/** Why a fetch was decided: the notification, a retry after a passing failure, after an interrupted fetch, or by hand. */
export type FacebookFetchReason = 'notified' | 'retry' | 'interrupted' | 'by_hand'

/** A decision to fetch the lead from the Graph API, at `dueAt` or after. */
export type FacebookLeadFetchDue = DomainEvent<
  'FacebookLeadFetchDue',
  { leadgenId: string; fetchId: string; attempt: number; reason: FacebookFetchReason; dueAt: string }
>
/** The claim, appended before the Graph API is asked: one fetcher performs each decision. */
export type FacebookLeadFetchStarted = DomainEvent<'FacebookLeadFetchStarted', { leadgenId: string; fetchId: string; node: string; startedAt: string }>

/**
 * Why a fetch came to nothing. Passing ones are retried with backoff (`willRetry`): the Graph API
 * unavailable (5xx, connection refused or cut), a timeout, a rate limit, the fetch interrupted (the
 * process stopped). The rest wait for a person and `leadline source facebook retry`: the Graph API
 * refused (an expired or revoked page token, a missing permission), the page no longer connected,
 * intake refused the lead (no phone), the token could not be opened (another secret key).
 */
export type FacebookFetchFailure =
  | 'graph_unavailable' | 'timeout' | 'rate_limited' | 'interrupted'
  | 'graph_refused' | 'page_not_connected' | 'lead_refused' | 'token_unreadable'

export type FacebookLeadFetchFailed = DomainEvent<
  'FacebookLeadFetchFailed',
  {
    leadgenId: string
    fetchId: string
    failure: FacebookFetchFailure
    message: string
    /** The Graph API's HTTP status and error code, when it answered. */
    httpStatus: number | null
    graphCode: number | null
    /** A FacebookLeadFetchDue follows in the same append. */
    willRetry: boolean
    at: string
  }
>
/** The lead arrived: received (or updated) through the webhook's intake. */
export type FacebookLeadReceived = DomainEvent<'FacebookLeadReceived', { leadgenId: string; fetchId: string; leadId: string; created: boolean; at: string }>

export type FacebookLeadEvent = FacebookLeadNotified | FacebookLeadFetchDue | FacebookLeadFetchStarted | FacebookLeadFetchFailed | FacebookLeadReceived

/** The fetcher's effect: the claims read model follows its decisions, claims and outcomes. */
export const FACEBOOK_FETCH_EFFECT: Effect = effectOf<FacebookLeadEvent>()({
  name: 'facebook-lead-fetcher',
  decision: 'FacebookLeadFetchDue',
  decidedAt: 'dueAt',
  id: 'fetchId',
  claims: { FacebookLeadFetchStarted: 'startedAt' },
  outcomes: ['FacebookLeadFetchFailed', 'FacebookLeadReceived'],
})

export function facebookLeadStream(accountId: string, leadgenId: string): string {
  return `fblead-${accountId}-${leadgenId}`
}

/** Parses `fblead-{accountId}-{leadgenId}`; account ids never contain a dash. */
export function parseFacebookLeadStream(stream: string): { accountId: string; leadgenId: string } | null {
  const match = /^fblead-([^-]+)-([0-9]+)$/.exec(stream)
  return match ? { accountId: match[1] as string, leadgenId: match[2] as string } : null
}

const REASONS: Record<FacebookFetchReason, string> = { notified: '', retry: ' (retry)', interrupted: ' (after an interrupted fetch)', by_hand: ' (retried by hand)' }

export const FACEBOOK_LEAD_SUMMARIES: EventSummaries<FacebookLeadEvent> = {
  FacebookLeadNotified: (d) =>
    `Facebook lead ${printable(d.leadgenId)} notified: page ${printable(d.pageId)}${d.formId !== null ? `, form ${printable(d.formId)}` : ''}${d.adId !== null ? `, ad ${printable(d.adId)}` : ''}`,
  FacebookLeadFetchDue: (d) => `fetch ${d.attempt} from the Graph API due at ${printable(d.dueAt)}${REASONS[d.reason] ?? ''}`,
  FacebookLeadFetchStarted: (d) => `fetching from the Graph API (node ${printable(d.node)})`,
  FacebookLeadFetchFailed: (d) =>
    `fetch failed: ${printable(d.failure)}${d.httpStatus !== null ? ` (HTTP ${d.httpStatus}${d.graphCode !== null ? `, Graph code ${d.graphCode}` : ''})` : ''}: ${printable(d.message)}; ${d.willRetry ? 'retried' : 'waits for a retry by hand'}`,
  FacebookLeadReceived: (d) => `lead ${printable(d.leadId)} ${d.created ? 'received' : 'updated'} from Facebook`,
}
