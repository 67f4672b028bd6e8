/**
 * Tamper evidence, checked: walks every stream's hash chain (src/eventstore/hash-chain.ts) and names
 * the first event of each stream that was changed, removed, inserted or reordered. Works through the
 * event store port only, so it checks any adapter's log the same way.
 *
 * One pass over the log in position order checks each event against the one before it in its
 * stream. A stream that fails is read again on its own (in revision order) and its first bad event
 * is classified: the hash covers the revision, so an event moved to another revision still hashes
 * correctly at the revision it was written as, which tells a removal, an insertion and a swap apart.
 *
 * What a chain cannot show: the newest events of a stream removed, or rewritten with every later
 * hash recomputed, look like a shorter or different but consistent stream. Keep exports (or their
 * stream heads) somewhere else to catch those; docs/audit.md says how.
 */
import type { RecordedEvent } from '../domain/event.ts'
import type { EventStore } from '../eventstore/event-store.port.ts'
import { hashEvent } from '../eventstore/hash-chain.ts'
import { belongsToAccount, scanLog } from './audited-log.ts'

export type TamperKind = 'changed' | 'removed' | 'inserted' | 'reordered'

/** The first event in doubt in one stream. */
export interface ChainFinding {
  readonly stream: string
  readonly problem: TamperKind
  /** Revision of the first event in doubt (for a removal: the first revision that is missing). */
  readonly revision: number
  /** Position and id of the stored event where the evidence is (for a removal: the event after the gap). */
  readonly position: number
  readonly id: string
  readonly message: string
}

export interface VerifyReport {
  /** Events checked (of the account, with --account). */
  readonly events: number
  readonly streams: number
  /** Position of the last event checked (0 for an empty log). */
  readonly head: number
  /** One per bad stream, in log order of the evidence. */
  readonly findings: readonly ChainFinding[]
}

export interface VerifyOptions {
  /** Only the streams of this account. */
  readonly accountId?: string
  /** Called after each page with the number of events checked so far. */
  readonly onProgress?: (checked: number, position: number) => void
}

/** How far from its place an event's original revision is looked for (only for an event that fails). */
const REVISION_SEARCH = 1024

function finding(event: RecordedEvent, problem: TamperKind, message: string, revision = event.revision): ChainFinding {
  return { stream: event.stream, problem, revision, position: event.position, id: event.id, message }
}

function selfConsistent(event: RecordedEvent): boolean {
  return hashEvent(event, event.prevHash) === event.hash
}

/**
 * The revision this event's hash was computed at, when it is not the one it is stored at: found by
 * hashing it at nearby revisions, nearest first. Null when none fits (its contents were changed).
 */
function writtenRevision(event: RecordedEvent): number | null {
  const hashesAt = (revision: number) => hashEvent({ ...event, revision }, event.prevHash) === event.hash
  for (let distance = 1; distance <= REVISION_SEARCH; distance++) {
    const below = event.revision - distance
    if (below >= 0 && hashesAt(below)) return below
    if (hashesAt(event.revision + distance)) return event.revision + distance
  }
  return null
}

function describe(event: RecordedEvent): string {
  return `revision ${event.revision} (position ${event.position}, id ${event.id}, ${event.type})`
}

/** Classifies an event whose stored hash does not match its contents. */
function classifyMismatch(event: RecordedEvent, events: readonly RecordedEvent[]): ChainFinding {
  const written = writtenRevision(event)
  if (written === null) {
    return finding(event, 'changed', `${describe(event)} no longer matches its hash: its data, type, metadata, id, recorded time or previous hash was edited`)
  }
  const other = events.find((e) => e.revision === written)
  if (other && !selfConsistent(other) && writtenRevision(other) === event.revision) {
    const [first, second] = event.revision < other.revision ? [event, other] : [other, event]
    return finding(first, 'reordered', `revisions ${first.revision} and ${second.revision} were swapped: the event at ${describe(first)} was written as revision ${second.revision}`)
  }
  if (written > event.revision) {
    const count = written - event.revision
    return finding(
      event,
      'removed',
      `${count === 1 ? `revision ${event.revision} was` : `revisions ${event.revision}–${written - 1} were`} removed and the later events renumbered: the event now at ${describe(event)} was written as revision ${written}`,
    )
  }
  const inserted = events.find((e) => e.revision === written) ?? event
  return finding(
    inserted,
    'inserted',
    `${event.revision - written === 1 ? 'an event was' : `${event.revision - written} events were`} inserted at revision ${written}: the event now at ${describe(event)} was written as revision ${written}`,
    written,
  )
}

/**
 * The first bad event of one stream, or null when its chain is intact. `events` is the stream as
 * read in revision order (readStream).
 */
export function verifyStream(events: readonly RecordedEvent[]): ChainFinding | null {
  let prev: RecordedEvent | null = null
  for (const event of events) {
    const expected = prev === null ? 0 : prev.revision + 1
    if (event.revision > expected) {
      const gap = event.revision - expected
      return finding(
        event,
        'removed',
        `${gap === 1 ? `revision ${expected} is` : `revisions ${expected}–${event.revision - 1} are`} missing: the stream goes from ${prev === null ? 'its start' : describe(prev)} to ${describe(event)}`,
        expected,
      )
    }
    if (event.revision < expected) {
      return finding(event, 'inserted', `a second event at revision ${event.revision}: ${describe(event)}`)
    }
    if (!selfConsistent(event)) return classifyMismatch(event, events)
    if (prev !== null && event.position <= prev.position) {
      return finding(
        prev,
        'reordered',
        `revisions ${prev.revision} and ${event.revision} are out of order in the log: revision ${event.revision} is at position ${event.position}, before revision ${prev.revision} at position ${prev.position}`,
      )
    }
    const expectedPrev: string | null = prev === null ? null : prev.hash
    if (event.prevHash !== expectedPrev) {
      if (prev === null) {
        return finding(event, 'changed', `${describe(event)} is the first event of its stream but is chained to a previous hash: it was rewritten and re-hashed`)
      }
      // Both are self-consistent: one of them was rewritten and its hash recomputed.
      return finding(
        prev,
        'changed',
        `the chain breaks after ${describe(prev)}: revision ${event.revision} was chained to hash ${event.prevHash ?? 'null'}, but revision ${prev.revision} now hashes to ${prev.hash}, so it was changed and its hash recomputed (or revision ${event.revision} was re-chained)`,
      )
    }
    prev = event
  }
  return null
}

interface StreamHead {
  readonly revision: number
  readonly hash: string
  readonly position: number
}

/**
 * Verifies every stream of the log (or of one account) and reports the first bad event of each.
 * Read only: uses `readAll` and `readStream`.
 */
export async function verifyLog(store: EventStore, options: VerifyOptions = {}): Promise<VerifyReport> {
  const heads = new Map<string, StreamHead>()
  const suspects = new Map<string, RecordedEvent>()
  let events = 0
  let head = 0
  for await (const page of scanLog(store)) {
    for (const event of page) {
      if (options.accountId !== undefined && !belongsToAccount(event.stream, options.accountId)) continue
      events++
      head = event.position
      if (suspects.has(event.stream)) continue
      const before = heads.get(event.stream)
      const intact =
        event.revision === (before === undefined ? 0 : before.revision + 1) &&
        event.prevHash === (before === undefined ? null : before.hash) &&
        (before === undefined || event.position > before.position) &&
        selfConsistent(event)
      if (intact) heads.set(event.stream, { revision: event.revision, hash: event.hash, position: event.position })
      else suspects.set(event.stream, event)
    }
    options.onProgress?.(events, head)
  }

  const findings: ChainFinding[] = []
  for (const [stream, evidence] of suspects) {
    // Read the stream on its own, in revision order, to name and classify its first bad event.
    const found = verifyStream(await store.readStream(stream))
    findings.push(found ?? finding(evidence, 'reordered', `${describe(evidence)} is out of order in the log`))
  }
  findings.sort((a, b) => a.position - b.position)
  const streams = heads.size + [...suspects.keys()].filter((stream) => !heads.has(stream)).length
  return { events, streams, head, findings }
}
