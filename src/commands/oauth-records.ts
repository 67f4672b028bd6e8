/**
 * The OAuth authorization server's records (clients, interactions, sessions, codes, tokens) kept on
 * the log, so every node reads the same ones and a rebuild of the read models loses none. What is
 * stored and how it is named: src/domain/oauth/oauth-records.events.ts.
 */
import { randomUUID } from 'node:crypto'
import type { NewEvent } from '../domain/event.ts'
import {
  foldOAuthRecord, oauthGrantRecordsStream, oauthRecordStream, oauthUidStream,
  type OAuthPayload, type OAuthRecordEvent, type OAuthRecordState,
} from '../domain/oauth/oauth-records.events.ts'
import { isWrongExpectedRevision, type EventStore } from '../eventstore/event-store.port.ts'

export type { OAuthPayload }

export class OAuthRecords {
  constructor(private readonly store: EventStore, private readonly clock: () => Date = () => new Date()) {}

  private now(): number {
    return Math.floor(this.clock().getTime() / 1000)
  }

  private event(event: Pick<OAuthRecordEvent, 'type' | 'data'>): NewEvent {
    return { type: event.type, data: event.data, metadata: { correlationId: randomUUID(), causationId: null, actor: { kind: 'process', id: 'oauth' }, schemaVersion: 1 } }
  }

  async upsert(model: string, id: string, payload: OAuthPayload, expiresInSeconds: number): Promise<void> {
    const { jti: _jti, ...kept } = payload
    const uid = typeof payload.uid === 'string' ? payload.uid : null
    const saved = this.event({
      type: 'OAuthRecordSaved',
      data: { model, payload: kept, uid, expiresAt: this.now() + Math.max(1, Math.ceil(expiresInSeconds)), at: this.clock().toISOString() },
    })
    await this.store.appendToStream(oauthRecordStream(model, id), [saved], 'any')
    // Found by its uid too: the same record under a second name (its id, a bearer secret, is not in it).
    if (uid !== null) await this.store.appendToStream(oauthUidStream(model, uid), [{ ...saved, id: randomUUID() }], 'any')
  }

  async find(model: string, id: string): Promise<OAuthPayload | undefined> {
    const state = await this.live(model, oauthRecordStream(model, id), id)
    return state === undefined ? undefined : revive(state, model === 'Client' ? {} : { jti: id })
  }

  async findByUid(model: string, uid: string): Promise<OAuthPayload | undefined> {
    const state = await this.live(model, oauthUidStream(model, uid), null)
    return state === undefined ? undefined : revive(state, {})
  }

  /**
   * Marks a code or refresh token used, once: false when it was used already, here or on another node,
   * at the same moment included (the append names the revision it read). oidc-provider refuses a used
   * one afterwards (and revokes its grant).
   */
  async consume(model: string, id: string): Promise<boolean> {
    const stream = oauthRecordStream(model, id)
    const events = await this.store.readStream(stream)
    const last = events[events.length - 1]
    const state = foldOAuthRecord(events)
    if (last === undefined || state === undefined || state.consumedAt !== null) return false
    try {
      await this.store.appendToStream(stream, [this.event({ type: 'OAuthRecordConsumed', data: { model, consumedAt: this.now() } })], last.revision)
      return true
    } catch (error) {
      if (isWrongExpectedRevision(error)) return false
      throw error
    }
  }

  async destroy(model: string, id: string): Promise<void> {
    const stream = oauthRecordStream(model, id)
    const state = foldOAuthRecord(await this.store.readStream(stream))
    if (state === undefined) return
    const destroyed = this.event({ type: 'OAuthRecordDestroyed', data: { model, at: this.clock().toISOString() } })
    await this.store.appendToStream(stream, [destroyed], 'stream_exists')
    const uid = state.payload.uid
    if (typeof uid === 'string') await this.store.appendToStream(oauthUidStream(model, uid), [{ ...destroyed, id: randomUUID() }], 'any')
  }

  /** Every code and token of a grant, whatever their model, on every node. */
  async revokeByGrantId(grantId: string): Promise<void> {
    await this.store.appendToStream(oauthGrantRecordsStream(grantId), [this.event({ type: 'OAuthGrantRecordsRevoked', data: { at: this.clock().toISOString() } })], 'any')
  }

  /** The record unless expired, destroyed or of a revoked grant. `id` is the grant's own for the Grant model. */
  private async live(model: string, stream: string, id: string | null): Promise<OAuthRecordState | undefined> {
    const state = foldOAuthRecord(await this.store.readStream(stream))
    if (state === undefined || state.expiresAt <= this.now()) return undefined
    const grantId = model === 'Grant' ? id : typeof state.payload.grantId === 'string' ? state.payload.grantId : null
    if (grantId !== null && (await this.store.readStream(oauthGrantRecordsStream(grantId), { limit: 1 })).length > 0) return undefined
    return state
  }
}

function revive(state: OAuthRecordState, extra: OAuthPayload): OAuthPayload {
  const payload = { ...state.payload, ...extra }
  return state.consumedAt === null ? payload : { ...payload, consumed: state.consumedAt }
}
