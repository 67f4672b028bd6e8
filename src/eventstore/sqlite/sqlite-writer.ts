/**
 * The write side of the embedded store: one group-commit batch in ONE transaction (one fsync), each
 * append of several events inside its own SAVEPOINT so a conflict rolls back and rejects only that
 * append (an append of one event is one statement, undone alone). It owns
 * the hash chain: the head of each stream is read and every event hashed inside the transaction.
 *
 * Synchronous from BEGIN to COMMIT and free of callbacks, so the same code runs on the store's own
 * connection (inline) or on the writer thread's (see sqlite-writer-thread.ts). Requests and
 * outcomes are plain data, so they cross a thread boundary as they are.
 */
import { randomUUID } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { EventMetadata, RecordedEvent } from '../../domain/event.ts'
import { WrongExpectedRevisionError, expectationHolds, type ExpectedRevision } from '../event-store.port.ts'
import { hashParsedEvent } from '../hash-chain.ts'
import { isSqliteError } from './sqlite-schema.ts'

/** An event as the writer takes it: data and metadata already as the JSON text that is stored. */
export interface EncodedEvent {
  readonly id: string | undefined
  readonly type: string
  readonly data: string
  readonly metadata: string
}

export interface WriteRequest {
  readonly stream: string
  readonly expected: ExpectedRevision
  /** Stamped by the store when the batch was formed (its clock may be injected). */
  readonly recordedAt: string
  readonly events: readonly EncodedEvent[]
}

/** What the writer stored for one append: enough to rebuild its RecordedEvents without a read. */
export interface WrittenEvents {
  readonly firstPosition: number
  readonly firstRevision: number
  /** Hash of the stream's event before the first one written (null for a new stream). */
  readonly prevHash: string | null
  readonly ids: readonly string[]
  readonly hashes: readonly string[]
}

export type AppendFailure =
  | {
      readonly kind: 'wrong_expected_revision'
      readonly stream: string
      readonly expected: ExpectedRevision
      readonly actual: number
    }
  | { readonly kind: 'duplicate_event_id'; readonly eventId: string; readonly stream: string }
  | { readonly kind: 'error'; readonly name: string; readonly message: string }

export type WriteOutcome =
  | { readonly ok: true; readonly nextExpectedRevision: number; readonly position: number; readonly written: WrittenEvents | null }
  | { readonly ok: false; readonly failure: AppendFailure }

/**
 * An event id that is already stored somewhere other than where a retry of this very append would
 * have put it. Ids are unique across the whole log.
 */
export class DuplicateEventIdError extends Error {
  readonly type = 'duplicate_event_id' as const
  constructor(
    readonly eventId: string,
    readonly stream: string,
  ) {
    super(`event id ${eventId} is already stored (append to ${stream})`)
    this.name = 'DuplicateEventIdError'
  }
}

/** The error an append is rejected with, rebuilt from its plain-data form. */
export function appendError(failure: AppendFailure): Error {
  switch (failure.kind) {
    case 'wrong_expected_revision':
      return new WrongExpectedRevisionError(failure.stream, failure.expected, failure.actual)
    case 'duplicate_event_id':
      return new DuplicateEventIdError(failure.eventId, failure.stream)
    case 'error': {
      const error = failure.name === 'TypeError' ? new TypeError(failure.message) : new Error(failure.message)
      error.name = failure.name
      return error
    }
  }
}

function toFailure(error: unknown): AppendFailure {
  if (error instanceof WrongExpectedRevisionError) {
    return { kind: 'wrong_expected_revision', stream: error.stream, expected: error.expected, actual: error.actual }
  }
  if (error instanceof DuplicateEventIdError) return { kind: 'duplicate_event_id', eventId: error.eventId, stream: error.stream }
  const e = error instanceof Error ? error : new Error(String(error))
  return { kind: 'error', name: e.name, message: e.message }
}

interface HeadRow {
  revision: number
  hash: string
  position: number
}

interface PlacedRow {
  stream: string
  revision: number
  position: number
}

export class SqliteWriter {
  private readonly stmt: {
    begin: Database.Statement
    commit: Database.Statement
    rollback: Database.Statement
    savepoint: Database.Statement
    release: Database.Statement
    rollbackTo: Database.Statement
    head: Database.Statement<[string], HeadRow>
    placeOfId: Database.Statement<[string], PlacedRow>
    idsFrom: Database.Statement<[string, number, number], { id: string; position: number }>
    insert: Database.Statement<[string, string, number, string, string, string, string, string | null, string]>
  }

  constructor(private readonly db: Database.Database) {
    this.stmt = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT append'),
      release: db.prepare('RELEASE append'),
      rollbackTo: db.prepare('ROLLBACK TO append'),
      head: db.prepare<[string], HeadRow>('SELECT revision, hash, position FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1'),
      placeOfId: db.prepare<[string], PlacedRow>('SELECT stream, revision, position FROM events WHERE id = ?'),
      idsFrom: db.prepare<[string, number, number], { id: string; position: number }>(
        'SELECT id, position FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?',
      ),
      insert: db.prepare<[string, string, number, string, string, string, string, string | null, string]>(
        'INSERT INTO events (id, stream, revision, type, data, metadata, recorded_at, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
    }
  }

  /**
   * Writes the batch in one transaction and returns one outcome per request, in order. Throws
   * (nothing written) when the transaction itself fails: SQLITE_BUSY past the timeout, disk full,
   * read-only, I/O error. With `committed`, the events written are pushed onto it as recorded (their
   * data and metadata as parsed for the hash), in the order of their positions; it holds only what
   * the COMMIT made durable once this returns.
   */
  write(requests: readonly WriteRequest[], committed?: RecordedEvent[]): WriteOutcome[] {
    const outcomes: WriteOutcome[] = []
    try {
      this.stmt.begin.run()
      for (const request of requests) {
        // An append of one event writes one row, in one statement that SQLite undoes by itself when it
        // fails: only an append of several needs a savepoint to undo the rows written before.
        const savepoint = request.events.length > 1
        if (savepoint) this.stmt.savepoint.run()
        const collected = committed?.length ?? 0
        try {
          outcomes.push(this.writeOne(request, committed))
          if (savepoint) this.stmt.release.run()
        } catch (error) {
          if (committed !== undefined) committed.length = collected
          if (isSqliteError(error) && !error.code.startsWith('SQLITE_CONSTRAINT')) throw error
          if (savepoint) {
            this.stmt.rollbackTo.run()
            this.stmt.release.run()
          }
          outcomes.push({ ok: false, failure: this.failureOf(error, request) })
        }
      }
      this.stmt.commit.run()
    } catch (error) {
      if (committed !== undefined) committed.length = 0
      // SQLite may already have rolled back on its own (e.g. SQLITE_FULL, SQLITE_IOERR).
      if (this.db.inTransaction) {
        try {
          this.stmt.rollback.run()
        } catch {
          // the next batch begins afresh; nothing of this one was committed
        }
      }
      throw error
    }
    return outcomes
  }

  /** One append, inside the open transaction. Throws to reject only this append. */
  private writeOne(request: WriteRequest, committed: RecordedEvent[] | undefined): WriteOutcome {
    const { stream, events, expected, recordedAt } = request
    const head = this.stmt.head.get(stream)
    const actual = head?.revision ?? -1

    if (!expectationHolds(expected, actual)) {
      // Perhaps a retry of an append that succeeded, whose events now stand where it expected.
      const placed = this.placed(events[0]?.id)
      if (placed !== undefined) return this.replayedAppend(request, placed, actual)
      return { ok: false, failure: { kind: 'wrong_expected_revision', stream, expected, actual } }
    }
    if (events.length === 0) return { ok: true, nextExpectedRevision: actual, position: head?.position ?? 0, written: null }

    const firstPrevHash = head?.hash ?? null
    let prevHash = firstPrevHash
    let revision = actual
    let position = 0
    let firstPosition = 0
    const ids: string[] = []
    const hashes: string[] = []
    let metadataText: string | undefined
    let metadata: EventMetadata | undefined
    for (const event of events) {
      revision++
      const id = event.id ?? randomUUID()
      // Hashed as stored: the canonical form of the JSON text's value, so a re-verification of the
      // stored rows computes exactly this. The events of one append usually share their metadata.
      if (event.metadata !== metadataText) {
        metadataText = event.metadata
        metadata = JSON.parse(event.metadata) as EventMetadata
      }
      const data = JSON.parse(event.data) as unknown
      const hash = hashParsedEvent({ id, stream, revision, type: event.type, data, metadata: metadata as EventMetadata, recordedAt }, prevHash)
      let info: Database.RunResult
      try {
        info = this.stmt.insert.run(id, stream, revision, event.type, event.data, event.metadata, recordedAt, prevHash, hash)
      } catch (error) {
        // Its first id stored already (the statement alone is undone): a retry of an append that
        // succeeded is answered as the original was; any other reuse of an id is refused by the caller.
        const placed = firstPosition === 0 && isSqliteError(error) && error.code === 'SQLITE_CONSTRAINT_UNIQUE' ? this.placed(event.id) : undefined
        if (placed !== undefined) return this.replayedAppend(request, placed, actual)
        throw error
      }
      position = Number(info.lastInsertRowid)
      if (firstPosition === 0) firstPosition = position
      committed?.push({ id, type: event.type, data, metadata: metadata as EventMetadata, stream, revision, position, recordedAt, prevHash, hash })
      ids.push(id)
      hashes.push(hash)
      prevHash = hash
    }
    return {
      ok: true,
      nextExpectedRevision: revision,
      position,
      written: { firstPosition, firstRevision: actual + 1, prevHash: firstPrevHash, ids, hashes },
    }
  }

  /** Where the event with this id is stored, if it is. */
  private placed(id: string | undefined): PlacedRow | undefined {
    return id === undefined ? undefined : this.stmt.placeOfId.get(id)
  }

  /**
   * The first event id is already stored. If the whole append sits there, consecutively, in this
   * stream and where `expected` would have put it, it is a retry of an append that succeeded:
   * answer as the original did.
   */
  private replayedAppend(request: WriteRequest, placed: PlacedRow, actual: number): WriteOutcome {
    const { stream, events, expected } = request
    const firstId = placed.stream === stream ? undefined : events[0]?.id
    if (firstId !== undefined) throw new DuplicateEventIdError(firstId, stream)
    const stored = this.stmt.idsFrom.all(stream, placed.revision, events.length)
    events.forEach((event, i) => {
      if (event.id === undefined || stored[i]?.id !== event.id) throw new DuplicateEventIdError(events[0]?.id ?? '', stream)
    })
    if (!expectationHolds(expected, placed.revision - 1)) throw new WrongExpectedRevisionError(stream, expected, actual)
    const last = stored[stored.length - 1] as { position: number }
    return { ok: true, nextExpectedRevision: placed.revision + events.length - 1, position: last.position, written: null }
  }

  /** Why one append failed, once its savepoint has been rolled back. */
  private failureOf(error: unknown, request: WriteRequest): AppendFailure {
    if (!isSqliteError(error)) return toFailure(error)
    // The only constraint an append can break once its expectation held: an event id that is
    // stored already, or repeated within the append.
    const ids = request.events.flatMap((event) => (event.id === undefined ? [] : [event.id]))
    const duplicate = ids.find((id) => this.stmt.placeOfId.get(id) !== undefined) ?? ids.find((id, i) => ids.indexOf(id) !== i)
    return { kind: 'duplicate_event_id', eventId: duplicate ?? '', stream: request.stream }
  }
}
