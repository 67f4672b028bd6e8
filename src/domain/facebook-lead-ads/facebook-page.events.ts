/**
 * Events of the `fbpage-{pageId}` stream: which account a Facebook page's leads go to, and the page
 * access token Leadline fetches them with, sealed (src/integrations/secrets/): the log holds only
 * ciphertext, which the export, the history and every answer leave out. One stream per page, so a
 * page is connected to one account at a time, whichever node or operator connects it.
 */
import type { DomainEvent } from '../shared/decider.ts'
import { printable, type EventSummaries } from '../shared/printable.ts'

export type FacebookPageConnected = DomainEvent<
  'FacebookPageConnected',
  {
    pageId: string
    accountId: string
    /** The page access token, sealed for `pageTokenPurpose(pageId, accountId)`; never shown again. */
    pageTokenSealed: string
    /** True when the page was already connected to this account and only its token changed. */
    replaced: boolean
    connectedAt: string
  }
>
export type FacebookPageDisconnected = DomainEvent<'FacebookPageDisconnected', { pageId: string; accountId: string; disconnectedAt: string }>

export type FacebookPageEvent = FacebookPageConnected | FacebookPageDisconnected

export function facebookPageStream(pageId: string): string {
  return `fbpage-${pageId}`
}

/** What a page's sealed token is bound to: opened for another page or account, it does not open. */
export function pageTokenPurpose(pageId: string, accountId: string): string {
  return `facebook-page:${pageId}:${accountId}`
}

/** Facebook's page and lead ids are digits; anything else is no id of theirs (and could not name a stream). */
export const FACEBOOK_ID = /^[0-9]{1,32}$/

export const FACEBOOK_PAGE_SUMMARIES: EventSummaries<FacebookPageEvent> = {
  FacebookPageConnected: (d) => `Facebook page ${printable(d.pageId)} ${d.replaced ? 'given a new page access token' : 'connected'} for account ${printable(d.accountId)} (the token is sealed, never shown)`,
  FacebookPageDisconnected: (d) => `Facebook page ${printable(d.pageId)} disconnected from account ${printable(d.accountId)}`,
}
