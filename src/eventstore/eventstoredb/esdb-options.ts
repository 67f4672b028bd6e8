/** What opening a store on EventStoreDB takes and gives, and its connection strings. */
import type { RecordedEvent } from '../../domain/event.ts'
import type { EventStore } from '../event-store.port.ts'
import type { ProgressLogger } from './catch-up-progress.ts'
import type { ImportResult } from './esdb-import.ts'

export interface EsdbEventStoreOptions {
  /** Any connection string the client accepts (`esdb://host:2113?tls=false`, `esdb+discover://…`); `kurrentdb` schemes too. */
  readonly connectionString: string
  /** Source of `recordedAt`; defaults to the system clock. */
  readonly clock?: () => Date
  /** Catch-up progress and reconnections. Defaults to a JSON logger on standard output at LOG_LEVEL. */
  readonly logger?: ProgressLogger
  /**
   * Keeps this store's streams under a prefix in EventStoreDB (`prefix` + stream name), and sees
   * only those. For sharing one server between test runs; not part of LEADLINE_STORE. Hashes cover
   * the stream name without the prefix.
   */
  readonly streamPrefix?: string
}

export interface EsdbEventStore extends EventStore {
  readonly kind: 'esdb'
  /** The connection string with any password replaced by `***`. */
  readonly target: string
  /**
   * Appends events recorded by another store (a migration), keeping their ids, recordedAt and hash
   * chain. Idempotent and resumable: events already there (same ids, same hashes) are skipped, the
   * rest is appended after them. Throws DivergedStreamError when the stream holds something else.
   */
  importRecorded(stream: string, events: readonly RecordedEvent[]): Promise<ImportResult>
}

/** `kurrentdb://` and `kurrentdb+discover://` are the newer names of the same connection strings. */
export function clientConnectionString(connectionString: string): string {
  return connectionString.replace(/^kurrentdb(\+discover)?:\/\//i, (_m, discover: string | undefined) => `esdb${discover ?? ''}://`)
}

/** The connection string without its password, for logs and messages. */
export function redactConnectionString(connectionString: string): string {
  return connectionString.replace(/(:\/\/[^:/@]+:)[^@/]*@/, '$1***@')
}
