/**
 * Opens the store named by LEADLINE_STORE: `sqlite:PATH` (embedded default) or an EventStoreDB connection
 * string; or `memory:`, a fresh in-memory log for tests (the configuration does not accept it: a stop loses it).
 */
import type { EventStore } from './event-store.port.ts'
import { openSqliteEventStore, type AfterCommitModule } from './sqlite/index.ts'
import { openMemoryEventStore } from './memory/index.ts'
import type { ProgressLogger } from './eventstoredb/index.ts'

export interface OpenStoreOptions {
  readonly clock?: () => Date
  /** Where an EventStoreDB store logs catch-up progress and reconnections (default: its own JSON logger). */
  readonly logger?: ProgressLogger
  /**
   * For a long-running server: the embedded store then writes on a thread of its own, so the event
   * loop keeps serving while a batch is fsynced, and resolves once that thread is up. Short-lived
   * commands and tests write in line and start at once.
   */
  readonly serving?: boolean
  /** A serving embedded store's work on its writer thread after each commit (sqlite/after-commit.ts); ignored otherwise. */
  readonly afterCommit?: AfterCommitModule
}

/** The schemes of EventStoreDB / KurrentDB connection strings. */
export const ESDB_STORE = /^(esdb|kurrentdb)(\+discover)?:\/\//i

/** The in-memory store's URL: each open is a new, empty log. */
export const MEMORY_STORE = 'memory:'

export async function openEventStore(url: string, options: OpenStoreOptions = {}): Promise<EventStore> {
  if (url === MEMORY_STORE) return openMemoryEventStore(options.clock ? { clock: options.clock } : {})
  if (url.startsWith('sqlite:')) {
    const store = openSqliteEventStore({
      path: url.slice('sqlite:'.length),
      writer: options.serving ? 'thread' : 'inline',
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.serving && options.afterCommit ? { afterCommit: options.afterCommit } : {}),
    })
    try {
      await store.ready()
    } catch (error) {
      await store.close()
      throw error
    }
    return store
  }
  if (ESDB_STORE.test(url)) {
    // Loaded only for an EventStoreDB store: its gRPC client slows every start.
    const { openEsdbEventStore } = await import('./eventstoredb/index.ts')
    return openEsdbEventStore({
      connectionString: url,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    })
  }
  throw new Error(`unsupported store "${url.split(':')[0]}": use sqlite:PATH or an EventStoreDB connection string (esdb://host:2113?tls=false)`)
}
