/**
 * Tamper evidence: every event's hash covers its canonical JSON form (RFC 8785) together with the
 * hash of the previous event of its stream, so changing, removing, inserting or reordering any
 * event breaks the chain from that point on. The global position is deliberately not covered:
 * it is the store's bookkeeping and differs after a migration between stores.
 */
import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import type { EventMetadata } from './event.ts'

export interface HashedFields {
  readonly id: string
  readonly stream: string
  readonly revision: number
  readonly type: string
  readonly data: unknown
  readonly metadata: EventMetadata
  readonly recordedAt: string
}

/** The exact bytes that are hashed; documented in docs/audit.md so exports can be re-verified. */
export function canonicalEventForm(event: HashedFields, prevHash: string | null): string {
  const form = canonicalize({
    prevHash,
    id: event.id,
    stream: event.stream,
    revision: event.revision,
    type: event.type,
    data: event.data,
    metadata: event.metadata,
    recordedAt: event.recordedAt,
  })
  if (form === undefined) throw new TypeError('event is not serialisable as JSON')
  return form
}

export function hashEvent(event: HashedFields, prevHash: string | null): string {
  return createHash('sha256').update(canonicalEventForm(event, prevHash)).digest('hex')
}
