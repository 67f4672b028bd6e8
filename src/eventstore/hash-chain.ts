/**
 * Tamper evidence: every event's hash covers its canonical JSON form (RFC 8785) together with the
 * hash of the previous event of its stream, so changing, removing, inserting or reordering any
 * event breaks the chain from that point on. The global position is deliberately not covered:
 * it is the store's bookkeeping and differs after a migration between stores.
 */
import canonicalize from 'canonicalize'
import { configure } from 'safe-stable-stringify'
import { sha256Hex } from '../domain/shared/sha256.ts'
import type { EventMetadata } from '../domain/event.ts'

/**
 * Keys sorted by UTF-16 code units, strings and numbers as JSON.stringify writes them: for JSON
 * values (what JSON.parse returns) that is the RFC 8785 form, far quicker than canonicalize,
 * except that a lone surrogate is escaped where RFC 8785 refuses it.
 */
const sortedJson = configure({ deterministic: true })
/** How JSON.stringify writes a UTF-16 surrogate it cannot pair (a literal backslash before "ud8…" looks the same). */
const SURROGATE_ESCAPE = /\\ud[89a-f]/i

export interface HashedFields {
  readonly id: string
  readonly stream: string
  readonly revision: number
  readonly type: string
  readonly data: unknown
  readonly metadata: EventMetadata
  readonly recordedAt: string
}

/** What is hashed, before it is written canonically. */
function hashedObject(event: HashedFields, prevHash: string | null): Record<string, unknown> {
  return {
    prevHash,
    id: event.id,
    stream: event.stream,
    revision: event.revision,
    type: event.type,
    data: event.data,
    metadata: event.metadata,
    recordedAt: event.recordedAt,
  }
}

/** The exact bytes that are hashed; documented in docs/audit.md so exports can be re-verified. */
export function canonicalEventForm(event: HashedFields, prevHash: string | null): string {
  const form = canonicalize(hashedObject(event, prevHash))
  if (form === undefined) throw new TypeError('event is not serialisable as JSON')
  return form
}

export function hashEvent(event: HashedFields, prevHash: string | null): string {
  return sha256Hex(canonicalEventForm(event, prevHash))
}

/**
 * hashEvent, faster, for an event whose data and metadata were just parsed from JSON text, so hold
 * JSON values only (the store's writer hashes every event so). Anything that looks like a lone
 * surrogate goes through canonicalize, which refuses it as hashEvent does. The same hash as hashEvent
 * for every such event: test/eventstore/hash-chain.test.ts compares the two forms on generated values.
 */
export function hashParsedEvent(event: HashedFields, prevHash: string | null): string {
  const form = sortedJson(hashedObject(event, prevHash))
  if (form === undefined || SURROGATE_ESCAPE.test(form)) return hashEvent(event, prevHash)
  return sha256Hex(form)
}
