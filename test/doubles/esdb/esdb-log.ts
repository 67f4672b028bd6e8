/**
 * TEST DOUBLE (part of the in-memory EventStoreDB server, see esdb-double.ts): the transaction log
 * itself, without gRPC. Records sit at byte-like positions in one append-only log; each stream is
 * an index of its events' revisions. Everything here mirrors what EventStoreDB does for
 * non-transactional writes (every write since gRPC); see esdb-double.ts for the list.
 */

/** The position of a record in the log. For events written by gRPC appends commit == prepare. */
export type LogPosition = bigint

export interface StoredEvent {
  /** Lower-case canonical UUID. */
  readonly id: string
  readonly stream: string
  readonly revision: bigint
  readonly type: string
  readonly contentType: string
  readonly data: Uint8Array
  readonly customMetadata: Uint8Array
  /** Ticks (100 ns) since the Unix epoch, as the server sends `created`. */
  readonly created: bigint
  readonly position: LogPosition
}

/** A record of the log: an event, or bookkeeping that is not an event (the epoch record). */
interface LogRecord {
  readonly position: LogPosition
  readonly event: StoredEvent | null
}

export interface ProposedEvent {
  readonly id: string
  readonly type: string
  readonly contentType: string
  readonly data: Uint8Array
  readonly customMetadata: Uint8Array
}

export type Expectation =
  | { readonly kind: 'any' }
  | { readonly kind: 'no_stream' }
  | { readonly kind: 'stream_exists' }
  | { readonly kind: 'revision'; readonly revision: bigint }

export type AppendOutcome =
  | {
      readonly kind: 'success'
      /** Last revision of the stream after the append (the original's last, for an idempotent one); -1n: still no stream. */
      readonly currentRevision: bigint
      /** Position of the last event written (or of the original's last event); null when none. */
      readonly position: LogPosition | null
      /** True when nothing was written because these event ids were already there. */
      readonly idempotent: boolean
    }
  | { readonly kind: 'wrong_expected_version'; readonly currentRevision: bigint; readonly expected: Expectation }

/** Filters as the server applies them: on the stream name or on the event type, by prefixes or a regex. */
export interface LogFilter {
  readonly on: 'stream' | 'event_type'
  readonly prefixes: readonly string[]
  readonly regex: RegExp | null
}

export class InvalidPositionError extends Error {
  constructor(readonly position: LogPosition) {
    super('Trying to read from an invalid position.')
    this.name = 'InvalidPositionError'
  }
}

/** Bytes a record takes besides its payload: EventStoreDB's prepare record header and framing, roughly. */
const RECORD_OVERHEAD = 96n
/** The epoch record a fresh database starts with: positions of events never start at 0. */
const EPOCH_RECORD_LENGTH = 128n

const utf8 = new TextEncoder()

export class EsdbLog {
  private readonly records: LogRecord[] = []
  private readonly byPosition = new Map<LogPosition, number>()
  private readonly streams = new Map<string, StoredEvent[]>()
  /** Per stream: event id → revision, for the idempotency checks. */
  private readonly idsByStream = new Map<string, Map<string, bigint>>()
  private end: LogPosition = 0n
  private readonly listeners = new Set<() => void>()

  constructor(private readonly clock: () => number = Date.now) {
    this.pushRecord(null, EPOCH_RECORD_LENGTH)
    // What a fresh node writes before anyone connects (fewer of them than a real one): system
    // events in system streams, so filters and "the last Leadline event" are never trivially the tail.
    this.writeSystemEvent('$epoch-information', '$epoch-information', { epochNumber: 0 })
    this.writeSystemEvent('$users', '$UserCreated', { loginName: 'admin' })
    this.writeSystemEvent('$user-admin', '$User', { loginName: 'admin', fullName: 'Event Store Administrator' })
    this.writeSystemEvent('$settings', '$settings', { $userStreamAcl: {}, $systemStreamAcl: {} })
  }

  /** The position just past the last record: where the next write goes (a valid read position). */
  get endPosition(): LogPosition {
    return this.end
  }

  /** Every event, system ones included (for tests and diagnostics). */
  get eventCount(): number {
    return this.records.filter((r) => r.event !== null).length
  }

  /** Called after every write (appends and system events). */
  onWrite(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Appends one event to a system stream, as the server does on its own (stats, scavenges, settings). */
  writeSystemEvent(stream: string, type: string, data: unknown): StoredEvent {
    const events = this.streams.get(stream) ?? []
    const event = this.writeEvent(stream, BigInt(events.length), {
      id: crypto.randomUUID(),
      type,
      contentType: 'application/json',
      data: utf8.encode(JSON.stringify(data)),
      customMetadata: new Uint8Array(),
    })
    this.notify()
    return event
  }

  /**
   * EventStoreDB's commit check, then the write. Idempotency is by event id: events already in the
   * stream where this append would have put them (exact or no-stream expectation), or found by id
   * (any / stream-exists; the server's id cache, unbounded here), succeed without a second copy.
   */
  append(stream: string, expected: Expectation, proposed: readonly ProposedEvent[]): AppendOutcome {
    const events = this.streams.get(stream) ?? []
    const current = BigInt(events.length) - 1n
    const wrong: AppendOutcome = { kind: 'wrong_expected_version', currentRevision: current, expected }
    const ids = this.idsByStream.get(stream)

    let writeAfter: bigint
    switch (expected.kind) {
      case 'stream_exists':
      case 'any': {
        // Beyond "the stream exists", stream_exists is checked as any.
        if (expected.kind === 'stream_exists' && current < 0n) return wrong
        const first = proposed[0]
        const at = first === undefined ? undefined : ids?.get(first.id)
        if (at !== undefined) return this.idempotentAt(stream, at, proposed) ?? wrong
        writeAfter = current
        break
      }
      case 'no_stream':
      case 'revision': {
        const expectedRevision = expected.kind === 'no_stream' ? -1n : expected.revision
        if (expectedRevision > current) return wrong
        if (expectedRevision < current) {
          if (proposed.length === 0) return wrong
          return this.idempotentAt(stream, expectedRevision + 1n, proposed) ?? wrong
        }
        writeAfter = current
        break
      }
    }

    if (proposed.length === 0) {
      const last = events[events.length - 1]
      return { kind: 'success', currentRevision: writeAfter, position: last?.position ?? null, idempotent: false }
    }
    let written: StoredEvent | undefined
    proposed.forEach((event, i) => {
      written = this.writeEvent(stream, writeAfter + 1n + BigInt(i), event)
    })
    this.notify()
    const last = written as StoredEvent
    return { kind: 'success', currentRevision: last.revision, position: last.position, idempotent: false }
  }

  /** The stored events, or null when the stream does not exist. */
  readStream(
    stream: string,
    from: bigint | 'start' | 'end',
    direction: 'forwards' | 'backwards',
    count: bigint,
  ): StoredEvent[] | null {
    const events = this.streams.get(stream)
    if (events === undefined) return null
    const out: StoredEvent[] = []
    const last = BigInt(events.length) - 1n
    if (direction === 'forwards') {
      for (let r = from === 'start' ? 0n : from === 'end' ? last + 1n : from; r <= last && BigInt(out.length) < count; r++) {
        out.push(events[Number(r)] as StoredEvent)
      }
    } else {
      // Backwards from a revision past the end starts at the last event.
      for (let r = from === 'end' ? last : from === 'start' ? 0n : from > last ? last : from; r >= 0n && BigInt(out.length) < count; r--) {
        out.push(events[Number(r)] as StoredEvent)
      }
    }
    return out
  }

  /**
   * Reads $all. Forwards from a position includes the event at that position; backwards from a
   * position returns what lies before it. A position must be where a record starts, or the end.
   * `count` bounds the events returned (after filtering).
   */
  readAll(
    from: LogPosition | 'start' | 'end',
    direction: 'forwards' | 'backwards',
    count: bigint,
    filter: LogFilter | null,
  ): StoredEvent[] {
    const out: StoredEvent[] = []
    if (direction === 'forwards') {
      for (let i = this.indexOf(from, 'forwards'); i < this.records.length && BigInt(out.length) < count; i++) {
        const event = (this.records[i] as LogRecord).event
        if (event && matches(filter, event)) out.push(event)
      }
    } else {
      for (let i = this.indexOf(from, 'backwards') - 1; i >= 0 && BigInt(out.length) < count; i--) {
        const event = (this.records[i] as LogRecord).event
        if (event && matches(filter, event)) out.push(event)
      }
    }
    return out
  }

  /**
   * Index of the first record at or after `from` (forwards), or just past the last record before
   * `from` (backwards). Throws InvalidPositionError for a position inside a record.
   */
  indexOf(from: LogPosition | 'start' | 'end', _direction: 'forwards' | 'backwards'): number {
    if (from === 'start') return 0
    if (from === 'end' || from === this.end) return this.records.length
    // Inside a record, or past the end of the log: the server refuses to read there.
    const index = this.byPosition.get(from)
    if (index === undefined) throw new InvalidPositionError(from)
    return index
  }

  /** The record at `index` (for subscriptions walking the log). */
  recordAt(index: number): { position: LogPosition; event: StoredEvent | null } | undefined {
    return this.records[index]
  }

  get recordCount(): number {
    return this.records.length
  }

  private idempotentAt(stream: string, fromRevision: bigint, proposed: readonly ProposedEvent[]): AppendOutcome | null {
    const events = this.streams.get(stream) ?? []
    let last: StoredEvent | undefined
    for (let i = 0; i < proposed.length; i++) {
      const stored = events[Number(fromRevision) + i]
      // A first event that differs is a plain conflict; a later one is "corrupted idempotency",
      // which the server also reports as a wrong expected version.
      if (stored === undefined || stored.id !== (proposed[i] as ProposedEvent).id) return null
      last = stored
    }
    if (last === undefined) return null
    return { kind: 'success', currentRevision: last.revision, position: last.position, idempotent: true }
  }

  private writeEvent(stream: string, revision: bigint, proposed: ProposedEvent): StoredEvent {
    const length =
      RECORD_OVERHEAD +
      BigInt(utf8.encode(stream).length + utf8.encode(proposed.type).length + proposed.data.length + proposed.customMetadata.length)
    const event: StoredEvent = {
      id: proposed.id,
      stream,
      revision,
      type: proposed.type,
      contentType: proposed.contentType,
      data: proposed.data,
      customMetadata: proposed.customMetadata,
      created: BigInt(this.clock()) * 10_000n,
      position: this.end,
    }
    this.pushRecord(event, length)
    let events = this.streams.get(stream)
    if (!events) this.streams.set(stream, (events = []))
    events.push(event)
    let ids = this.idsByStream.get(stream)
    if (!ids) this.idsByStream.set(stream, (ids = new Map()))
    ids.set(event.id, revision)
    return event
  }

  private pushRecord(event: StoredEvent | null, length: bigint): void {
    this.byPosition.set(this.end, this.records.length)
    this.records.push({ position: this.end, event })
    this.end += length
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener()
  }
}

/** The server-side filter: on the stream name or the event type, by any of the prefixes or by the regex. */
export function matches(filter: LogFilter | null, event: StoredEvent): boolean {
  if (filter === null) return true
  const subject = filter.on === 'stream' ? event.stream : event.type
  if (filter.prefixes.length > 0 && !filter.prefixes.some((p) => subject.startsWith(p))) return false
  if (filter.regex !== null && !filter.regex.test(subject)) return false
  return true
}
