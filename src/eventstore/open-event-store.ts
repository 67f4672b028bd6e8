/** Opens the store named by LEADLINE_STORE: `sqlite:PATH` (embedded default) or an EventStoreDB connection string. */
import type { EventStore } from './event-store.port.ts'
import { openSqliteEventStore } from './sqlite/sqlite-event-store.adapter.ts'

export interface OpenStoreOptions {
  readonly clock?: () => Date
}

export async function openEventStore(url: string, options: OpenStoreOptions = {}): Promise<EventStore> {
  if (url.startsWith('sqlite:')) {
    return openSqliteEventStore({ path: url.slice('sqlite:'.length), ...(options.clock ? { clock: options.clock } : {}) })
  }
  throw new Error(`unsupported store "${url.split(':')[0]}": the EventStoreDB adapter is not available in this build`)
}
