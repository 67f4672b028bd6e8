/** A Facebook page's connection: to one account at a time, with its sealed page access token. */
import { DomainError, type Decider } from '../shared/decider.ts'
import type { FacebookPageEvent } from './facebook-page.events.ts'

export type FacebookPageCommand =
  | { type: 'ConnectFacebookPage'; pageId: string; accountId: string; pageTokenSealed: string }
  | { type: 'DisconnectFacebookPage'; pageId: string; accountId: string }

export interface FacebookPageState {
  readonly pageId: string
  /** The account its leads go to; null when it is not connected. */
  readonly accountId: string | null
  readonly pageTokenSealed: string | null
  readonly connectedAt: string | null
}

export const facebookPageDecider: Decider<FacebookPageCommand, FacebookPageEvent, FacebookPageState> = {
  initialState: () => ({ pageId: '', accountId: null, pageTokenSealed: null, connectedAt: null }),

  evolve(state, event) {
    switch (event.type) {
      case 'FacebookPageConnected':
        return { pageId: event.data.pageId, accountId: event.data.accountId, pageTokenSealed: event.data.pageTokenSealed, connectedAt: event.data.connectedAt }
      case 'FacebookPageDisconnected':
        return { ...state, accountId: null, pageTokenSealed: null, connectedAt: null }
    }
  },

  decide(command, state, now) {
    switch (command.type) {
      case 'ConnectFacebookPage':
        if (state.accountId !== null && state.accountId !== command.accountId) {
          throw new DomainError(
            'facebook_page_connected_elsewhere',
            `Facebook page ${command.pageId} is connected to account ${state.accountId}: disconnect it there first (a page's leads go to one account)`,
          )
        }
        return [{
          type: 'FacebookPageConnected',
          data: { pageId: command.pageId, accountId: command.accountId, pageTokenSealed: command.pageTokenSealed, replaced: state.accountId === command.accountId, connectedAt: now.toISOString() },
        }]
      case 'DisconnectFacebookPage':
        if (state.accountId !== command.accountId) {
          throw new DomainError('facebook_page_not_connected', `Facebook page ${command.pageId} is not connected to account ${command.accountId}`)
        }
        return [{ type: 'FacebookPageDisconnected', data: { pageId: command.pageId, accountId: command.accountId, disconnectedAt: now.toISOString() } }]
    }
  },
}
