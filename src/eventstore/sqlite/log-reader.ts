/**
 * Reads an embedded log ahead of a replay, in a thread of its own (log-reader.worker.ts): the reads,
 * the building of rows, the metadata and the upcasting run on the other core while this thread applies. A page crosses as one JSON text and is
 * decoded by one JSON.parse (a structured clone of a thousand events costs more).
 *
 * What crosses is what projections read: position, type, revision, stream, recording time, schema
 * version and data. Decoding the rest of every event (id, metadata, hashes) on this
 * thread was a large share of the replay; a ReplayedEvent reads it from the log only if asked.
 */
import Database from 'better-sqlite3'
import type { Actor, EventMetadata, RecordedEvent } from '../../domain/event.ts'
import { startWorker } from '../../config/worker-thread.ts'

export interface ReaderData {
  /** The log's SQLite file. */
  readonly path: string
  /** Read events after this position… */
  readonly after: number
  /** …up to this one, inclusive. */
  readonly until: number
  readonly pageSize: number
  /** Event types to decode (the others are counted, not sent); null: every one. */
  readonly types: readonly string[] | null
}

export type ToReader = { readonly credit: number }
export type FromReader =
  | { readonly type: 'page'; readonly text: string; readonly count: number; readonly last: number }
  | { readonly type: 'end' }
  | { readonly type: 'failed'; readonly message: string }

/** One event of a page, as the reader thread writes it. */
type PageEntry = [position: number, type: string, revision: number, stream: string, recordedAt: string, schemaVersion: number, data: unknown]

export interface ReadPage {
  /** The events of the page that are of the types asked for, upcast, in position order. */
  readonly events: RecordedEvent[]
  /** Events read, asked for or not. */
  readonly count: number
  /** The position of the page's last event (asked for or not). */
  readonly last: number
}

interface StoredRest {
  readonly id: string
  readonly metadata: string
  readonly prevHash: string | null
  readonly hash: string
}

/** Reads, on demand, the columns of an event that did not cross from the reader thread. */
class RestOfEvents {
  private db: Database.Database | undefined
  private select: Database.Statement<[number], StoredRest> | undefined
  private closed = false

  constructor(private readonly path: string) {}

  read(position: number): StoredRest {
    if (this.closed) throw new Error(`event at position ${position}: the replay's read of the log has ended`)
    if (this.select === undefined) {
      this.db = new Database(this.path, { readonly: true, fileMustExist: true })
      this.select = this.db.prepare<[number], StoredRest>('SELECT id, metadata, prev_hash AS prevHash, hash FROM events WHERE position = ?')
    }
    return this.select.get(position) as StoredRest
  }

  close(): void {
    this.closed = true
    this.db?.close()
  }
}

/** The metadata of a ReplayedEvent: its (upcast) schema version at hand, the rest read when asked. */
class ReplayedMetadata implements EventMetadata {
  constructor(
    readonly schemaVersion: number,
    private readonly event: ReplayedEvent,
  ) {}

  get correlationId(): string {
    return this.event.stored().metadata.correlationId
  }

  get causationId(): string | null {
    return this.event.stored().metadata.causationId
  }

  get actor(): Actor {
    return this.event.stored().metadata.actor
  }

  toJSON(): EventMetadata {
    return { correlationId: this.correlationId, causationId: this.causationId, actor: this.actor, schemaVersion: this.schemaVersion }
  }
}

/**
 * A RecordedEvent from the reader thread: what projections read at hand, the rest read from the log
 * on first use. It arrives upcast, so upcast() passes it through as it is (a copy by spread would
 * lose the getters).
 */
class ReplayedEvent implements RecordedEvent {
  readonly metadata: EventMetadata
  private rest: { readonly id: string; readonly metadata: EventMetadata; readonly prevHash: string | null; readonly hash: string } | undefined

  constructor(
    readonly position: number,
    readonly type: string,
    readonly revision: number,
    readonly stream: string,
    readonly recordedAt: string,
    schemaVersion: number,
    readonly data: unknown,
    private readonly source: RestOfEvents,
  ) {
    this.metadata = new ReplayedMetadata(schemaVersion, this)
  }

  /** The columns that did not cross, read from the log once. */
  stored() {
    if (this.rest === undefined) {
      const rest = this.source.read(this.position)
      this.rest = { ...rest, metadata: JSON.parse(rest.metadata) as EventMetadata }
    }
    return this.rest
  }

  get id(): string {
    return this.stored().id
  }

  get prevHash(): string | null {
    return this.stored().prevHash
  }

  get hash(): string {
    return this.stored().hash
  }

  toJSON(): RecordedEvent {
    const { id, prevHash, hash } = this.stored()
    return { id, type: this.type, data: this.data, metadata: this.metadata, stream: this.stream, revision: this.revision, position: this.position, recordedAt: this.recordedAt, prevHash, hash }
  }
}

/** Pages in flight: enough that the reader never waits for this thread's next request, few enough to keep memory flat. */
const AHEAD = 2

/**
 * The events of the log file after `after` up to `until`, a page at a time, read in another thread.
 * The thread's heap is bounded: it holds a few pages at most, and a replay's RSS is bounded too.
 */
export async function* readAhead(data: ReaderData): AsyncGenerator<ReadPage> {
  const worker = startWorker(import.meta.url, 'log-reader.worker', { workerData: data, resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 } })
  const rest = new RestOfEvents(data.path)
  const arrived: FromReader[] = []
  let failure: Error | undefined
  let wake: (() => void) | undefined
  const notify = () => {
    const waiting = wake
    wake = undefined
    waiting?.()
  }
  worker.on('message', (message: FromReader) => {
    arrived.push(message)
    notify()
  })
  worker.on('error', (error) => {
    failure = error
    notify()
  })
  worker.on('exit', (code) => {
    failure ??= new Error(`the log reader thread stopped (exit code ${code})`)
    notify()
  })
  try {
    worker.postMessage({ credit: AHEAD } satisfies ToReader)
    for (;;) {
      const message = arrived.shift()
      if (message === undefined) {
        if (failure) throw failure
        await new Promise<void>((resolve) => (wake = resolve))
        continue
      }
      if (message.type === 'end') return
      if (message.type === 'failed') throw new Error(`cannot read the log: ${message.message}`)
      worker.postMessage({ credit: 1 } satisfies ToReader)
      const entries = JSON.parse(message.text) as PageEntry[]
      const events = entries.map(([position, type, revision, stream, recordedAt, schemaVersion, payload]) => new ReplayedEvent(position, type, revision, stream, recordedAt, schemaVersion, payload, rest))
      yield { events, count: message.count, last: message.last }
    }
  } finally {
    worker.removeAllListeners()
    await worker.terminate()
    rest.close()
  }
}
