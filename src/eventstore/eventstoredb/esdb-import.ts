/**
 * Importing recorded events (a migration into EventStoreDB): their ids, recordedAt and hash chain
 * kept, idempotent and resumable, refused where the target holds something else.
 */
import { NO_STREAM, type AppendToStreamOptions, type EventData } from '@eventstore/db-client'
import type { RecordedEvent } from '../../domain/event.ts'
import type { AppendResult, ReadStreamOptions } from '../event-store.port.ts'
import { hashEvent } from '../hash-chain.ts'
import { currentRevision, errorType, type StreamHead } from './esdb-client.ts'
import { toEventData, toPortPosition } from './esdb-events.ts'

export interface ImportResult extends AppendResult {
  /** How many of the events were appended now (the rest were there already). */
  readonly imported: number
}

/** The target stream already holds different events than the ones being imported. */
export class DivergedStreamError extends Error {
  readonly type = 'diverged_stream' as const
  constructor(
    readonly stream: string,
    readonly revision: number,
    message: string,
  ) {
    super(`${stream} at revision ${revision}: ${message}`)
    this.name = 'DivergedStreamError'
  }
}

/** What an import needs of the store: its reads, a raw append, and where its own imports left each stream. */
export interface ImportTarget {
  readonly tails: Map<string, StreamHead>
  readStream(stream: string, options: ReadStreamOptions): Promise<RecordedEvent[]>
  appendRaw(stream: string, events: EventData[], options: AppendToStreamOptions): Promise<{ position?: { commit: bigint } }>
  positionOf(stream: string, revision: number): Promise<number>
  unavailable(what: string, error: unknown): Error
}

export async function importRecorded(target: ImportTarget, stream: string, events: readonly RecordedEvent[]): Promise<ImportResult> {
  const first = events[0]
  if (first === undefined) throw new RangeError('nothing to import')
  events.forEach((event, i) => {
    const problem =
      event.stream !== stream
        ? `belongs to ${event.stream}`
        : event.revision !== first.revision + i
          ? 'revisions are not consecutive'
          : i > 0 && event.prevHash !== (events[i - 1] as RecordedEvent).hash
            ? 'does not link to the previous event'
            : hashEvent(event, event.prevHash) !== event.hash
              ? 'its hash does not match its content'
              : null
    if (problem) throw new DivergedStreamError(stream, event.revision, `the event to import ${problem}`)
  })

  let rest = events
  let before = target.tails.get(stream)
  if (before?.revision !== first.revision - 1 || before.hash !== first.prevHash) {
    // Not where this client left the stream: see what the target holds (a resumed or repeated run).
    const present = await target.readStream(stream, { from: first.revision, limit: events.length })
    present.forEach((stored, i) => {
      const wanted = events[i] as RecordedEvent
      if (stored.id !== wanted.id || stored.hash !== wanted.hash) {
        throw new DivergedStreamError(stream, stored.revision, `the target holds event ${stored.id}, the source ${wanted.id}`)
      }
    })
    rest = events.slice(present.length)
    const lastPresent = present[present.length - 1]
    if (rest.length === 0 && lastPresent) {
      // Not remembered as a tail: what follows was probably copied already too, so look next time.
      target.tails.delete(stream)
      return { nextExpectedRevision: lastPresent.revision, position: lastPresent.position, imported: 0 }
    }
    const next = rest[0] as RecordedEvent
    if (next.revision > 0) {
      const [previous] = await target.readStream(stream, { from: next.revision - 1, limit: 1 })
      if (!previous) throw new DivergedStreamError(stream, next.revision - 1, 'the target is missing the events before it (import in log order)')
      if (previous.hash !== next.prevHash) throw new DivergedStreamError(stream, previous.revision, 'the target holds a different event there')
      before = { revision: previous.revision, hash: previous.hash, position: previous.position }
    }
  }

  const next = rest[0] as RecordedEvent
  const proposed = rest.map((event) =>
    toEventData(event.id, event.type, event.data, event.metadata, { recordedAt: event.recordedAt, prevHash: event.prevHash, hash: event.hash }),
  )
  try {
    const result = await target.appendRaw(stream, proposed, {
      expectedRevision: next.revision === 0 ? NO_STREAM : BigInt(next.revision - 1),
    })
    const last = rest[rest.length - 1] as RecordedEvent
    const position = result.position ? toPortPosition(result.position.commit) : await target.positionOf(stream, last.revision)
    target.tails.set(stream, { revision: last.revision, hash: last.hash, position })
    return { nextExpectedRevision: last.revision, position, imported: rest.length }
  } catch (error) {
    target.tails.delete(stream)
    if (errorType(error) === 'wrong-expected-version') {
      throw new DivergedStreamError(stream, next.revision, `another writer appended to the target stream (now at revision ${currentRevision(error)})`)
    }
    throw target.unavailable(`import into ${stream} failed`, error)
  }
}
