/**
 * What Leadline's OAuth authorization server (oidc-provider) keeps between requests: registered
 * clients, sign-in interactions and sessions, codes, access and refresh tokens, the library's grant
 * records. They are on the log, not in a node's views database, so a token issued by one node is
 * good on every node and survives a rebuild of the read models.
 *
 * Each record has a stream of its own, named by the SHA-256 of its id (`oauth-{model}-{hash}`): a
 * token, a code or a session id is a bearer secret and never appears on the log (a token's `jti`,
 * its own value, is left out of the stored payload). A grant's records are revoked together by one
 * event on `oauthgrant-{hash of the grant id}`.
 */
import { createHash } from 'node:crypto'
import type { DomainEvent } from '../shared/decider.ts'
import { printable, type EventSummaries } from '../shared/printable.ts'

export type OAuthPayload = Record<string, unknown>

/** Saved (or saved again: the newest wins); `expiresAt` in seconds since the epoch. */
export type OAuthRecordSaved = DomainEvent<'OAuthRecordSaved', { model: string; payload: OAuthPayload; uid: string | null; expiresAt: number; at: string }>
/** A code or refresh token used: the library refuses it afterwards, and revokes its grant if shown again. */
export type OAuthRecordConsumed = DomainEvent<'OAuthRecordConsumed', { model: string; consumedAt: number }>
export type OAuthRecordDestroyed = DomainEvent<'OAuthRecordDestroyed', { model: string; at: string }>
/** Every code and token of the grant is void from here on. */
export type OAuthGrantRecordsRevoked = DomainEvent<'OAuthGrantRecordsRevoked', { at: string }>

export type OAuthRecordEvent = OAuthRecordSaved | OAuthRecordConsumed | OAuthRecordDestroyed | OAuthGrantRecordsRevoked

function hashed(value: string): string {
  return createHash('sha256').update(value).digest('hex')
}

export function oauthRecordStream(model: string, id: string): string {
  return `oauth-${model}-${hashed(id)}`
}

/** Where a record found by its uid (a sign-in session, an interaction) is kept as well. */
export function oauthUidStream(model: string, uid: string): string {
  return `oauthuid-${model}-${hashed(uid)}`
}

export function oauthGrantRecordsStream(grantId: string): string {
  return `oauthgrant-${hashed(grantId)}`
}

/** A record as its stream says now: undefined once destroyed (or never saved). */
export interface OAuthRecordState {
  readonly payload: OAuthPayload
  readonly expiresAt: number
  readonly consumedAt: number | null
}

export function foldOAuthRecord(events: readonly { type: string; data: unknown }[]): OAuthRecordState | undefined {
  let state: OAuthRecordState | undefined
  for (const event of events) {
    const e = event as OAuthRecordEvent
    switch (e.type) {
      case 'OAuthRecordSaved':
        state = { payload: e.data.payload, expiresAt: e.data.expiresAt, consumedAt: state?.consumedAt ?? null }
        break
      case 'OAuthRecordConsumed':
        if (state) state = { ...state, consumedAt: state.consumedAt ?? e.data.consumedAt }
        break
      case 'OAuthRecordDestroyed':
        state = undefined
        break
    }
  }
  return state
}

// Payloads are never summarised: a session or a client holds nothing an auditor needs to read.
export const OAUTH_RECORD_SUMMARIES: EventSummaries<OAuthRecordEvent> = {
  OAuthRecordSaved: (d) => `OAuth ${printable(d.model)} record saved`,
  OAuthRecordConsumed: (d) => `OAuth ${printable(d.model)} used`,
  OAuthRecordDestroyed: (d) => `OAuth ${printable(d.model)} record removed`,
  OAuthGrantRecordsRevoked: () => 'OAuth grant\'s codes and tokens revoked',
}
