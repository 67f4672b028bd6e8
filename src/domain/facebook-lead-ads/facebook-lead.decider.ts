/**
 * A Facebook lead-ads notification and its fetch: recorded once per leadgen id, then fetched by
 * decisions the fetcher claims one at a time (claim → Graph API → record). A failure that passes is
 * recorded with the next decision in the same append; one that needs a person waits for a retry by hand.
 */
import { DomainError, type Decider } from '../shared/decider.ts'
import type { FacebookFetchFailure, FacebookFetchReason, FacebookLeadEvent } from './facebook-lead.events.ts'

export interface LeadgenNotice {
  readonly leadgenId: string
  readonly pageId: string
  readonly formId: string | null
  readonly adId: string | null
  readonly createdTime: string | null
}

export type FacebookLeadCommand =
  | { type: 'NotifyFacebookLead'; accountId: string; notice: LeadgenNotice; fetchId: string }
  | { type: 'StartFacebookLeadFetch'; fetchId: string; node: string }
  | {
      type: 'RecordFacebookLeadFetchFailed'
      fetchId: string
      failure: FacebookFetchFailure
      message: string
      httpStatus: number | null
      graphCode: number | null
      /** The next decision when the failure is retried. */
      retry: { fetchId: string; dueAt: string } | null
    }
  | { type: 'RecordFacebookLeadReceived'; fetchId: string; leadId: string; created: boolean }
  | { type: 'RetryFacebookLeadFetch'; fetchId: string }

export type FacebookLeadStage = 'due' | 'fetching' | 'received' | 'failed'

export interface FacebookLeadState {
  readonly exists: boolean
  readonly accountId: string
  readonly notice: LeadgenNotice | null
  readonly notifiedAt: string
  readonly stage: FacebookLeadStage
  /** The latest decision to fetch, and whether it was claimed. */
  readonly fetch: { readonly fetchId: string; readonly attempt: number; readonly reason: FacebookFetchReason; readonly dueAt: string; readonly claimed: boolean } | null
  readonly failure: { readonly failure: FacebookFetchFailure; readonly message: string; readonly at: string } | null
  readonly leadId: string | null
}

export const INITIAL_FACEBOOK_LEAD: FacebookLeadState = {
  exists: false, accountId: '', notice: null, notifiedAt: '', stage: 'due', fetch: null, failure: null, leadId: null,
}

/** True when `fetchId` is the decision claimed now and still without an outcome. */
function holdsClaim(state: FacebookLeadState, fetchId: string): boolean {
  return state.stage === 'fetching' && state.fetch?.fetchId === fetchId && state.fetch.claimed
}

export const facebookLeadDecider: Decider<FacebookLeadCommand, FacebookLeadEvent, FacebookLeadState> = {
  initialState: () => INITIAL_FACEBOOK_LEAD,

  evolve(state, event) {
    switch (event.type) {
      case 'FacebookLeadNotified': {
        const { accountId, notifiedAt, leadgenId, pageId, formId, adId, createdTime } = event.data
        return { ...state, exists: true, accountId, notifiedAt, notice: { leadgenId, pageId, formId, adId, createdTime } }
      }
      case 'FacebookLeadFetchDue':
        return { ...state, stage: 'due', fetch: { fetchId: event.data.fetchId, attempt: event.data.attempt, reason: event.data.reason, dueAt: event.data.dueAt, claimed: false } }
      case 'FacebookLeadFetchStarted':
        return state.fetch?.fetchId === event.data.fetchId ? { ...state, stage: 'fetching', fetch: { ...state.fetch, claimed: true } } : state
      case 'FacebookLeadFetchFailed':
        return { ...state, stage: 'failed', failure: { failure: event.data.failure, message: event.data.message, at: event.data.at } }
      case 'FacebookLeadReceived':
        return { ...state, stage: 'received', failure: null, leadId: event.data.leadId }
    }
  },

  decide(command, state, now) {
    const at = now.toISOString()
    switch (command.type) {
      case 'NotifyFacebookLead': {
        // A redelivery (Facebook retries until it has a 200, and may send twice anyway) records nothing.
        if (state.exists) return []
        const { notice } = command
        return [
          {
            type: 'FacebookLeadNotified',
            data: { accountId: command.accountId, leadgenId: notice.leadgenId, pageId: notice.pageId, formId: notice.formId, adId: notice.adId, createdTime: notice.createdTime, notifiedAt: at },
          },
          { type: 'FacebookLeadFetchDue', data: { leadgenId: notice.leadgenId, fetchId: command.fetchId, attempt: 1, reason: 'notified', dueAt: at } },
        ]
      }
      case 'StartFacebookLeadFetch':
        // Claimed already (here or on another node), or no longer the decision in force: nothing to do.
        if (state.stage !== 'due' || state.fetch?.fetchId !== command.fetchId) return []
        return [{ type: 'FacebookLeadFetchStarted', data: { leadgenId: leadgenIdOf(state), fetchId: command.fetchId, node: command.node, startedAt: at } }]
      case 'RecordFacebookLeadFetchFailed': {
        if (!holdsClaim(state, command.fetchId)) return []
        const leadgenId = leadgenIdOf(state)
        const { retry } = command
        return [
          {
            type: 'FacebookLeadFetchFailed',
            data: { leadgenId, fetchId: command.fetchId, failure: command.failure, message: command.message, httpStatus: command.httpStatus, graphCode: command.graphCode, willRetry: retry !== null, at },
          },
          ...(retry === null
            ? []
            : [{
                type: 'FacebookLeadFetchDue' as const,
                data: { leadgenId, fetchId: retry.fetchId, attempt: (state.fetch?.attempt ?? 0) + 1, reason: command.failure === 'interrupted' ? 'interrupted' as const : 'retry' as const, dueAt: retry.dueAt },
              }]),
        ]
      }
      case 'RecordFacebookLeadReceived':
        if (!holdsClaim(state, command.fetchId)) return []
        return [{ type: 'FacebookLeadReceived', data: { leadgenId: leadgenIdOf(state), fetchId: command.fetchId, leadId: command.leadId, created: command.created, at } }]
      case 'RetryFacebookLeadFetch':
        if (!state.exists) throw new DomainError('facebook_lead_not_found', 'no Facebook lead with this leadgen id in this account')
        if (state.stage !== 'failed') {
          throw new DomainError('facebook_lead_not_failed', state.stage === 'received' ? 'this Facebook lead was received already' : 'this Facebook lead is being fetched already')
        }
        return [{ type: 'FacebookLeadFetchDue', data: { leadgenId: leadgenIdOf(state), fetchId: command.fetchId, attempt: 1, reason: 'by_hand', dueAt: at } }]
    }
  },
}

function leadgenIdOf(state: FacebookLeadState): string {
  if (!state.exists || state.notice === null) throw new DomainError('facebook_lead_not_found', 'no Facebook lead with this leadgen id')
  return state.notice.leadgenId
}
