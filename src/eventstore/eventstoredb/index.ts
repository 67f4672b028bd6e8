/** The EventStoreDB adapter's entry: what the rest of Leadline may import from this folder. */
export * from './esdb-event-store.adapter.ts'
export { CatchUpProgress, PROGRESS_INTERVAL_MS, type ProgressLogger } from './catch-up-progress.ts'
