/** The in-memory event store's entry: what the rest of Leadline may import from this folder. */
export * from './memory-event-store.adapter.ts'
