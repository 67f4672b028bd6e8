/**
 * The shape of everything on the log. Events are facts: read-only, typed by a literal `type`,
 * carrying who caused them (`actor`) and why (`correlationId`, `causationId`).
 */

/** Who or what caused an event. `id` is never a secret: token and key ids, not tokens and keys. */
export type Actor =
  | { readonly kind: 'webhook_token'; readonly id: string }
  | { readonly kind: 'api_key'; readonly id: string }
  /** A tool call made with an OAuth access token: the id is the owner's grant (docs/mcp.md, "Connect"). */
  | { readonly kind: 'oauth_grant'; readonly id: string }
  | { readonly kind: 'operator'; readonly id: string }
  | { readonly kind: 'user'; readonly id: string }
  | { readonly kind: 'process'; readonly id: string }
  | { readonly kind: 'carrier'; readonly id: string }
  | { readonly kind: 'payments'; readonly id: string }
  /** A lead source that signs its own requests (Facebook Lead Ads: `facebook`). */
  | { readonly kind: 'lead_source'; readonly id: string }

export interface EventMetadata {
  /** Ties together every event caused by one request or one process run. */
  readonly correlationId: string
  /** The id of the event (or request) that directly caused this one; null for a first cause. */
  readonly causationId: string | null
  readonly actor: Actor
  /** Version of this event type's `data` schema; old versions are read through upcasters. */
  readonly schemaVersion: number
}

/** An event about to be appended. `id` is generated when omitted; setting it makes a retried append idempotent. */
export interface NewEvent<T extends string = string, D = unknown> {
  readonly id?: string
  readonly type: T
  readonly data: D
  readonly metadata: EventMetadata
}

/** An event as stored on the log. */
export interface RecordedEvent<T extends string = string, D = unknown> {
  readonly id: string
  readonly type: T
  readonly data: D
  readonly metadata: EventMetadata
  readonly stream: string
  /** 0 for the first event of a stream, then +1 per event. */
  readonly revision: number
  /** Global, strictly increasing across the whole log (not necessarily contiguous). */
  readonly position: number
  /** ISO-8601 UTC time at which the store recorded the event. */
  readonly recordedAt: string
  /** SHA-256 (hex) of the previous event of the same stream, or null for revision 0. */
  readonly prevHash: string | null
  /** SHA-256 (hex) over the canonical form of this event and `prevHash`; see src/eventstore/hash-chain.ts. */
  readonly hash: string
}
