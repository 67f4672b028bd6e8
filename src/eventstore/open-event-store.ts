/** Opens the store named by LEADLINE_STORE: `sqlite:PATH` (embedded default) or an EventStoreDB connection string. */
import type { EventStore } from './event-store.port.ts'
import { openSqliteEventStore } from './sqlite/sqlite-event-store.adapter.ts'
import type { ProgressLogger } from './eventstoredb/catch-up-progress.ts'

export interface OpenStoreOptions {
  readonly clock?: () => Date
  /** Where an EventStoreDB store logs catch-up progress and reconnections (default: its own JSON logger). */
  readonly logger?: ProgressLogger
}

/** The schemes of EventStoreDB / KurrentDB connection strings. */
export const ESDB_STORE = /^(esdb|kurrentdb)(\+discover)?:\/\//i

export async function openEventStore(url: string, options: OpenStoreOptions = {}): Promise<EventStore> {
  if (url.startsWith('sqlite:')) {
    return openSqliteEventStore({ path: url.slice('sqlite:'.length), ...(options.clock ? { clock: options.clock } : {}), ...(options.logger ? { logger: options.logger } : {}) })
  }
  if (ESDB_STORE.test(url)) {
    // Loaded only for an EventStoreDB store: its gRPC client is a third of a second of start-up.
    const { openEsdbEventStore } = await import('./eventstoredb/esdb-event-store.adapter.ts')
    return openEsdbEventStore({
      connectionString: url,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    })
  }
  throw new Error(`unsupported store "${url.split(':')[0]}": use sqlite:PATH or an EventStoreDB connection string (esdb://host:2113?tls=false)`)
}
